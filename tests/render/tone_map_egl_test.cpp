// The picture after the bodies are drawn (quarter copy, exposure, glow, tone map) through the real
// shaders on whatever EGL offers (Mesa llvmpipe in CI): a fixed state must look as it did before the
// passes became compute dispatches (against reference images rendered by the fragment-shader passes and
// kept under tests/render/references/), and the sky must not fall into bands of equal 8-bit levels.
//
// NBL_WRITE_REFERENCES=DIR writes what the reference test renders into DIR (how the references were
// made: this file built against the renderer they stand for, benchmarks/cpu/2026-11-27/).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>
#include <string>

#include "fake_backend.hpp"
#include "image_compare.hpp"
#include "render/egl_context.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

// The default collision at its start, as `nbodylab render` frames it (yaw -60, pitch 50, fitted).
struct Collision {
  explicit Collision(std::size_t n) : backend(make_scene(Scene::collision, n, 1)) {
    facts.groups = scene_groups(Scene::collision, n);
  }
  testing::FakeBackend backend;
  BodyFacts facts;
};

class ToneMapEgl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new EglContext(); }
  static void TearDownTestSuite() { delete context_; }

  // Three frames (sprite sizes and the white point settle), the last one read back: `viewport` of a
  // target of `target_size` in `format` (GL_RGBA8: the tone map writes it directly; another format: it
  // writes a picture of its own and copies that in).
  static Image render(Collision& scene, const ViewSettings& settings, const Viewport& viewport, SceneView& view,
                      GLenum format = GL_RGBA8, int target_width = 0, int target_height = 0) {
    GlRenderTarget target(target_width ? target_width : viewport.width, target_height ? target_height : viewport.height,
                          format);
    OrbitCamera camera;
    camera.set_angles(-60, 50);
    for (int f = 0; f < 3; ++f) {
      view.update(scene.backend, settings, scene.facts);
      if (f == 0) camera.fit(view.measure_extent());
      view.draw(camera, settings, viewport, target.framebuffer(), 1.0);
    }
    return read_pixels(target.framebuffer(), viewport);
  }
  static Image render(Collision& scene, const ViewSettings& settings, int width, int height, SceneView& view) {
    return render(scene, settings, {0, 0, width, height}, view);
  }

  static std::filesystem::path reference_file(const std::string& name) {
    return std::filesystem::path(NBL_SOURCE_DIR) / "tests/render/references" / name;
  }

  static EglContext* context_;
};
EglContext* ToneMapEgl::context_ = nullptr;

// The share of dark pixels (every channel at most 40 of 255: the sky and the faint glow over it) whose
// right-hand neighbour, also dark, has exactly the same three levels. An undithered smooth gradient
// repeats each level over long runs (bands); noise of half a level before rounding breaks them up.
double dark_pixels_equal_to_right_neighbour(const Image& image, int* dark_pairs) {
  int pairs = 0, equal = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x + 1 < image.width; ++x) {
      const std::uint8_t* a = image.pixel(x, y);
      const std::uint8_t* b = image.pixel(x + 1, y);
      if (std::max({a[0], a[1], a[2], b[0], b[1], b[2]}) > 40) continue;
      ++pairs;
      equal += a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
    }
  *dark_pairs = pairs;
  return pairs ? static_cast<double>(equal) / pairs : 0.0;
}

