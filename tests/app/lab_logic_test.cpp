// Small pieces of the lab that need no window: toggle inertness, start-up N tuning, --size, history.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>

#include "app/core/body_count_tuner.hpp"
#include "app/core/energy_monitor.hpp"
#include "app/core/stats_history.hpp"
#include "app/core/text_format.hpp"
#include "app/core/options/toggle_state.hpp"
#include "app/core/options/view_options.hpp"
#include "sim/error.hpp"
#include "sim/resources.hpp"
#include "sim/settings_io.hpp"
#include "sim/settings.hpp"
#include "sim/diagnostics.hpp"
#include "sim/tipsy.hpp"

namespace nbl {
namespace {

TEST(ToggleState, OnTheCpuOnlyCellMomentsAndOpeningAreLiveAndNothingForTheOtherAlgorithm) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  for (const auto& t : kToggles) {
    // The CPU Barnes-Hut backend reads bh_moments (quadrupole cells) and the opening test with its
    // tolerance (live under the default relative test); every other toggle is GPU code.
    const bool cpu_reads = t.key == "bh_moments" || t.key == "bh_opening" || t.key == "bh_tolerance";
    EXPECT_EQ(toggle_inert_reason(t, s, false).empty(), cpu_reads) << t.key;
    if (t.algorithm == Algorithm::allpairs) {
      EXPECT_NE(toggle_inert_reason(t, s, true).find("all"), std::string::npos) << t.key;
    }
  }
  s.algorithm = Algorithm::allpairs;
  for (const auto& t : kToggles) EXPECT_FALSE(toggle_inert_reason(t, s, false).empty()) << t.key;
}

TEST(ToggleState, DefaultsAreLiveOnTheGpu) {
  for (Algorithm a : {Algorithm::allpairs, Algorithm::barneshut}) {
    Settings s;
    s.algorithm = a;
    // With the defaults (Morton build, group walk, relative opening) exactly the insertion build's
    // toggles (its throttle, combined fence, wait-free summarize, sort throttle and early out) and the
    // warp walk's vote are inert.
    for (const auto& t : kToggles)
      if (t.algorithm == a) {
        const bool inert = t.key == "bh_throttle" || t.key == "bh_combined_fence" || t.key == "bh_waitfree" ||
                           t.key == "bh_sort_throttle" || t.key == "bh_early_out" || t.key == "bh_vote";
        EXPECT_EQ(toggle_inert_reason(t, s, true).empty(), !inert) << t.key;
      }
  }
}

TEST(ToggleState, DependentTogglesGreyOutWithTheirParent) {
  Settings s;
  s.algorithm = Algorithm::allpairs;
  s.toggles["parallelism"] = 0;
  EXPECT_NE(toggle_inert_reason(*find_toggle("tiling"), s, true), "");
  EXPECT_EQ(toggle_inert_reason(*find_toggle("rsqrt"), s, true), "");
  s.algorithm = Algorithm::barneshut;
  s.toggles["bh_build"] = 0;
  EXPECT_EQ(toggle_inert_reason(*find_toggle("bh_throttle"), s, true), "");
  EXPECT_NE(toggle_inert_reason(*find_toggle("bh_leaf_capacity"), s, true), "");
  s.toggles.set({"bh_opening", "relative"});
  EXPECT_EQ(toggle_inert_reason(*find_toggle("bh_tolerance"), s, true), "");
  EXPECT_EQ(toggle_inert_reason(*find_toggle("bh_tolerance"), s, false), "");  // the CPU backend reads it too
  s.toggles.set({"bh_opening", "geometric"});
  EXPECT_NE(toggle_inert_reason(*find_toggle("bh_tolerance"), s, false), "");
  s.toggles["bh_build"] = 1;
  EXPECT_NE(toggle_inert_reason(*find_toggle("bh_throttle"), s, true), "");
  EXPECT_NE(toggle_inert_reason(*find_toggle("bh_waitfree"), s, true), "");
  EXPECT_EQ(toggle_inert_reason(*find_toggle("bh_leaf_capacity"), s, true), "");
  // Precision and compiler flags: -ftz/--use_fast_math in fp64, rsqrt under --use_fast_math.
  s = Settings{};
  s.algorithm = Algorithm::allpairs;
  EXPECT_EQ(toggle_inert_reason(*find_toggle("fast_math"), s, true), "");
  s.toggles.set({"precision", "fp64"});
  EXPECT_NE(toggle_inert_reason(*find_toggle("fast_math"), s, true), "");
  s.toggles.set({"precision", "fp32"}).set({"fast_math", "fast_math"});
  EXPECT_NE(toggle_inert_reason(*find_toggle("rsqrt"), s, true), "");
}

// The start-up N on a GPU: one timed point scaled by the cost law (the timing itself needs a GPU).
TEST(StartupBodyCount, ScalesTheProbeByTheAlgorithmsCostLaw) {
  // All-pairs, t ~ n^2: a probe 4x over budget halves n; 4x under budget doubles it.
  EXPECT_EQ(scale_body_count(65536, 40.0, 10.0, 2.0, 1024, 1u << 24), 32768u);
  EXPECT_EQ(scale_body_count(65536, 2.5, 10.0, 2.0, 1024, 1u << 24), 131072u);
  // Barnes-Hut, t ~ n^1.1: 8x the budget buys a little less than 8x the bodies.
  const std::size_t bh = scale_body_count(262144, 1.25, 10.0, 1.1, 1024, 1u << 24);
  EXPECT_GT(bh, 262144u * 6);
  EXPECT_LT(bh, 262144u * 8);
  EXPECT_EQ(bh % 1024, 0u);
}

TEST(StartupBodyCount, SlowerGpusGetFewerBodiesWithinTheLimits) {
  std::size_t previous = SIZE_MAX;
  for (double probe_ms : {0.5, 2.0, 8.0, 32.0, 128.0}) {  // the same probe on ever slower GPUs
    const std::size_t n = scale_body_count(65536, probe_ms, kStartupSimulationBudgetMs,
                                           cost_exponent(Algorithm::allpairs), 16384, 1u << 22);
    EXPECT_LT(n, previous) << probe_ms;
    previous = n;
  }
  EXPECT_EQ(scale_body_count(65536, 1e6, 10.0, 2.0, 16384, 1u << 22), 16384u);     // never below the floor
  EXPECT_EQ(scale_body_count(65536, 1e-6, 10.0, 2.0, 16384, 1u << 22), 1u << 22);  // nor above the memory cap
  EXPECT_EQ(scale_body_count(65536, 0.0, 10.0, 2.0, 16384, 1u << 22), 1u << 22);   // a probe too fast to time
  EXPECT_GT(cost_exponent(Algorithm::allpairs), cost_exponent(Algorithm::barneshut));
  EXPECT_GE(probe_body_count(Algorithm::allpairs), 16384u);  // below this a GPU is latency-bound
}

TEST(BodyCountTuner, SlowFramesLowerNFastOnesRaiseItOnlyWhenAllowed) {
  BodyCountTuner slow(65536, 1.0, false);
  std::optional<std::size_t> n;
  for (int i = 0; i < 20 && !n; ++i) n = slow.observe(100.0, 5.0);
  ASSERT_TRUE(n);
  EXPECT_LT(*n, 65536u / 3);
  EXPECT_EQ(*n % 1024, 0u);
  EXPECT_NE(slow.note().find("30 FPS"), std::string::npos);

  BodyCountTuner fast_gpu(65536, 1.0, false);
  for (int i = 0; i < 40; ++i) EXPECT_FALSE(fast_gpu.observe(2.0, 1.0));
  BodyCountTuner fast_cpu(16384, 1.0, true);
  n.reset();
  for (int i = 0; i < 20 && !n; ++i) n = fast_cpu.observe(2.0, 1.0);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 32768u);
}

