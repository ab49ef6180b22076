// NaN or inf in the very first step of a fresh GPU Barnes-Hut pipeline (issue 14): the bounding box
// raises the flag, and every later kernel of both builds and every walk must leave without touching
// what the step never wrote (fresh allocations hold garbage: sorted ids, radix nodes, cell counts).
// The acceleration buffer is poisoned with NaN before the force pass, so a kernel that ran anyway and
// wrote finite numbers, or one that left NaN where a result was expected, shows. Small and
// deterministic, so that it runs under compute-sanitizer memcheck and racecheck (scripts/gpu-suite.sh):
// an out-of-bounds read there is an error even when the test itself passes. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "cuda/barneshut_backend.hpp"
#include "cuda/barneshut_buffers.hpp"
#include "cuda/barneshut_pipeline.hpp"
#include "cuda/barneshut_variant.hpp"
#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/device_bodies.hpp"
#include "cuda/kernel_engine.hpp"
#include "cuda/reloadable_kernels.hpp"
#include "sim/error.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

class BarnesHutNan : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    const auto found = query_device(&why);
    if (!found) GTEST_SKIP() << "no GPU: " << why;
    device_ = *found;
    NBL_CUDA_CHECK(cudaSetDevice(device_.index));
  }
  DeviceInfo device_;
};

int build_index(const std::string& build) {
  return build == "morton" ? Choice{"bh_build", "morton"}.value : Choice{"bh_build", "insertion"}.value;
}

ToggleValues toggles_for(const char* build, int traversal) {
  ToggleValues t;
  t["bh_build"] = build_index(build);
  t["bh_traversal"] = traversal;
  return t;
}

constexpr std::size_t kBodies = 300;  // more than one leaf, radix node and force group; quick under memcheck

Bodies bodies_with(float bad, std::size_t where) {
  Bodies b = make_scene(Scene::plummer, kBodies, 11);
  b.x[where] = bad;
  return b;
}

// One force pass of a fresh pipeline on fresh buffers (nothing written before), accelerations poisoned.
struct FirstPass {
  StepStats stats;
  bh::Control control{};
  std::vector<float4> acc;
};

FirstPass first_pass(const BarnesHutVariant& v, const DeviceInfo& device, const Bodies& bodies) {
  auto engine = shared_kernel_engine();
  ReloadableKernels kernels(*engine, barneshut_sources(v));
  BarnesHutPipeline pipeline(v, kernels.modules(), device);
  CudaStream stream;
  BarnesHutBuffers buffers;
  buffers.allocate(bodies.size(), v, BarnesHutBuffers::initial_cells(bodies.size()), device.sm_count);
  upload_float4_bodies(bodies, buffers.positions(), buffers.velocities(), stream.get());
  NBL_CUDA_CHECK(cudaMemsetAsync(buffers.accelerations(), 0xff, bodies.size() * sizeof(float4), stream.get()));
  FirstPass out;
  const BarnesHutPhysics physics{1e-3f, 1e-4f, 0.5f};
  pipeline.forces(buffers, physics, stream.get(), nullptr, out.stats, /*then_kick=*/true);
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
  NBL_CUDA_CHECK(cudaGetLastError());  // a kernel that faulted shows here (and in memcheck's log)
  out.control = buffers.read_control(stream.get());
  out.acc.resize(bodies.size());
  NBL_CUDA_CHECK(cudaMemcpy(out.acc.data(), buffers.accelerations(), out.acc.size() * sizeof(float4),
                            cudaMemcpyDeviceToHost));
  return out;
}

bool poisoned(const float4& a) {
  std::uint32_t bits[4];
  std::memcpy(bits, &a, sizeof bits);
  return bits[0] == 0xffffffffu && bits[1] == 0xffffffffu && bits[2] == 0xffffffffu && bits[3] == 0xffffffffu;
}

TEST_F(BarnesHutNan, NanInTheFirstStepIsFlaggedAndNoKernelAfterTheBoundingBoxRuns) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (const char* build : {"morton", "insertion"}) {
    for (int traversal = 0; traversal < 3; ++traversal) {
      const BarnesHutVariant v = barneshut_variant(toggles_for(build, traversal), true);
      for (float bad : {nan, inf}) {
        for (std::size_t where : {std::size_t{0}, kBodies - 1}) {
          SCOPED_TRACE(v.label + ", " + std::to_string(bad) + " at body " + std::to_string(where));
          const FirstPass pass = first_pass(v, device_, bodies_with(bad, where));
          EXPECT_TRUE(pass.stats.non_finite);
          EXPECT_TRUE(pass.control.error & bh::kErrorNonFinite);
          // Nothing after the bounding box ran: no tree, no interactions, and the poison is untouched
          // (the force kernel wrote nothing, the kick saw the flag).
          EXPECT_EQ(pass.control.interactions, 0u);
          EXPECT_EQ(pass.control.touched_sum, 0u);
          EXPECT_EQ(pass.control.child_slots_used, 0u);
          EXPECT_EQ(pass.control.groups, 0);
          EXPECT_FALSE(pass.stats.has_tree);
          for (std::size_t i = 0; i < pass.acc.size(); ++i) ASSERT_TRUE(poisoned(pass.acc[i])) << "body " << i;
        }
      }
    }
  }
}

TEST_F(BarnesHutNan, TheSameBuffersRecoverOnceTheStateIsFinite) {
  // The poison check above must be able to fail: a clean pass overwrites every acceleration.
  for (const char* build : {"morton", "insertion"}) {
    const BarnesHutVariant v = barneshut_variant(toggles_for(build, 2), true);
    const FirstPass pass = first_pass(v, device_, make_scene(Scene::plummer, kBodies, 11));
    EXPECT_FALSE(pass.stats.non_finite) << v.label;
    EXPECT_GT(pass.control.interactions, 0u) << v.label;
    for (std::size_t i = 0; i < pass.acc.size(); ++i)
      ASSERT_TRUE(std::isfinite(pass.acc[i].x) && std::isfinite(pass.acc[i].y) && std::isfinite(pass.acc[i].z))
          << v.label << ", body " << i;
  }
}

TEST_F(BarnesHutNan, AFreshBackendReportsItAndHandsOutNoAccelerations) {
  for (const char* build : {"morton", "insertion"}) {
    Settings s;
    s.algorithm = Algorithm::barneshut;
    s.backend = BackendKind::gpu;
    s.softening = 0.01;
    s.dt = 1e-3;
    s.toggles["bh_build"] = build_index(build);
    BarnesHutBackend backend(s);
    backend.set_bodies(bodies_with(std::numeric_limits<float>::quiet_NaN(), 0));
    EXPECT_TRUE(backend.step().non_finite) << build;
    Accelerations a;
    EXPECT_THROW(backend.compute_accelerations(a), Error) << build;  // NaN never passes as a result
    // The overlay and the vertices read the tree order and the tree: neither may fault.
    EXPECT_TRUE(backend.tree_cells(4).size() < 1000000);
    std::vector<unsigned char> vertices(kBodies * 32);
    for (ColorMode mode : {ColorMode::body_index, ColorMode::warp_id})
      backend.write_vertices(VertexTarget{vertices.data(), false}, mode);
    NBL_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace
}  // namespace nbl
