// The build queue and one owner's builds, with a fake compiler (no NVRTC, no GPU): requests coalesce,
// stale ones are dropped or ignored, a refusal is reported and leaves what runs, and prefetching never
// holds up a request. Old builds are released on the queue's teardown worker, never on the caller's
// thread; shutdown finishes what runs and every release, joins every worker, and is what lets the
// process exit while a compile is still in flight (the scripted tour's crash after its last step).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/engine/async_builds.hpp"
#include "cuda/background_work.hpp"
#include "cuda/comparison.hpp"
#include "cuda/engine/build_queue.hpp"
#include "cuda/engine/variant_builds.hpp"
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

// Records the thread that destroys it (and in which order), as an old build's modules would be unloaded.
struct ReleaseProbe {
  struct Log {
    std::mutex mutex;
    std::vector<std::pair<int, std::thread::id>> released;  // (id, thread)
  };
  std::shared_ptr<Log> log;
  int id = 0;
  ReleaseProbe(std::shared_ptr<Log> l, int i) : log(std::move(l)), id(i) {}
  ReleaseProbe(const ReleaseProbe&) = delete;
  ~ReleaseProbe() {
    std::lock_guard lock(log->mutex);
    log->released.emplace_back(id, std::this_thread::get_id());
  }
};

struct ProbedBuild {
  std::unique_ptr<ReleaseProbe> probe;
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
  queue.request(&queue, first, [&] {
    gate.wait();
    ++ran;
  });  // occupies the only request worker
  ASSERT_TRUE(gate.wait_for_waiters(1));
  std::vector<std::shared_ptr<BuildTicket>> tickets;
  for (int v = 1; v <= 5; ++v) {  // a slider dragged through five values
    tickets.push_back(std::make_shared<BuildTicket>("value " + std::to_string(v)));
    queue.request(&queue, tickets.back(), [&, v] {
      ++ran;
      last = v;
    });
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
  for (int i = 0; i < 20; ++i)
    queue.prefetch([&] {
      prefetch_gate.wait();
      ++prefetched;
    });
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

TEST(BuildQueue, RetiredWorkIsReleasedInOrderOnTheTeardownWorker) {
  BuildQueue queue(1);
  auto log = std::make_shared<ReleaseProbe::Log>();
  for (int i = 0; i < 3; ++i) queue.retire([probe = std::make_shared<ReleaseProbe>(log, i)] {});
  queue.wait_retired();
  EXPECT_EQ(queue.waiting_retirements(), 0u);
  ASSERT_EQ(log->released.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(log->released[i].first, i);
    EXPECT_NE(log->released[i].second, std::this_thread::get_id()) << "released on the caller's thread";
  }
}

TEST(BuildQueue, APrefetchQueuedBehindARequestStartsOnceTheRequestRuns) {
  // "No request waits" becomes true when a worker takes the last one: the prefetch worker must hear of
  // it then, not at the next request or prefetch, which may never come.
  Gate request_gate, prefetch_gate;
  BuildQueue queue(1);
  queue.request(&queue, std::make_shared<BuildTicket>("click"), [&] { request_gate.wait(); });
  queue.prefetch([&] { prefetch_gate.wait(); });  // queued while the request may still be waiting
  ASSERT_TRUE(request_gate.wait_for_waiters(1));
  EXPECT_TRUE(prefetch_gate.wait_for_waiters(1));
  request_gate.open();
  prefetch_gate.open();
}

TEST(BuildQueue, ATeardownWaitsNeitherForARequestNorForPrefetching) {
  Gate request_gate, prefetch_gate;  // before the queue: they outlive its workers
  BuildQueue queue(1);
  queue.request(&queue, std::make_shared<BuildTicket>("long compile"), [&] { request_gate.wait(); });
  queue.prefetch([&] { prefetch_gate.wait(); });
  ASSERT_TRUE(request_gate.wait_for_waiters(1));
  ASSERT_TRUE(prefetch_gate.wait_for_waiters(1));
  std::atomic<bool> released{false};
  queue.retire([&] { released = true; });
  queue.wait_retired();  // returns although both other workers are stuck
  EXPECT_TRUE(released);
  request_gate.open();
  prefetch_gate.open();
}

TEST(BuildQueue, ShutdownFinishesWhatRunsReleasesEverythingAndDropsTheRest) {
  Gate request_gate, prefetch_gate, teardown_gate;
  BuildQueue queue(1);
  std::atomic<int> order{0};
  std::atomic<int> request_done_at{-1}, shutdown_done_at{-1};
  std::atomic<bool> waiting_request_ran{false}, waiting_prefetch_ran{false};
  auto running = std::make_shared<BuildTicket>("running");
  auto waiting = std::make_shared<BuildTicket>("waiting");
  queue.request(&queue, running, [&] {
    request_gate.wait();
    request_done_at = order++;
  });
  ASSERT_TRUE(request_gate.wait_for_waiters(1));
  queue.prefetch([&] { prefetch_gate.wait(); });  // starts: no request waits yet
  ASSERT_TRUE(prefetch_gate.wait_for_waiters(1));
  queue.prefetch([&] { waiting_prefetch_ran = true; });
  queue.request(&order, waiting, [&] { waiting_request_ran = true; });  // another owner's: it waits behind
  auto log = std::make_shared<ReleaseProbe::Log>();
  queue.retire([&, probe = std::make_shared<ReleaseProbe>(log, 0)] { teardown_gate.wait(); });
  ASSERT_TRUE(teardown_gate.wait_for_waiters(1));
  for (int i = 1; i <= 2; ++i) queue.retire([probe = std::make_shared<ReleaseProbe>(log, i)] {});

  std::thread stopper([&] {
    queue.shutdown();
    shutdown_done_at = order++;
  });
  while (!queue.stopped()) std::this_thread::yield();
  EXPECT_EQ(waiting->state(), BuildState::superseded);
  request_gate.open();
  prefetch_gate.open();
  teardown_gate.open();
  stopper.join();

  EXPECT_LT(request_done_at.load(), shutdown_done_at.load()) << "shutdown returned before the running build finished";
  EXPECT_FALSE(waiting_request_ran);
  EXPECT_FALSE(waiting_prefetch_ran);
  ASSERT_EQ(log->released.size(), 3u) << "every retirement is released before shutdown returns";
  for (const auto& [id, thread] : log->released) EXPECT_NE(thread, std::this_thread::get_id());

  // Stopped: a request is superseded at once, a prefetch dropped, a retirement released right here.
  auto late = std::make_shared<BuildTicket>("late");
  std::atomic<bool> late_ran{false};
  queue.request(&queue, late, [&] { late_ran = true; });
  queue.prefetch([&] { late_ran = true; });
  EXPECT_EQ(late->state(), BuildState::superseded);
  queue.retire([probe = std::make_shared<ReleaseProbe>(log, 3)] {});
  ASSERT_EQ(log->released.size(), 4u);
  EXPECT_EQ(log->released[3].second, std::this_thread::get_id());
  queue.shutdown();  // idempotent
  EXPECT_FALSE(late_ran);
}

TEST(AsyncBuilds, AFinishedBuildNobodyTookIsReleasedOnTheTeardownWorker) {
  BuildQueue queue(1);
  auto log = std::make_shared<ReleaseProbe::Log>();
  {
    AsyncBuilds<ProbedBuild> builds(queue);
    builds.request("finished, never taken", [&](BuildTicket&) {
      auto b = std::make_unique<ProbedBuild>();
      b->probe = std::make_unique<ReleaseProbe>(log, 1);
      return b;
    });
    for (int i = 0; i < 1000; ++i) {
      const auto progress = builds.progress();
      if (!progress.empty() && progress.back().state == BuildState::ready) break;
      std::this_thread::sleep_for(10ms);
    }
    builds.cancel();  // the settings went back to what runs before the frame loop took it
  }
  queue.wait_retired();
  ASSERT_EQ(log->released.size(), 1u);
  EXPECT_NE(log->released[0].second, std::this_thread::get_id())
      << "an untaken build was released on the caller's thread";
}

// The process's exit with a compile still running on the shared queue. The worker's job uses a static
// made after the queue (as a compile uses the regexes and caches made at the first build): at exit that
// static is destroyed first, and only then does the queue's own static destructor join the worker.
std::atomic<bool> g_canary_destroyed{false};
struct Canary {
  ~Canary() { g_canary_destroyed = true; }
};
Canary& canary() {
  static Canary c;
  return c;
}

[[noreturn]] void exit_with_a_compile_running(bool stop_background_work_first) {
  BuildQueue& queue = shared_build_queue();
  canary();
  static std::atomic<bool> started{false};
  queue.prefetch([] {
    started = true;
    std::this_thread::sleep_for(300ms);     // NVRTC at work
    if (g_canary_destroyed) std::_Exit(3);  // it would now parse its log with destroyed regexes: signal 11
  });
  while (!started) std::this_thread::sleep_for(1ms);
  if (stop_background_work_first) stop_background_work();  // what main()'s BackgroundWork does
  std::exit(0);
}

TEST(BackgroundWorkDeathTest, WithoutAStopAtTheEndOfMainACompileOutlivesTheStaticsItUses) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_with_a_compile_running(false), ::testing::ExitedWithCode(3), "");
}

