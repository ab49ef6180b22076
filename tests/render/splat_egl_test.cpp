// The splatting renderer draws the sprites' picture (splatting must match it at the same
// settings, compared as images at small N, headless): on whatever EGL offers (Mesa llvmpipe in CI) the
// host splat against GL point sprites, for the colour modes with their own rules (a colour map, palettes
// by galaxy of origin, log density) and after the density-driven sizing has settled.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "fake_backend.hpp"
#include "image_compare.hpp"
#include "render/egl_context.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"

namespace nbl {
namespace {

class SplatEgl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new EglContext(); }
  static void TearDownTestSuite() { delete context_; }

  Image render(Backend& backend, ViewSettings settings, RenderPath path, const BodyFacts& facts, std::string* used) {
    settings.render_path = path;
    SceneView view(/*allow_interop=*/false);
    const int width = 320, height = 200;
    GlRenderTarget target(width, height, GL_RGBA8);
    OrbitCamera camera;
    camera.set_angles(20, 60);
    for (int f = 0; f < 3; ++f) {  // sprite sizes and the white point settle over frames
      view.update(backend, settings, facts);
      if (f == 0) camera.fit(view.measure_extent());
      view.draw(camera, settings, {0, 0, width, height}, target.framebuffer(), 1.0);
    }
    if (used) *used = view.body_path();
    Image image = read_pixels(target.framebuffer(), {0, 0, width, height});
    if (const char* dir = std::getenv("NBL_TEST_IMAGES"))
      write_png(std::filesystem::path(dir) / ("splat_" + std::string(to_string(settings.color_mode)) + "_" +
                                              std::string(to_string(path)) + ".png"),
                image);
    return image;
  }
  static EglContext* context_;
};
EglContext* SplatEgl::context_ = nullptr;

TEST_F(SplatEgl, DrawsTheSpritesPictureInEveryKindOfColourMode) {
  // Two blobs of different sizes: a crowded core (sprites shrink there) and sparse edges (lone stars).
  Bodies bodies = testing::blob(6000, 1.0f);
  Bodies second = testing::blob(3000, 0.5f);
  const std::size_t first = bodies.size();
  bodies.resize(first + second.size());
  for (std::size_t i = 0; i < second.size(); ++i) {
    bodies.x[first + i] = second.x[i] + 1.6f;
    bodies.y[first + i] = second.y[i] + 0.4f;
    bodies.z[first + i] = second.z[i];
    bodies.mass[first + i] = second.mass[i];
  }
  testing::FakeBackend backend(bodies);
  BodyFacts facts;
  facts.groups = {{0, first, "first"}, {first, bodies.size(), "second"}};
  for (ColorMode mode : {ColorMode::speed, ColorMode::origin, ColorMode::density, ColorMode::warp_id}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    ViewSettings settings;
    settings.color_mode = mode;
    std::string sprites_path, splat_path;
    const Image sprites = render(backend, settings, RenderPath::sprites, facts, &sprites_path);
    const Image splat = render(backend, settings, RenderPath::splat, facts, &splat_path);
    EXPECT_EQ(sprites_path, "sprites");
    EXPECT_EQ(splat_path, "splat (host)");
    const testing::ImageDifference d = testing::compare_images(sprites, splat);
    std::printf("%-8s mean level %.2f / %.2f, lit %.1f%%, |difference| mean %.3f, p99.9 %.0f (8-bit levels)\n",
                std::string(to_string(mode)).c_str(), d.mean_level_a, d.mean_level_b, 100 * d.lit_share_a, d.mean_abs,
                d.p999_abs);
    EXPECT_GT(d.lit_share_a, 0.02) << "the sprites drew almost nothing: the comparison would prove nothing";
    EXPECT_LT(d.mean_abs, 0.1) << "splat and sprites differ on average";
    EXPECT_LE(d.p999_abs, 4) << "splat and sprites differ somewhere by more than rounding";
  }
}

}  // namespace
}  // namespace nbl