TEST(BodyCountTuner, KeepsNWhenDrawingAloneMissesTheTarget) {
  BodyCountTuner tuner(16384, 1.1, true);
  for (int i = 0; i < 40; ++i) EXPECT_FALSE(tuner.observe(40.0, 60.0));
  EXPECT_FALSE(tuner.active());
  EXPECT_EQ(tuner.note(), "");
}

TEST(BodyCountTuner, StaysOutOfTheWayWhenDisabledOrOnTarget) {
  BodyCountTuner off(65536, 1.0, true, false);
  for (int i = 0; i < 40; ++i) EXPECT_FALSE(off.observe(500.0, 1.0));
  BodyCountTuner fine(65536, 1.0, true);
  for (int i = 0; i < 40; ++i) EXPECT_FALSE(fine.observe(18.0, 2.0));
  EXPECT_FALSE(fine.active());
}

TEST(EnergySlice, TakesAQuarterOfAStepUnlessEachFrameShowsANewStep) {
  // Steps slower than the display (60 Hz frames, 100 ms steps): a quarter of a step, within 0.5 to 4 ms.
  EXPECT_DOUBLE_EQ(energy_slice_ms({100, 16.7, 10, 1}), 4.0);
  EXPECT_DOUBLE_EQ(energy_slice_ms({8, 16.7, 20, 1}), 2.0);
  EXPECT_DOUBLE_EQ(energy_slice_ms({0.4, 16.7, 30, 1}), 0.5);
  // A 240 Hz display showing a new step in each frame: half of what the step leaves of the frame.
  EXPECT_NEAR(energy_slice_ms({3.6, 4.17, 230, 1}), 0.285, 1e-9);
  // Nothing left: the least slice, so that the measurement still ends.
  EXPECT_DOUBLE_EQ(energy_slice_ms({5.2, 5.24, 191, 1}), kMinEnergySliceMs);
  EXPECT_DOUBLE_EQ(energy_slice_ms({6.0, 5.0, 200, 1}), kMinEnergySliceMs);
  // Much slack: never more than the quarter of a step.
  EXPECT_DOUBLE_EQ(energy_slice_ms({2.0, 16.7, 60, 1}), 0.5);
  // Two steps a frame: the frame's slack beside both.
  EXPECT_NEAR(energy_slice_ms({1.8, 4.17, 470, 2}), 0.285, 1e-9);
  // No figures yet (the first frames): the quarter rule's least.
  EXPECT_DOUBLE_EQ(energy_slice_ms({0, 0, 0, 1}), 0.5);
}

