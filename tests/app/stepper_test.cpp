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

Settings held_settings() {
  Settings s;
  s.scene = Scene::galaxy;
  s.body_count = 256;
  s.backend = BackendKind::cpu;
  return s;
}

Simulation held_simulation(std::shared_ptr<testing::StepGate> gate) {
  return Simulation(held_settings(), "",
                    [gate](const Settings&) { return std::make_unique<testing::HeldBackend>(gate); });
}

template <class Done>
bool within_seconds(double seconds, Done done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!done() && std::chrono::steady_clock::now() < end) usleep(1000);
  return done();
}

StepJob job(int tag, std::atomic<int>* after_ran, std::atomic<double>* after_time) {
  StepJob j;
  j.tag = tag;
  j.after_steps = [after_ran, after_time](Simulation& simulation) {
    after_time->store(simulation.time());
    ++*after_ran;
  };
  return j;
}

TEST(Stepper, AQueuedJobStartsTheMomentTheRunningOneEndsAndReportsComeInOrder) {
  auto gate = std::make_shared<testing::StepGate>();
  Simulation simulation = held_simulation(gate);
  Stepper stepper;
  stepper.attach(simulation, 8);
  std::atomic<int> after_ran{0};
  std::atomic<double> after_time{-1};
  EXPECT_FALSE(stepper.queue(job(1, &after_ran, &after_time))) << "nothing runs: a queued job would wait forever";
  stepper.start(simulation, job(1, &after_ran, &after_time));
  ASSERT_TRUE(within_seconds(5, [&] { return gate->waiting == 1; }));
  EXPECT_TRUE(stepper.queue(job(2, &after_ran, &after_time)));
  EXPECT_TRUE(stepper.queued());
  EXPECT_FALSE(stepper.queue(job(3, &after_ran, &after_time))) << "one job waits at most";
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

TEST(Stepper, AbandoningARunningJobDropsTheOneQueuedBehindIt) {
  auto gate = std::make_shared<testing::StepGate>();
  Simulation simulation = held_simulation(gate);
  const double t0 = simulation.time();
  Stepper stepper;
  stepper.attach(simulation, 8);
  std::atomic<int> after_ran{0};
  std::atomic<double> after_time{-1};
  stepper.start(simulation, job(1, &after_ran, &after_time));
  ASSERT_TRUE(within_seconds(5, [&] { return gate->waiting == 1; }));
  ASSERT_TRUE(stepper.queue(job(2, &after_ran, &after_time)));
  stepper.abandon();
  EXPECT_FALSE(stepper.queued());
  std::optional<StepReport> report = stepper.wait();
  ASSERT_TRUE(report);
  EXPECT_EQ(report->tag, 1);
  EXPECT_TRUE(report->abandoned);
  EXPECT_FALSE(report->after_steps_ran) << "after_steps ran on an abandoned job";
  EXPECT_FALSE(stepper.busy()) << "the dropped job left a report to wait for";
  EXPECT_FALSE(stepper.queue(job(3, &after_ran, &after_time)));
  usleep(20000);
  EXPECT_EQ(gate->abandoned, 1);
  EXPECT_EQ(gate->steps, 0);
  EXPECT_EQ(after_ran, 0);
  EXPECT_EQ(simulation.time(), t0);
}

TEST(Stepper, AQueuedJobThatHasNotStartedCanBeDropped) {
  auto gate = std::make_shared<testing::StepGate>();
  Simulation simulation = held_simulation(gate);
  Stepper stepper;
  stepper.attach(simulation, 8);
  std::atomic<int> after_ran{0};
  std::atomic<double> after_time{-1};
  stepper.start(simulation, job(1, &after_ran, &after_time));
  ASSERT_TRUE(within_seconds(5, [&] { return gate->waiting == 1; }));
  ASSERT_TRUE(stepper.queue(job(2, &after_ran, &after_time)));
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
