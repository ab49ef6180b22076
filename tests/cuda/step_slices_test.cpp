// How the GPU backends cut a slow force pass for the lab (cuda/step_slices.hpp), without a GPU: how many
// launches a pass gets, that each launch keeps enough work to fill the GPU, and that the time the count
// is made from belongs to the variant that steps and is not inflated by slicing itself.
#include <gtest/gtest.h>

#include <atomic>

#include "cuda/step_slices.hpp"

namespace nbl {
namespace {

StepControl control(double slice_ms, bool fill = true) {
  StepControl c;
  c.slice_ms = slice_ms;
  c.fill_each_slice = fill;
  return c;
}

TEST(ForceSlices, AFastPassOrNoSliceTargetRunsWhole) {
  EXPECT_EQ(force_slice_count(control(8), 7.9, 10000, 100), 1);
  EXPECT_EQ(force_slice_count(control(0), 1000, 10000, 100), 1);
  EXPECT_EQ(force_slice_count(control(8), 1000, 1, 1), 1);
}

TEST(ForceSlices, ASlowPassGetsSlicesOfAboutTheTarget) {
  EXPECT_EQ(force_slice_count(control(8), 80, 100000, 100), 10);
  EXPECT_EQ(force_slice_count(control(8), 81, 100000, 100), 11);
}

TEST(ForceSlices, EachSliceKeepsEnoughItemsToFillTheGpu) {
  // A one-second pass over 32,768 warps with 2,112 warps to fill the GPU: 15 slices, not 125 launches
  // that would leave most SMs idle.
  EXPECT_EQ(force_slice_count(control(8), 1000, 32768, 2112), 15);
  EXPECT_EQ(force_slice_count(control(8), 1000, 32768, 8448), 3);
  EXPECT_EQ(force_slice_count(control(8, false), 1000, 32768, 2112), 125);
  EXPECT_EQ(force_slice_count(control(8), 1000, 1000, 2112), 1);              // fewer items than one full launch
  EXPECT_EQ(force_slice_count(control(1e-9, false), 1000, 100000, 1), 1024);  // at most 1024 launches
}

TEST(ForceSlices, AllPairsSlicesHoldWholeWavesAndNeverABlockMore) {
  // A million all-pairs bodies on 132 SMs: 1,024 target blocks with 17 source splits each, 5 blocks fit
  // an SM, so 38 target blocks fill it once. 67 slices of 8 ms are wanted; 27 slices hold at most 38.
  const int wave = 132 * 5 / 17;
  EXPECT_EQ(wave, 38);
  const int slices = whole_wave_slice_count(67, 1024, wave);
  EXPECT_EQ(slices, 27);
  for (int k = 0; k < slices; ++k) EXPECT_LE(1024 * (k + 1) / slices - 1024 * k / slices, wave) << k;
  // Fewer, longer slices wanted: whole waves each (3 slices of 9 waves, 342 blocks at most).
  EXPECT_EQ(whole_wave_slice_count(3, 1024, wave), 3);
  EXPECT_EQ(whole_wave_slice_count(2, 1024, wave), 2);
  EXPECT_EQ(whole_wave_slice_count(1, 1024, wave), 1);
  EXPECT_EQ(whole_wave_slice_count(67, 1, wave), 1);
  // More than a wave's worth in a slice never comes from rounding: 39 items, 38 a wave, two wanted.
  EXPECT_EQ(whole_wave_slice_count(2, 39, 38), 2);
  EXPECT_EQ(whole_wave_slice_count(67, 39, 38), 2);
}

TEST(ForcePassClock, AnotherVariantStartsFromNothingAndSlicingDoesNotFeedOnItself) {
  ForcePassClock clock;
  EXPECT_EQ(clock.whole_ms("sorted"), 0);
  clock.record(1, 3.0);
  EXPECT_EQ(clock.whole_ms("sorted"), 3.0);
  EXPECT_EQ(clock.whole_ms("unsorted"), 0) << "another variant's figure would cut its first step wrongly";
  clock.record(1, 1000);
  EXPECT_EQ(clock.whole_ms("unsorted"), 1000);
  clock.record(15, 5000);  // the sliced pass, waits and idle SMs included
  EXPECT_EQ(clock.whole_ms("unsorted"), 1250) << "a sliced step raises the figure by a quarter at most";
  clock.record(15, 900);
  EXPECT_EQ(clock.whole_ms("unsorted"), 900);
  EXPECT_EQ(clock.whole_ms("sorted"), 0) << "back to the first variant: timed afresh";
}

// A pass may be stopped inside its launch (StopWord) only under a control that may abandon it, while
// it is long or not timed yet: a fast variant's steps, once timed, run without the stop word's wait.
TEST(StoppablePass, OnlyALongOrUntimedPassUnderAControlThatMayAbandonIt) {
  std::atomic<bool> abandon{false};
  StepControl c = control(8);
  EXPECT_FALSE(stoppable_pass(c, 0)) << "no abandon flag: bench, A/B, render";
  c.abandon = &abandon;
  EXPECT_TRUE(stoppable_pass(c, 0)) << "a variant's first step, untimed, may be the slow one the user leaves";
  EXPECT_TRUE(stoppable_pass(c, 1000));
  EXPECT_FALSE(stoppable_pass(c, 1.8)) << "a 1M Barnes-Hut pass of 1.8 ms";
  c.slice_ms = 0;
  EXPECT_FALSE(stoppable_pass(c, 1000)) << "--slice-ms 0: whole launches, as before";
}

}  // namespace
}  // namespace nbl
