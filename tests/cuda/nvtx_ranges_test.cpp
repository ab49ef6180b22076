// The NVTX ranges a profiler sees (Nsight Systems, ncu's NVTX filters), caught by a stand-in profiler
// (nvtx_capture): every step stage opens a range named as the panel names the stage (one table,
// sim/stage_names.hpp, which the CPU backends' figures use too), and every kernel build opens one per
// phase named as the panel's build line names it, closed on the worker that opened it, also when the
// build is superseded. No GPU needed; the GPU backends' own ranges are checked in cuda_nvtx_gpu_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

#include "cuda/engine/async_builds.hpp"
#include "cuda/engine/build_queue.hpp"
#include "cuda/stage_timer.hpp"
#include "nvtx_capture.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

using namespace std::chrono_literals;
using testing::NvtxEvent;

class NvtxRanges : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(testing::nvtx_capture_attached()) << "another NVTX tool is injected (NVTX_INJECTION64_PATH?)";
    testing::clear_nvtx_events();
  }
};

// Which thread ran a build: the worker, not the test.
struct Worker {
  std::mutex mutex;
  std::condition_variable done;
  std::thread::id id;
  bool finished = false;
  void here() {
    std::lock_guard lock(mutex);
    id = std::this_thread::get_id();
  }
  void finish() {
    std::lock_guard lock(mutex);
    finished = true;
    done.notify_all();
  }
  bool wait() {
    std::unique_lock lock(mutex);
    return done.wait_for(lock, 10s, [this] { return finished; });
  }
};

struct FakeBuild {
  int value = 0;
};

TEST_F(NvtxRanges, EveryStageRangeCarriesTheStageName) {
  int ran = 0;
  for (std::size_t s = 0; s < kStageNames.size(); ++s) run_stage(nullptr, static_cast<Stage>(s), [&] { ++ran; });
  EXPECT_EQ(ran, static_cast<int>(kStageNames.size()));
  const auto events = testing::nvtx_events();
  const auto me = std::this_thread::get_id();
  EXPECT_EQ(testing::pushed_on(events, me), std::vector<std::string>(kStageNames.begin(), kStageNames.end()));
  EXPECT_TRUE(testing::balanced_on(events, me));
}

TEST_F(NvtxRanges, AStageRangeClosesWhenItsLaunchThrows) {
  EXPECT_THROW(run_stage(nullptr, Stage::force, [] { throw Error("launch failed"); }), Error);
  const auto events = testing::nvtx_events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "force");
  EXPECT_FALSE(events[1].push);
}

TEST_F(NvtxRanges, StageNamesAreDistinctAndTheCpuBackendsUseThem) {
  const std::set<std::string> names(kStageNames.begin(), kStageNames.end());
  EXPECT_EQ(names.size(), kStageNames.size());
  Settings settings;
  const Bodies bodies = make_scene(Scene::plummer, 512, 3);
  for (Algorithm algorithm : {Algorithm::allpairs, Algorithm::barneshut}) {
    settings.algorithm = algorithm;
    settings.dt = 1e-3;
    settings.softening = 1e-2;
    auto backend = algorithm == Algorithm::allpairs ? make_cpu_allpairs(settings) : make_cpu_barneshut(settings);
    backend->configure(settings);
    backend->set_bodies(bodies);
    const StepStats stats = backend->step();
    ASSERT_FALSE(stats.stages.empty());
    for (const StageTime& stage : stats.stages)
      EXPECT_TRUE(names.count(stage.name)) << stage.name << " is not in kStageNames";
  }
}

TEST_F(NvtxRanges, ABuildOpensARangePerPhaseNamedAsThePanelShowsIt) {
  BuildQueue queue(1);
  AsyncBuilds<FakeBuild> builds(queue);
  Worker worker;
  builds.request("unroll=8", [&](BuildTicket& ticket) {
    worker.here();
    ticket.set(BuildState::checking);  // as the backends' builds do between compile and check
    return std::make_unique<FakeBuild>();
  });
  queue.wait_idle();
  const auto events = testing::nvtx_events();
  EXPECT_EQ(testing::pushed_on(events, worker.id),
            (std::vector<std::string>{build_phase_name("unroll=8", BuildState::compiling),
                                      build_phase_name("unroll=8", BuildState::checking)}));
  EXPECT_EQ(build_phase_name("unroll=8", BuildState::checking), "unroll=8: checking");
  EXPECT_TRUE(testing::balanced_on(events, worker.id));
  EXPECT_TRUE(testing::pushed_on(events, std::this_thread::get_id()).empty()) << "ranges belong to the worker";
}

TEST_F(NvtxRanges, ACancelledBuildClosesItsRangeWhenItReturns) {
  BuildQueue queue(1);
  AsyncBuilds<FakeBuild> builds(queue);
  Worker worker;
  std::mutex gate_mutex;
  std::condition_variable gate;
  bool open = false, waiting = false;
  builds.request("slow", [&](BuildTicket& ticket) {
    worker.here();
    ticket.set(BuildState::checking);
    std::unique_lock lock(gate_mutex);
    waiting = true;
    gate.notify_all();
    gate.wait(lock, [&] { return open; });
    return std::make_unique<FakeBuild>();
  });
  {
    std::unique_lock lock(gate_mutex);
    ASSERT_TRUE(gate.wait_for(lock, 10s, [&] { return waiting; }));
  }
  builds.cancel();  // the user went back to what runs: the build returns without a final state
  {
    std::lock_guard lock(gate_mutex);
    open = true;
    gate.notify_all();
  }
  queue.wait_idle();
  const auto events = testing::nvtx_events();
  EXPECT_EQ(testing::pushed_on(events, worker.id), (std::vector<std::string>{"slow: compiling", "slow: checking"}));
  EXPECT_TRUE(testing::balanced_on(events, worker.id));
}

TEST_F(NvtxRanges, ARefusedBuildClosesItsRange) {
  BuildQueue queue(1);
  AsyncBuilds<FakeBuild> builds(queue);
  Worker worker;
  builds.request("wrong forces", [&](BuildTicket& ticket) -> std::unique_ptr<FakeBuild> {
    worker.here();
    ticket.set(BuildState::checking);
    throw BuildRefused("force error p99 3e-1");
  });
  queue.wait_idle();
  const auto events = testing::nvtx_events();
  EXPECT_EQ(testing::pushed_on(events, worker.id),
            (std::vector<std::string>{"wrong forces: compiling", "wrong forces: checking"}));
  EXPECT_TRUE(testing::balanced_on(events, worker.id));
}

TEST_F(NvtxRanges, APrefetchCompileHasItsOwnRange) {
  BuildQueue queue(1);
  Worker worker;
  queue.prefetch([&] {
    worker.here();
    worker.finish();
  });
  ASSERT_TRUE(worker.wait());
  for (int i = 0; i < 1000 && testing::nvtx_events().size() < 2; ++i)
    std::this_thread::sleep_for(1ms);  // the pop follows
  const auto events = testing::nvtx_events();
  EXPECT_EQ(testing::pushed_on(events, worker.id), std::vector<std::string>{"prefetch: compiling"});
  EXPECT_TRUE(testing::balanced_on(events, worker.id));
}

}  // namespace
}  // namespace nbl