TEST(BackgroundWorkDeathTest, StoppingBackgroundWorkBeforeExitFinishesTheCompileFirst) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(exit_with_a_compile_running(true), ::testing::ExitedWithCode(0), "");
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
      if (def.kind == ToggleKind::integer) {
        EXPECT_EQ(std::abs(n.values[i] - t.values[i]), def.step) << def.key;
      }
    }
    EXPECT_EQ(differing, 1);
  }
  ToggleValues unroll;
  unroll["unroll"] = 32;
  int found = 0;
  for (const ToggleValues& n : toggle_neighbours(unroll, Algorithm::allpairs))
    found += n["unroll"] == 31 || n["unroll"] == 33;
  EXPECT_EQ(found, 2);
}

// A backend's own builds: a switch comes back with the settings it was requested with, a hot reload with
// the settings that run, marked as a reload; a refusal carries its reason as the outcome's message.
TEST(VariantBuilds, AFinishedBuildCarriesTheSettingsItWasRequestedWith) {
  BuildQueue queue(1);
  VariantBuilds<FakeBuild> builds(queue);
  auto wait = [&] {
    for (int i = 0; i < 1000; ++i) {
      if (auto f = builds.take_finished()) return f;
      std::this_thread::sleep_for(10ms);
    }
    return std::optional<VariantBuilds<FakeBuild>::Finished>{};
  };
  Settings running, next;
  running.toggles["unroll"] = 8;
  next.toggles["unroll"] = 16;
  builds.set_running(running);
  builds.request(next, "unroll 16", [](BuildTicket&) { return std::make_unique<FakeBuild>(FakeBuild{16}); });
  auto switched = wait();
  ASSERT_TRUE(switched && switched->build);
  EXPECT_TRUE(switched->outcome.accepted);
  EXPECT_EQ(switched->outcome.label, "unroll 16");
  EXPECT_FALSE(switched->reload);
  EXPECT_EQ(switched->settings.toggles["unroll"], 16);

  builds.request_reload("unroll 8", [](BuildTicket&) { return std::make_unique<FakeBuild>(FakeBuild{8}); });
  auto reloaded = wait();
  ASSERT_TRUE(reloaded && reloaded->build);
  EXPECT_TRUE(reloaded->reload);
  EXPECT_EQ(reloaded->outcome.label, "unroll 8 (edited on disk)");
  EXPECT_EQ(reloaded->settings.toggles["unroll"], 8) << "a reload rebuilds what runs";

  builds.request(next, "refused",
                 [](BuildTicket&) -> std::unique_ptr<FakeBuild> { throw BuildRefused("too far off"); });
  auto refused = wait();
  ASSERT_TRUE(refused);
  EXPECT_FALSE(refused->build);
  EXPECT_FALSE(refused->outcome.accepted);
  EXPECT_EQ(refused->outcome.message, "too far off");
  EXPECT_FALSE(refused->reload);
}

