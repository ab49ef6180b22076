// CUDA-OpenGL interop on a real GPU (label gpu; skips without one): the vertex buffer the GPU backend
// writes in place through interop holds exactly what the host-copy path uploads for the same state.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "app/simulation.hpp"
#include "cuda/device.hpp"
#include "render/body_vertices.hpp"
#include "render/egl_context.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {
namespace {

std::vector<float> whole_buffer(const BodyVertices& v) {
  std::vector<float> data(vertex_buffer_bytes(v.count()) / sizeof(float));
  glGetNamedBufferSubData(v.buffer(), 0, static_cast<GLsizeiptr>(vertex_buffer_bytes(v.count())), data.data());
  return data;
}

class Interop : public ::testing::TestWithParam<Algorithm> {};

TEST_P(Interop, WritesTheSameVerticesAsTheHostCopy) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  EglContext context;
  std::printf("%s\n", context.description().c_str());
  Settings s;
  s.scene = Scene::collision;
  s.body_count = 65536;
  s.backend = BackendKind::gpu;
  s.algorithm = GetParam();
  Simulation sim(s);
  sim.step();
  sim.step();
  for (ColorMode mode : {ColorMode::speed, ColorMode::body_index}) {
    BodyVertices interop(true), host(false);
    interop.update(sim.backend(), mode);
    host.update(sim.backend(), mode);
    ASSERT_EQ(interop.path(), VertexPath::interop) << "interop unavailable: " << interop.interop_unavailable_reason()
                                                   << " (" << context.description() << ")";
    ASSERT_EQ(host.path(), VertexPath::host_copy);
    const auto a = whole_buffer(interop), b = whole_buffer(host);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "interop and host copy differ";
    // And both hold the simulation's bodies (in whatever order the backend keeps them: tree order).
    const Bodies bodies = sim.bodies();
    std::vector<std::array<float, 4>> drawn(bodies.size()), state(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      drawn[i] = {a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]};
      state[i] = {bodies.x[i], bodies.y[i], bodies.z[i], bodies.mass[i]};
    }
    std::sort(drawn.begin(), drawn.end());
    std::sort(state.begin(), state.end());
    EXPECT_TRUE(drawn == state) << "the vertex buffer does not hold the simulation's positions and masses";
  }
}

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, Interop, ::testing::Values(Algorithm::allpairs, Algorithm::barneshut),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace nbl
