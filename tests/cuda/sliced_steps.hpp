// What both GPU backends' sliced steps must do for the lab's stepping thread (StepControl,
// sim/backend.hpp; cuda/step_slices.hpp): a pass cut as finely as its items allow gives the whole
// pass's state bit for bit, an abandoned step leaves the state as it was, and the step after it is the
// one that would have come. `whole` and `sliced` are two backends made alike.
#pragma once
#include <gtest/gtest.h>

#include <atomic>

#include "sim/backend.hpp"
#include "sim/bodies.hpp"

namespace nbl::test {

inline void expect_sliced_steps_match_whole_ones(Backend& whole, Backend& sliced, const Bodies& start,
                                                 bool same_interactions) {
  whole.set_bodies(start);
  sliced.set_bodies(start);
  std::atomic<bool> abandon{false};
  StepControl control;
  control.abandon = &abandon;
  control.slice_ms = 1e-6;          // every pass is slower than this: as many slices as there are items, at most 1024
  control.fill_each_slice = false;  // slice finely: every boundary between items is crossed somewhere
  sliced.set_step_control(control);
  for (int step = 0; step < 3; ++step) {
    const StepStats a = whole.step(), b = sliced.step();
    if (step > 0) {  // a variant's first step runs whole and is timed
      EXPECT_GT(b.force_slices, 1);
    }
    EXPECT_FALSE(b.abandoned);
    if (same_interactions) {
      EXPECT_EQ(a.interactions, b.interactions);
    }
    ASSERT_FALSE(a.non_finite || b.non_finite);
  }
  Bodies x, y;
  whole.get_bodies(x);
  sliced.get_bodies(y);
  EXPECT_TRUE(x.x == y.x && x.y == y.y && x.z == y.z && x.vx == y.vx && x.vy == y.vy && x.vz == y.vz)
      << "a sliced pass must give the whole pass's state bit for bit";
  abandon = true;
  EXPECT_TRUE(sliced.step().abandoned);
  Bodies z;
  sliced.get_bodies(z);
  EXPECT_TRUE(z.x == y.x && z.vx == y.vx) << "an abandoned step must leave the state as it was";
  abandon = false;
  whole.step();
  sliced.step();
  whole.get_bodies(x);
  sliced.get_bodies(y);
  EXPECT_TRUE(x.x == y.x && x.vz == y.vz) << "the step after an abandoned one is the step that would have come";
}

}  // namespace nbl::test
