// Linked into every test binary of the GPU side (tests/CMakeLists.txt, nbl_add_test). app/main.cpp
// holds a BackgroundWork (cuda/background_work.hpp) so that no build, prefetch or retirement on the
// shared build queue outlives main(); gtest_main holds none. Without this, cuda_barneshut_gpu_test
// crashed at exit (signal 11) after every test had passed, whenever the asynchronous-switch test, whose
// switch prefetches neighbouring variants, ran after one of several other tests (H200, 2026-11-25:
// each test alone and nine of sixteen pairs exited cleanly). The tests are done when this runs.
#include <gtest/gtest.h>

#include "cuda/background_work.hpp"

namespace {

class StopBackgroundWork : public ::testing::Environment {
 public:
  void TearDown() override { nbl::stop_background_work(); }
};

[[maybe_unused]] ::testing::Environment* const kStopAtTheEnd =
    ::testing::AddGlobalTestEnvironment(new StopBackgroundWork);

}  // namespace
