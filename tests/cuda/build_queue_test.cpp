// The build queue and one owner's builds, with a fake compiler (no NVRTC, no GPU): requests coalesce,
// stale ones are dropped or ignored, a refusal is reported and leaves what runs, and prefetching never
// holds up a request.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "cuda/async_builds.hpp"
#include "cuda/build_queue.hpp"
#include "sim/toggles.hpp"

namespace nbl {
namespace {

using namespace std::chrono_literals;

// A gate the fake compiler waits at, so a test decides when a "compile" ends.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mutex_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    --waiting_;
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  bool wait_for_waiters(int n) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 10s, [&] { return waiting_ >= n; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int waiting_ = 0;
  bool open_ = false;
};

struct FakeBuild {
  int value;
};

// Polls until the owner's newest build finished (a test must never hang: 10 s at most).
template <class T>
std::optional<typename AsyncBuilds<T>::Finished> wait_finished(AsyncBuilds<T>& builds) {
  for (int i = 0; i < 1000; ++i) {
    if (auto f = builds.take_finished()) return f;
    std::this_thread::sleep_for(10ms);
  }
  return std::nullopt;
}

TEST(BuildQueue, AWaitingRequestIsReplacedByTheNewerOneOfTheSameOwner) {
  BuildQueue queue(1);
  Gate gate;
  std::atomic<int> ran{0}, last{0};
  auto first = std::make_shared<BuildTicket>("first");
  queue.request(&queue, first, [&] { gate.wait(); ++ran; });  // occupies the only request worker
  ASSERT_TRUE(gate.wait_for_waiters(1));
  std::vector<std::shared_ptr<BuildTicket>> tickets;
  for (int v = 1; v <= 5; ++v) {  // a slider dragged through five values
    tickets.push_back(std::make_shared<BuildTicket>("value " + std::to_string(v)));
    queue.request(&queue, tickets.back(), [&, v] { ++ran; last = v; });
  }
  EXPECT_EQ(queue.waiting_requests(), 1u);
  for (int v = 0; v < 4; ++v) EXPECT_EQ(tickets[v]->state(), BuildState::superseded);
  gate.open();
  queue.wait_idle();
  EXPECT_EQ(ran.load(), 2);  // the one running, and the value the slider settled on
  EXPECT_EQ(last.load(), 5);
}

TEST(BuildQueue, PrefetchNeverHoldsUpARequest) {
  BuildQueue queue(1);
  Gate prefetch_gate;
  std::atomic<int> prefetched{0};
  for (int i = 0; i < 20; ++i) queue.prefetch([&] { prefetch_gate.wait(); ++prefetched; });
  ASSERT_TRUE(prefetch_gate.wait_for_waiters(1));  // the prefetch worker is busy, 19 more wait
  std::atomic<bool> done{false};
  queue.request(&queue, std::make_shared<BuildTicket>("click"), [&] { done = true; });
  queue.wait_idle();  // returns although every prefetch is still stuck
  EXPECT_TRUE(done);
  EXPECT_EQ(prefetched.load(), 0);
  EXPECT_GE(queue.waiting_prefetch(), 18u);
  queue.clear_prefetch();
  EXPECT_EQ(queue.waiting_prefetch(), 0u);
  prefetch_gate.open();
}

TEST(AsyncBuilds, TheNewestRequestWinsAndAStaleResultIsIgnored) {
  BuildQueue queue(2);
  AsyncBuilds<FakeBuild> builds(queue);
  Gate slow;
  builds.request("slow", [&](BuildTicket& t) {
    t.set(BuildState::checking);
    slow.wait();
    return std::make_unique<FakeBuild>(FakeBuild{1});
  });
  ASSERT_TRUE(slow.wait_for_waiters(1));
  builds.request("fast", [](BuildTicket&) { return std::make_unique<FakeBuild>(FakeBuild{2}); });
  auto finished = wait_finished(builds);
  ASSERT_TRUE(finished);
  ASSERT_TRUE(finished->build);
  EXPECT_EQ(finished->build->value, 2);
  EXPECT_EQ(finished->label, "fast");
  slow.open();  // the stale build ends after the newer one: nothing more comes out
  queue.wait_idle();
  EXPECT_FALSE(builds.take_finished());
  EXPECT_FALSE(builds.busy());
}

TEST(AsyncBuilds, ARefusalIsReportedOnceAndLeavesWhatRuns) {
  BuildQueue queue(1);
  AsyncBuilds<FakeBuild> builds(queue);
  int running = 7;  // the owner's running "variant"
  builds.request("wrong forces", [](BuildTicket&) -> std::unique_ptr<FakeBuild> {
    throw BuildRefused("force error p99 3.1e-01 on the check problem; refused");
  });
  auto finished = wait_finished(builds);
  ASSERT_TRUE(finished);
  EXPECT_FALSE(finished->build);
  EXPECT_NE(finished->refusal.find("refused"), std::string::npos);
  if (finished->build) running = finished->build->value;  // what an owner does: swap only a build
  EXPECT_EQ(running, 7);
  EXPECT_FALSE(builds.take_finished());  // reported once
  const auto progress = builds.progress();
  ASSERT_EQ(progress.size(), 1u);  // the refusal stays in view
  EXPECT_EQ(progress[0].state, BuildState::refused);
}

TEST(AsyncBuilds, CancelDropsTheRequestInFlight) {
  BuildQueue queue(1);
  AsyncBuilds<FakeBuild> builds(queue);
  Gate gate;
  builds.request("going back", [&](BuildTicket&) {
    gate.wait();
    return std::make_unique<FakeBuild>(FakeBuild{3});
  });
  ASSERT_TRUE(gate.wait_for_waiters(1));
  builds.cancel();  // the user switched back to what runs
  EXPECT_FALSE(builds.busy());
  gate.open();
  queue.wait_idle();
  EXPECT_FALSE(builds.take_finished());
}

TEST(ToggleNeighbours, AreOneClickAwayAndInRange) {
  const ToggleValues t;
  const auto near = toggle_neighbours(t, Algorithm::allpairs);
  EXPECT_FALSE(near.empty());
  for (const ToggleValues& n : near) {
    int differing = 0;
    for (std::size_t i = 0; i < kToggleCount; ++i) {
      if (n.values[i] == t.values[i]) continue;
      ++differing;
      const ToggleDef& def = kToggles[i];
      EXPECT_EQ(def.algorithm, Algorithm::allpairs);
      EXPECT_GE(n.values[i], def.min_value);
      EXPECT_LE(n.values[i], def.max_value);
      if (def.kind == ToggleKind::integer) EXPECT_EQ(std::abs(n.values[i] - t.values[i]), def.step) << def.key;
    }
    EXPECT_EQ(differing, 1);
  }
  ToggleValues unroll;
  unroll["unroll"] = 32;
  int found = 0;
  for (const ToggleValues& n : toggle_neighbours(unroll, Algorithm::allpairs)) found += n["unroll"] == 31 || n["unroll"] == 33;
  EXPECT_EQ(found, 2);
}

}  // namespace
}  // namespace nbl