TEST_F(ToneMapEgl, PictureMatchesTheReferenceRenderWithinOneLevel) {
  // 16,384 bodies at 320x180: the light, glow, exposure and tone curve of a real frame, small enough to
  // keep as PNGs. Speed colours, the density mode's colour map, and the galaxies' palettes; compared
  // without the dither (the references have none), and with it (it moves a pixel by at most one level).
  const char* write_dir = std::getenv("NBL_WRITE_REFERENCES");
  // Another driver rasterizes, blends and rounds its own way: the references hold for llvmpipe's.
  if (!write_dir && context_->description().find("llvmpipe") == std::string::npos)
    GTEST_SKIP() << "the references are Mesa llvmpipe's renders; this is " << context_->description();
  Collision scene(16384);
  for (ColorMode mode : {ColorMode::speed, ColorMode::density, ColorMode::origin})
    for (bool dither : {false, true}) {
      const std::string name = "collision-16384-" + std::string(to_string(mode)) + "-320x180.png";
      SCOPED_TRACE(name + (dither ? ", dithered" : ""));
      ViewSettings settings;
      settings.color_mode = mode;
      settings.render_path = RenderPath::sprites;
      SceneView view(/*allow_interop=*/false);
      if (!dither) view.set_dither(false);
      const Image image = render(scene, settings, 320, 180, view);
      if (write_dir) {
        if (!dither) write_png(std::filesystem::path(write_dir) / name, image);
        continue;
      }
      const Image reference = read_png(reference_file(name));
      const testing::ImageDifference d = testing::compare_images(reference, image);
      std::printf("%-40s %-9s mean level %.2f / %.2f, lit %.1f%%, |difference| mean %.3f, p99.9 %.0f (8-bit levels)\n",
                  name.c_str(), dither ? "dithered" : "plain", d.mean_level_a, d.mean_level_b, 100 * d.lit_share_a,
                  d.mean_abs, d.p999_abs);
      EXPECT_GT(d.lit_share_a, 0.02) << "the reference shows almost nothing: the comparison would prove nothing";
      EXPECT_LE(d.mean_abs, 1.0) << "the picture changed";
      EXPECT_LE(d.p999_abs, dither ? 3 : 2) << "some pixels changed by more than rounding";
      EXPECT_NEAR(d.mean_level_a, d.mean_level_b, 0.1) << "the picture got brighter or darker";
    }
}

TEST_F(ToneMapEgl, PictureIsTheSameWrittenDirectlyThroughACopyAndBesideAPanel) {
  // The tone map writes an RGBA8 texture's pixels itself; any other target (the window's back buffer)
  // gets a copy; and the window's picture sits beside the panel, at an offset in its framebuffer.
  Collision scene(4096);
  ViewSettings settings;
  settings.render_path = RenderPath::sprites;
  auto picture = [&](const Viewport& viewport, GLenum format, int width, int height) {
    SceneView view(/*allow_interop=*/false);
    return render(scene, settings, viewport, view, format, width, height);
  };
  const Image direct = picture({0, 0, 320, 180}, GL_RGBA8, 320, 180);
  const std::array others = {std::pair{"copied", picture({0, 0, 320, 180}, GL_RGB8, 320, 180)},
                             std::pair{"beside a panel", picture({56, 30, 320, 180}, GL_RGBA8, 400, 240)},
                             std::pair{"copied beside a panel", picture({56, 30, 320, 180}, GL_RGB8, 400, 240)}};
  for (const auto& [name, other] : others) {
    const testing::ImageDifference d = testing::compare_images(direct, other);
    EXPECT_GT(d.lit_share_a, 0.02) << "almost nothing drawn: the comparison would prove nothing";
    EXPECT_EQ(d.mean_abs, 0.0) << name;
  }
}

TEST_F(ToneMapEgl, DarkSkyHasNoBandsOfEqualLevels) {
  // 16,384 bodies at 960x540: most of the frame is sky, a gradient from top to bottom and a vignette.
  Collision scene(16384);
  ViewSettings settings;
  settings.render_path = RenderPath::sprites;
  SceneView view(/*allow_interop=*/false);
  const Image image = render(scene, settings, 960, 540, view);
  if (const char* dir = std::getenv("NBL_TEST_IMAGES"))
    write_png(std::filesystem::path(dir) / "tone_map_sky.png", image);
  int pairs = 0;
  const double equal = dark_pixels_equal_to_right_neighbour(image, &pairs);
  std::printf("dark pixel pairs %d, equal to the right-hand neighbour %.3f\n", pairs, equal);
  ASSERT_GT(pairs, 960 * 540 / 4) << "the frame should be mostly sky";
  // Undithered, the sky repeats its level from pixel to pixel almost everywhere (0.98 here).
  EXPECT_LT(equal, 0.5) << "the sky is banded: the tone map does not dither";
}

}  // namespace
}  // namespace nbl
