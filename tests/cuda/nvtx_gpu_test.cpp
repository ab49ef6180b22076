// On a GPU: the ranges a profiler sees around one step of each GPU backend are exactly the stages the
// step reports (and the panel shows), in the order they run. Skips without a GPU.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cuda/device.hpp"
#include "cuda/gpu_backends.hpp"
#include "nvtx_capture.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

TEST(NvtxGpu, EveryStageOfAStepIsARangeOfTheSameName) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  ASSERT_TRUE(testing::nvtx_capture_attached());
  const Bodies bodies = make_scene(Scene::plummer, 16384, 5);
  for (Algorithm algorithm : {Algorithm::allpairs, Algorithm::barneshut}) {
    Settings settings;
    settings.algorithm = algorithm;
    settings.backend = BackendKind::gpu;
    settings.dt = 1e-3;
    settings.softening = 1e-2;
    auto backend = algorithm == Algorithm::allpairs ? make_gpu_allpairs(settings) : make_gpu_barneshut(settings);
    backend->configure(settings);
    backend->set_bodies(bodies);
    backend->step();  // the first step also computes the starting forces
    testing::clear_nvtx_events();
    const StepStats stats = backend->step();
    const auto events = testing::nvtx_events();
    const auto me = std::this_thread::get_id();
    const auto pushed = testing::pushed_on(events, me);
    std::set<std::string> ranges(pushed.begin(), pushed.end()), stages;
    for (const StageTime& s : stats.stages) stages.insert(s.name);
    EXPECT_EQ(ranges, stages) << backend->name();
    EXPECT_TRUE(testing::balanced_on(events, me));
    ASSERT_FALSE(pushed.empty());
    EXPECT_EQ(pushed.front(), "integrate") << "the step opens with the first half kick and the drift";
  }
}

}  // namespace
}  // namespace nbl
