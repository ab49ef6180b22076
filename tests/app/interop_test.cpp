// CUDA-OpenGL interop on a real GPU (label gpu; skips without one): the vertex buffer the GPU backend
// writes in place through interop holds exactly what the host-copy path uploads for the same state.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "app/core/simulation.hpp"
#include "cuda/device.hpp"
#include "render/body_sample.hpp"
#include "render/body_vertices.hpp"
#include "render/egl_context.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"
#include "../render/image_compare.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {
namespace {

std::vector<float> whole_buffer(const BodyVertices& v) {
  std::vector<float> data(vertex_buffer_bytes(v.count()) / sizeof(float));
  glGetNamedBufferSubData(v.buffer(), 0, static_cast<GLsizeiptr>(vertex_buffer_bytes(v.count())), data.data());
  return data;
}

class Interop : public ::testing::TestWithParam<Algorithm> {};

// The collision with n bodies on the GPU, with the algorithm the test is run for.
Settings gpu_collision(std::int64_t n) {
  Settings s;
  s.scene = Scene::collision;
  s.body_count = n;
  s.backend = BackendKind::gpu;
  s.algorithm = Interop::GetParam();
  return s;
}

TEST_P(Interop, WritesTheSameVerticesAsTheHostCopy) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  EglContext context;
  std::printf("%s\n", context.description().c_str());
  Simulation sim(gpu_collision(65536));
  sim.step();
  sim.step();
  for (ColorMode mode : {ColorMode::speed, ColorMode::body_index}) {
    BodyVertices interop(true), host(false);
    interop.update(sim.backend(), mode);
    host.update(sim.backend(), mode);
    ASSERT_EQ(interop.path(), VertexPath::interop)
        << "interop unavailable: " << interop.interop_unavailable_reason() << " (" << context.description() << ")";
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

// The lab's run-ahead: vertices the stepping thread writes aside after a step (BodyVertices::stage, on
// the backend's stream) and the display copies in (adopt) are those the backend writes in place, bit
// for bit, in both buffers, also while the next step already runs on the same stream.
TEST_P(Interop, VerticesWrittenAsideAreTheOnesWrittenInPlace) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  EglContext context;
  Simulation sim(gpu_collision(65536));
  BodyVertices staged(true), direct(true);
  staged.update(sim.backend(), ColorMode::speed);
  ASSERT_TRUE(staged.staging(sim.backend())) << staged.interop_unavailable_reason();
  staged.prepare_staging(sim.backend());
  ASSERT_TRUE(staged.staging_ready(sim.backend()));
  for (int slot : {0, 1, 0}) {
    SCOPED_TRACE("slot " + std::to_string(slot));
    sim.step();
    staged.stage(sim.backend(), ColorMode::speed, slot);
    direct.update(sim.backend(), ColorMode::speed);
    const auto want = whole_buffer(direct);
    sim.step();  // queued behind the write on the backend's stream, as the lab's next job
    staged.adopt(slot);
    const auto got = whole_buffer(staged);
    ASSERT_EQ(got.size(), want.size());
    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
        << "the vertices written aside differ from the state's";
  }
  EXPECT_THROW(BodyVertices(true).adopt(0), Error) << "nothing was written aside";
}

// The interop path keeps the vertices in device memory and fills GL's buffer only when GL reads it: the
// device vertices, the GL buffer filled from them, the positions read back and the camera's sample
// (gathered by CUDA from device memory, or by GL from the buffer) all hold the same state, also after a
// later state replaced it.
TEST_P(Interop, DeviceVerticesGlBufferAndSampleAgree) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  EglContext context;
  Simulation sim(gpu_collision(65536));
  BodyVertices v(true), host(false);
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    sim.step();
    v.update(sim.backend(), ColorMode::speed);
    host.update(sim.backend(), ColorMode::speed);
    ASSERT_NE(v.device_vertices(), nullptr) << v.interop_unavailable_reason();
    const std::vector<float> want = whole_buffer(host);
    std::vector<float> device(want.size());
    ASSERT_EQ(cudaStreamSynchronize(static_cast<cudaStream_t>(v.copy_stream())), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(device.data(), v.device_vertices(), device.size() * sizeof(float), cudaMemcpyDeviceToHost),
              cudaSuccess);
    EXPECT_EQ(std::memcmp(device.data(), want.data(), want.size() * sizeof(float)), 0) << "device vertices";
    const std::vector<float> positions = v.read_positions();
    EXPECT_EQ(std::memcmp(positions.data(), want.data(), positions.size() * sizeof(float)), 0) << "read back";
    BodySampler from_gl, from_device;
    from_gl.gather(v.buffer(), v.count(), 1.0);  // buffer(): filled from the device vertices now
    from_device.gather_device(v.device_vertices(), v.copy_stream(), v.count(), 1.0);
    const std::optional<BodySample> a = from_gl.take_previous(), b = from_device.take_previous();
    EXPECT_FALSE(a) << "one gather: there is no previous one";
    from_gl.gather(v.buffer(), v.count(), 2.0);
    from_device.gather_device(v.device_vertices(), v.copy_stream(), v.count(), 2.0);
    const std::optional<BodySample> c = from_gl.take_previous(), d = from_device.take_previous();
    ASSERT_TRUE(c && d);
    ASSERT_EQ(c->positions.size(), d->positions.size());
    ASSERT_GT(c->positions.size(), 1000u);
    EXPECT_EQ(c->stride, d->stride);
    EXPECT_EQ(std::memcmp(c->positions.data(), d->positions.data(), c->positions.size() * sizeof(glm::vec4)), 0)
        << "the CUDA gather and the GL gather took different bodies";
    EXPECT_EQ(std::memcmp(&c->positions[1], &want[4 * c->stride], sizeof(glm::vec4)), 0) << "sample 1 is body stride";
    EXPECT_EQ(whole_buffer(v), want) << "GL's buffer";
  }
}

