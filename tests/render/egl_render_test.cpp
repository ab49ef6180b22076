// The offscreen renderer on whatever EGL offers (Mesa llvmpipe in CI, the NVIDIA driver on a GPU box):
// the same SceneView the window uses, drawn into an offscreen target and read back.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "fake_backend.hpp"
#include "render/egl_context.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"

namespace nbl {
namespace {

constexpr int kWidth = 320, kHeight = 180;

struct Luma {
  int lit = 0;  // pixels clearly above the background
  double mean = 0;
  double red = 0, blue = 0;
};

Luma measure(const Image& image, int x0, int y0, int x1, int y1) {
  Luma l;
  double sum = 0;
  int count = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const auto* p = image.pixel(x, y);
      const double luma = 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2];
      sum += luma;
      l.red += p[0];
      l.blue += p[2];
      l.lit += luma > 60;
      ++count;
    }
  l.mean = sum / count;
  return l;
}

class EglRender : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new EglContext(); }
  static void TearDownTestSuite() { delete context_; }

  Image render(SceneView& view, testing::FakeBackend& backend, const ViewSettings& settings) {
    GlRenderTarget target(kWidth, kHeight, GL_RGBA8);
    view.update(backend, settings);
    OrbitCamera camera;
    camera.set_angles(0, 90);  // face-on from above: the blob lies in the xy plane
    camera.fit(view.measure_extent());
    view.draw(camera, settings, {0, 0, kWidth, kHeight}, target.framebuffer());
    Image image = read_pixels(target.framebuffer(), {0, 0, kWidth, kHeight});
    if (const char* dir = std::getenv("NBL_TEST_IMAGES"))  // look at what the test saw
      write_png(
          std::filesystem::path(dir) / (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                                        "_" + std::to_string(++images_) + ".png"),
          image);
    return image;
  }
  int images_ = 0;

  static EglContext* context_;
};
EglContext* EglRender::context_ = nullptr;

TEST_F(EglRender, BodiesGlowInTheMiddleOverADarkBackground) {
  std::printf("EGL: %s\n", context_->description().c_str());
  testing::FakeBackend backend(testing::blob(20000, 1.0f));
  SceneView view(false);
  const Image image = render(view, backend, ViewSettings{});
  EXPECT_EQ(view.vertices().path(), VertexPath::host_copy);
  const Luma centre = measure(image, kWidth / 2 - 20, kHeight / 2 - 20, kWidth / 2 + 20, kHeight / 2 + 20);
  const Luma corner = measure(image, 0, 0, 20, 20);
  // Stars stay stars: the core is bright, the disk around it a field of single stars rather
  // than a glow, so fewer of these pixels are lit than under the old fog.
  EXPECT_GT(centre.lit, 300) << "the blob's core should be bright";
  EXPECT_LT(corner.mean, 20) << "the background should stay dark";
  EXPECT_EQ(corner.lit, 0);
}

TEST_F(EglRender, OctreeOverlayAddsLinesOutsideTheBodies) {
  testing::FakeBackend backend(testing::blob(2000, 0.3f));
  SceneView view(false);
  ViewSettings plain;
  ViewSettings with_tree;
  with_tree.octree_depth = 2;
  const Image a = render(view, backend, plain);
  EXPECT_EQ(view.overlay().cells_drawn, 0u);
  const Image b = render(view, backend, with_tree);
  EXPECT_EQ(view.overlay().cells_drawn, 9u);
  const auto dim_a = measure(a, 0, 0, kWidth, kHeight).mean;
  const auto dim_b = measure(b, 0, 0, kWidth, kHeight).mean;
  EXPECT_GT(dim_b, dim_a + 0.5) << "cell boxes should add light";
}

TEST_F(EglRender, ColorModeChangesTheColours) {
  testing::FakeBackend backend(testing::blob(20000, 1.0f));
  SceneView view(false);
  ViewSettings speed;
  ViewSettings index;
  index.color_mode = ColorMode::body_index;
  const Luma s = measure(render(view, backend, speed), 0, 0, kWidth, kHeight);
  const Luma i = measure(render(view, backend, index), 0, 0, kWidth, kHeight);
  EXPECT_GT(std::abs(s.red / s.blue - i.red / i.blue), 0.02);
}

TEST_F(EglRender, WritesAPng) {
  testing::FakeBackend backend(testing::blob(5000, 1.0f));
  SceneView view(false);
  const Image image = render(view, backend, ViewSettings{});
  const auto file = std::filesystem::temp_directory_path() / ("nbl_egl_" + std::to_string(getpid()) + ".png");
  write_png(file, image);
  std::ifstream in(file, std::ios::binary);
  char signature[8] = {};
  in.read(signature, 8);
  EXPECT_EQ(std::string(signature + 1, 3), "PNG");
  EXPECT_GT(std::filesystem::file_size(file), 1000u);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace nbl