TEST(FrameSize, ParsesWidthByHeight) {
  const FrameSize s = parse_frame_size("1920x1080");
  EXPECT_EQ(s.width, 1920);
  EXPECT_EQ(s.height, 1080);
  EXPECT_EQ(parse_frame_size("64X48").height, 48);
}

TEST(FrameSize, RefusesWhatIsNotASize) {
  for (const char* bad :
       {"", "1920", "x1080", "1920x", "-5x10", "10x10", "1920x1080x3", "abcxdef", "99999x100", "1e3x100"}) {
    try {
      parse_frame_size(bad);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--size"), std::string::npos);
    }
  }
}

TEST(Series, KeepsTheLatestValuesInRingOrder) {
  Series s(4);
  for (int i = 1; i <= 6; ++i) s.push(static_cast<float>(i));
  EXPECT_EQ(s.count(), 4);
  EXPECT_EQ(s.offset(), 2);  // the oldest (3) sits at index 2
  EXPECT_EQ(s.data()[s.offset()], 3.0f);
  EXPECT_EQ(s.latest(), 6.0f);
  EXPECT_EQ(s.max(), 6.0f);
  EXPECT_EQ(s.median(), 4.5f);  // of 3, 4, 5, 6
}

TEST(LabStats, StepsFeedPerKernelHistoryAndRate) {
  LabStats stats;
  StepStats step;
  step.stages = {{"force", 3.0}, {"integrate", 1.0}};
  step.total_ms = 4.0;
  step.interactions = 4e6;
  stats.record_step(step);
  ASSERT_EQ(stats.stages.size(), 2u);
  EXPECT_EQ(stats.stages[0].first, "force");
  EXPECT_FLOAT_EQ(stats.median_interactions_per_s(), 1e9f);
  stats.clear_steps();
  EXPECT_FALSE(stats.has_step);
}

TEST(Presets, EveryPresetLoadsAndValidates) {
  int presets = 0;
  for (const auto& entry : std::filesystem::directory_iterator(find_resource("assets/presets"))) {
    if (entry.path().extension() != ".json") continue;
    ++presets;
    Settings s;
    s.body_count = 12345;
    EXPECT_NO_THROW(s = load_settings(entry.path(), s)) << entry.path();
    EXPECT_NO_THROW(validate(s)) << entry.path();
    EXPECT_NE(s.body_count, std::optional<std::int64_t>(12345))
        << entry.path() << " must say how many bodies (null: auto)";
  }
  EXPECT_GE(presets, 3);
}

TEST(TextFormat, GroupsThousands) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1048576), "1,048,576");
  EXPECT_EQ(with_commas(-12345), "-12,345");
}

}  // namespace
}  // namespace nbl

namespace nbl {
namespace {

// The shipped bookmarks are the default collision's key moments, in order (docs/window.md, "Bookmarks"):
// first passage, tidal tails, merger; each the default scene's N, finite, with its settings file beside it.
TEST(ShippedBookmarks, MarkTheDefaultCollisionsMomentsInOrder) {
  const std::vector<std::pair<std::string, double>> moments = {
      {"collision-first-passage", 3.0}, {"collision-tails", 6.0}, {"collision-merger", 38.0}};
  for (const auto& [name, time] : moments) {
    SCOPED_TRACE(name);
    const std::filesystem::path tipsy = find_resource("assets/bookmarks/" + name + ".tipsy.gz");
    const TipsySnapshot snapshot = read_tipsy(tipsy);
    EXPECT_NEAR(snapshot.time, time, 0.05);
    EXPECT_EQ(snapshot.bodies.size(), 65536u);
    EXPECT_TRUE(all_finite(snapshot.bodies));
    // Made from today's scene: the galaxies' dark halos come after the stars, each body heavier.
    EXPECT_GT(snapshot.bodies.mass.back(), 8.0f * snapshot.bodies.mass.front());
    const Settings settings = load_settings(find_resource("assets/bookmarks/" + name + ".json"));
    EXPECT_EQ(settings.scene, Scene::collision);
    EXPECT_EQ(settings.body_count.value_or(0), 65536);
  }
}

}  // namespace
}  // namespace nbl