// A stand-in for a backend's B (AllPairsComparison, BarnesHutComparison): what it was built from, and
// what it is run with.
struct FakeB {
  int built;
  std::vector<int>* runs;
  ComparisonSample run(int a_state, cudaStream_t) {
    runs->push_back(a_state);
    ComparisonSample sample;
    sample.difference_max = built;
    return sample;
  }
  bool accelerations(Accelerations&, cudaStream_t) const { return true; }
  void write_keys(float*, std::size_t, cudaStream_t) const {}
};

// B is adopted between two steps once its build is done, and compared only while A has forces to
// compare with; until then the slot says it is building. (No B is replaced here: that retires it after
// the GPU stream's work, and there is no GPU in this test.)
TEST(ComparisonSlot, BIsAdoptedWhenItsBuildIsDoneAndComparedOnlyWhenAHasForces) {
  BuildQueue queue(1);
  ComparisonSlot<FakeBuild, FakeB> slot(queue, nullptr);
  std::vector<int> runs;
  Gate gate;
  slot.request(
      "unroll 128",
      [&](BuildTicket&) {
        gate.wait();
        return std::make_unique<FakeBuild>(FakeBuild{128});
      },
      [&](FakeBuild build) {
        return std::make_unique<FakeB>(FakeB{build.value, &runs});
      });
  ASSERT_TRUE(gate.wait_for_waiters(1));
  EXPECT_FALSE(slot.compare(true, 1)) << "B's build is still running";
  EXPECT_FALSE(slot.ready());
  ASSERT_EQ(slot.builds().size(), 1u);
  EXPECT_EQ(slot.builds().back().label, "B: unroll 128");
  Accelerations none;
  EXPECT_FALSE(slot.accelerations(none));
  gate.open();
  queue.wait_idle();
  EXPECT_FALSE(slot.compare(false, 2)) << "A has no forces yet";
  EXPECT_TRUE(slot.ready()) << "but B was adopted";
  const auto sample = slot.compare(true, 3);
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->difference_max, 128);
  EXPECT_EQ(runs, std::vector<int>{3});
  EXPECT_TRUE(slot.accelerations(none));
}

// A refused B says so, with its label and reason, the first time it is asked for a comparison.
TEST(ComparisonSlot, ARefusedBuildIsAnErrorNamingB) {
  BuildQueue queue(1);
  ComparisonSlot<FakeBuild, FakeB> slot(queue, nullptr);
  slot.request(
      "bh_sort=off", [](BuildTicket&) -> std::unique_ptr<FakeBuild> { throw BuildRefused("forces off"); },
      [](FakeBuild) { return std::unique_ptr<FakeB>(); });
  queue.wait_idle();
  try {
    slot.compare(true, 1);
    FAIL() << "a refused B compared";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "B (B: bh_sort=off) is refused: forces off");
  }
  EXPECT_FALSE(slot.ready());
}

}  // namespace
}  // namespace nbl