// The CUDA splat (render switch "splat" on the interop path) draws the sprites' picture of a real
// simulation's state, as the host splat does on Mesa (tests/render/splat_egl_test.cpp).
TEST_P(Interop, CudaSplatDrawsTheSpritesPicture) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  EglContext context;
  Simulation sim(gpu_collision(32768));
  sim.step();
  const BodyFacts facts{sim.time(), sim.body_groups()};
  auto render = [&](ViewSettings view, RenderPath path, std::string* used) {
    view.render_path = path;
    SceneView scene(true);
    GlRenderTarget target(640, 360, GL_RGBA8);
    OrbitCamera camera;
    camera.set_angles(30, 35);
    for (int f = 0; f < 3; ++f) {
      scene.update(sim.backend(), view, facts);
      if (f == 0) camera.fit(scene.measure_extent());
      scene.draw(camera, view, {0, 0, 640, 360}, target.framebuffer(), 1.0);
    }
    *used = scene.body_path();
    EXPECT_EQ(scene.vertices().path(), VertexPath::interop) << scene.vertices().interop_unavailable_reason();
    if (scene.splatter()) {
      EXPECT_EQ(scene.splatter()->device_unavailable_reason(), "");
    }
    return read_pixels(target.framebuffer(), {0, 0, 640, 360});
  };
  for (ColorMode mode : {ColorMode::speed, ColorMode::origin, ColorMode::density}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    ViewSettings view;
    view.color_mode = mode;
    std::string sprites_used, splat_used;
    const Image sprites = render(view, RenderPath::sprites, &sprites_used);
    const Image splat = render(view, RenderPath::splat, &splat_used);
    EXPECT_EQ(splat_used, "splat (CUDA)");
    const testing::ImageDifference d = testing::compare_images(sprites, splat);
    std::printf("%-8s mean level %.2f / %.2f, lit %.1f%%, |difference| mean %.3f, p99.9 %.0f (8-bit levels)\n",
                std::string(to_string(mode)).c_str(), d.mean_level_a, d.mean_level_b, 100 * d.lit_share_a, d.mean_abs,
                d.p999_abs);
    EXPECT_GT(d.lit_share_a, 0.01);
    // Atomics add in any order, so the float sums differ in their last bits from the blender's.
    EXPECT_LT(d.mean_abs, 0.2);
    EXPECT_LE(d.p999_abs, 6);
  }
}

INSTANTIATE_TEST_SUITE_P(BothAlgorithms, Interop, ::testing::Values(Algorithm::allpairs, Algorithm::barneshut),
                         [](const auto& info) { return std::string(to_string(info.param)); });

}  // namespace
}  // namespace nbl
