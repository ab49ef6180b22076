// The stepping thread's jobs (app/core/stepper.hpp) on a backend whose steps wait at a gate: a job
// queued behind a running one starts the moment it ends, without the display thread; its after_steps
// runs on the state it reached; an abandoned job drops the one queued behind it; reports come oldest
// first, each once; a queued job that has not started can be dropped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "app/core/simulation.hpp"
#include "app/core/stepper.hpp"
#include "held_backend.hpp"

namespace nbl {
namespace {

template <class Done>
bool within_seconds(double seconds, Done done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && std::chrono::steady_clock::now() < end) usleep(1000);
  return done();
}

// A small simulation on a backend whose steps wait at `gate`, a stepper wired to it, and jobs whose
// after_steps count their runs and note the simulated time they saw.
class Stepping : public ::testing::Test {
 protected:
  static Settings settings() {
    Settings s;
    s.scene = Scene::galaxy;
    s.body_count = 256;
    s.backend = BackendKind::cpu;
    return s;
  }
  void SetUp() override { stepper.attach(simulation, 8); }
  StepJob job(int tag) {
    StepJob j;
    j.tag = tag;
    j.after_steps = [this](Simulation& s) {
      after_time.store(s.time());
      ++after_ran;
    };
    return j;
  }
  // Starts job 1 and waits until its step is held at the gate.
  bool start_held() {
    stepper.start(simulation, job(1));
    return within_seconds(5, [&] { return gate->waiting == 1; });
  }

  std::shared_ptr<testing::StepGate> gate = std::make_shared<testing::StepGate>();
  Simulation simulation{settings(), "",
                        [g = gate](const Settings&) { return std::make_unique<testing::HeldBackend>(g); }};
  Stepper stepper;  // after the simulation: its thread ends first
  std::atomic<int> after_ran{0};
  std::atomic<double> after_time{-1};
};

TEST_F(Stepping, AQueuedJobStartsTheMomentTheRunningOneEndsAndReportsComeInOrder) {
  EXPECT_FALSE(stepper.queue(job(1))) << "nothing runs: a queued job would wait forever";
  ASSERT_TRUE(start_held());
  EXPECT_TRUE(stepper.queue(job(2)));
  EXPECT_TRUE(stepper.queued());
  EXPECT_FALSE(stepper.queue(job(3))) << "one job waits at most";
  EXPECT_FALSE(stepper.poll()) << "a report before the job ended";

  // Nothing polls from here: the second job must start on its own.
  gate->open = true;
  ASSERT_TRUE(within_seconds(5, [&] { return gate->steps == 2 && after_ran == 2; }))
      << "the queued job did not start when the running one ended";
  EXPECT_FALSE(stepper.queued());
  EXPECT_TRUE(stepper.busy()) << "two reports are not taken yet";

  std::optional<StepReport> first = stepper.poll(), second = stepper.poll();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->tag, 1);
  EXPECT_EQ(second->tag, 2);
  EXPECT_TRUE(first->after_steps_ran && second->after_steps_ran);
  EXPECT_EQ(first->steps.size(), 1u);
  EXPECT_EQ(second->steps.size(), 1u);
  EXPECT_LT(first->sim_time, second->sim_time);
  EXPECT_EQ(after_time.load(), second->sim_time) << "after_steps saw the state its job reached";
  EXPECT_FALSE(stepper.poll());
  EXPECT_FALSE(stepper.busy());
}

TEST_F(Stepping, AbandoningARunningJobDropsTheOneQueuedBehindIt) {
  const double t0 = simulation.time();
  ASSERT_TRUE(start_held());
  ASSERT_TRUE(stepper.queue(job(2)));
  stepper.abandon();
  EXPECT_FALSE(stepper.queued());
  std::optional<StepReport> report = stepper.wait();
  ASSERT_TRUE(report);
  EXPECT_EQ(report->tag, 1);
  EXPECT_TRUE(report->abandoned);
  EXPECT_FALSE(report->after_steps_ran) << "after_steps ran on an abandoned job";
  EXPECT_FALSE(stepper.busy()) << "the dropped job left a report to wait for";
  EXPECT_FALSE(stepper.queue(job(3)));
  usleep(20000);
  EXPECT_EQ(gate->abandoned, 1);
  EXPECT_EQ(gate->steps, 0);
  EXPECT_EQ(after_ran, 0);
  EXPECT_EQ(simulation.time(), t0);
}

TEST_F(Stepping, AQueuedJobThatHasNotStartedCanBeDropped) {
  ASSERT_TRUE(start_held());
  ASSERT_TRUE(stepper.queue(job(2)));
  EXPECT_TRUE(stepper.unqueue());
  EXPECT_FALSE(stepper.unqueue()) << "nothing is queued any more";
  gate->open = true;
  std::optional<StepReport> report = stepper.wait();
  ASSERT_TRUE(report);
  EXPECT_EQ(report->tag, 1);
  EXPECT_FALSE(stepper.busy()) << "the dropped job left a report to wait for";
  usleep(20000);
  EXPECT_EQ(gate->steps, 1) << "the dropped job ran";
  EXPECT_EQ(after_ran, 1);
}

}  // namespace
}  // namespace nbl
