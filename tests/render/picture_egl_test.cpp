// The picture's GL side on whatever EGL offers (Mesa llvmpipe in CI): the exposure shaders against the
// host arithmetic, density-sized sprites, galaxy-of-origin palettes, the follow camera, and the image
// check on a render that should pass it.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "fake_backend.hpp"
#include "render/auto_exposure.hpp"
#include "render/egl_context.hpp"
#include "render/exposure_math.hpp"
#include "render/image.hpp"
#include "render/picture_detail.hpp"
#include "render/scene_view.hpp"

namespace nbl {
namespace {

class PictureEgl : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { context_ = new EglContext(); }
  static void TearDownTestSuite() { delete context_; }

  // Draws `frames` frames (sprite sizes and exposure settle from frame to frame) and reads the last.
  Image render(SceneView& view, Backend& backend, const ViewSettings& settings, int width, int height,
               const BodyFacts& facts = {}, int frames = 3, OrbitCamera* camera_out = nullptr) {
    GlRenderTarget target(width, height, GL_RGBA8);
    OrbitCamera camera;
    camera.set_angles(0, 90);
    for (int f = 0; f < frames; ++f) {
      view.update(backend, settings, facts);
      if (f == 0) camera.fit(view.measure_extent());
      view.draw(camera, settings, {0, 0, width, height}, target.framebuffer(), 1.0);
    }
    if (camera_out) *camera_out = camera;
    Image image = read_pixels(target.framebuffer(), {0, 0, width, height});
    if (const char* dir = std::getenv("NBL_TEST_IMAGES"))
      write_png(
          std::filesystem::path(dir) / (std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                                        "_" + std::to_string(++images_) + ".png"),
          image);
    return image;
  }
  int images_ = 0;
  static EglContext* context_;
};
EglContext* PictureEgl::context_ = nullptr;

TEST_F(PictureEgl, ExposureShadersAgreeWithTheHostArithmetic) {
  // A quarter-size copy with known light: sky, 3,000 lone-star texels, 40 texels of a core 500x
  // brighter; the GPU's white point and knee must be what exposure_math.hpp says.
  const int w = 64, h = 64;
  const float reference = 0.02f;
  std::vector<float> texels(static_cast<std::size_t>(w) * h * 4, 0.0f);
  exposure::Histogram bins{};
  for (int i = 0; i < w * h; ++i) {
    const float light = i < 3000   ? reference * (0.5f + 0.001f * static_cast<float>(i % 500))
                        : i < 3040 ? 500 * reference
                                   : 0.0f;
    for (int c = 0; c < 3; ++c) texels[static_cast<std::size_t>(i) * 4 + static_cast<std::size_t>(c)] = light;
    if (auto b = exposure::bin_of(light, reference)) ++bins[static_cast<std::size_t>(*b)];
  }
  GlTexture texture(GL_TEXTURE_2D);
  glTextureStorage2D(texture.id(), 1, GL_RGBA32F, w, h);
  glTextureSubImage2D(texture.id(), 0, 0, 0, w, h, GL_RGBA, GL_FLOAT, texels.data());

  AutoExposure exposure;
  ExposureParameters p;
  p.reference = reference;
  p.percentile = 0.995f;
  p.adapt = 1;
  exposure.measure(texture.id(), w, h, p);
  glFinish();
  const auto state = exposure.state();
  EXPECT_EQ(state.covered, 3040u) << "sky texels are not counted";
  const float expected =
      std::max(exposure::bin_upper_value(*exposure::percentile_bin(bins, 0.995f), reference), p.min_white * reference);
  EXPECT_NEAR(state.white / expected, 1.0f, 1e-4);
  EXPECT_GT(state.white, 400 * reference) << "the core sets white, not the stars";
  EXPECT_NEAR(state.knee / exposure::knee_for(p.star_display, state.white / reference), 1.0f, 1e-3);

  // Next frame, a tenth of the light everywhere: with adapt 0.25 the white point moves a quarter of
  // the way in stops (3.3 stops: more than snap_stops 3 would snap, so allow 4 here).
  for (float& t : texels) t *= 0.1f;
  glTextureSubImage2D(texture.id(), 0, 0, 0, w, h, GL_RGBA, GL_FLOAT, texels.data());
  p.adapt = 0.25f;
  p.snap_stops = 4;
  exposure.measure(texture.id(), w, h, p);
  glFinish();
  const float target = exposure.state().target;
  EXPECT_NEAR(exposure.state().white / exposure::adapt_white(state.white, target, 0.25f, 4), 1.0f, 1e-4);
  EXPECT_GT(exposure.state().white, target) << "still on its way down";
}

// Two blobs side by side: bodies [0, n) at x = -1 weighing `left_mass` in all, [n, 2n) at x = +1.
Bodies two_blobs(std::size_t n, float left_mass, float right_mass) {
  const Bodies blob = testing::blob(n, 0.6f);
  Bodies both;
  both.resize(2 * n);
  for (std::size_t i = 0; i < 2 * n; ++i) {
    const std::size_t k = i % n;
    both.x[i] = blob.x[k] + (i < n ? -1.0f : 1.0f);
    both.y[i] = blob.y[k];
    both.z[i] = blob.z[k];
    both.mass[i] = (i < n ? left_mass : right_mass) / static_cast<float>(n);
  }
  return both;
}

TEST_F(PictureEgl, GalaxyOfOriginPaintsEachGroupInItsPalette) {
  const std::size_t n = 6000;
  testing::FakeBackend backend(two_blobs(n, 0.5f, 0.5f));
  SceneView view(false);
  ViewSettings settings;
  settings.color_mode = ColorMode::origin;
  BodyFacts facts;
  facts.groups = {{0, n, "left"}, {n, 2 * n, "right"}};
  OrbitCamera camera;
  const Image image = render(view, backend, settings, 320, 180, facts, 3, &camera);
  // Where each blob's centre lands on screen (top row first), and its colour in a box around it.
  auto colour_at = [&](const glm::vec3& world) {
    const glm::vec4 clip = camera.projection(320.0f / 180.0f) * camera.view() * glm::vec4(world, 1.0f);
    const int cx = static_cast<int>((clip.x / clip.w * 0.5f + 0.5f) * 320),
              cy = static_cast<int>((0.5f - clip.y / clip.w * 0.5f) * 180);
    double r = 0, b = 0;
    for (int y = std::max(0, cy - 20); y < std::min(180, cy + 20); ++y)
      for (int x = std::max(0, cx - 20); x < std::min(320, cx + 20); ++x) {
        const std::uint8_t* p = image.pixel(x, y);
        if (p[0] + p[1] + p[2] < 120) continue;  // the sky's blue is not the galaxy's
        r += p[0];
        b += p[2];
      }
    return std::pair{r, b};
  };
  const auto [lr, lb] = colour_at({-1.0f, 0.0f, 0.0f});
  const auto [rr, rb] = colour_at({1.0f, 0.0f, 0.0f});
  EXPECT_GT(lb, 1.15 * lr) << "the first group (the larger galaxy) is blue";
  EXPECT_GT(rr, 1.15 * rb) << "the second is orange";
}

TEST_F(PictureEgl, DarkHalosAreDrawnOnlyWhenAskedAndInTheirOwnPalette) {
  // Stars [0, n) on the left, a dark group [n, 2n) of bodies three times as heavy on the right
  // (sim/scenes.hpp: dark groups come last).
  const std::size_t n = 6000;
  testing::FakeBackend backend(two_blobs(n, 0.25f, 0.75f));
  BodyFacts facts;
  facts.groups = {{0, n, "stars", 0.25}, {n, 2 * n, "halo", 0.75, true}};
  ViewSettings settings;
  settings.color_mode = ColorMode::origin;
  settings.follow_bound = false;
  // Light in a box around each blob's centre on screen (the camera fits the stars alone, so one fixed
  // camera serves every render).
  OrbitCamera camera;
  camera.set_angles(0, 90);
  SceneExtent extent;
  extent.min = {-1.7f, -0.7f, -0.7f};
  extent.max = {1.7f, 0.7f, 0.7f};
  extent.radius = 1.8f;
  camera.fit(extent);
  auto light = [&](bool show_dark) {
    settings.show_dark_matter = show_dark;
    SceneView view(false);
    GlRenderTarget target(320, 180, GL_RGBA8);
    for (int f = 0; f < 3; ++f) {
      view.update(backend, settings, facts);
      view.draw(camera, settings, {0, 0, 320, 180}, target.framebuffer(), 1.0);
    }
    const Image image = read_pixels(target.framebuffer(), {0, 0, 320, 180});
    std::array<double, 6> sums{};  // the stars' r g b, the halo's r g b, above the sky
    for (int side = 0; side < 2; ++side) {
      const glm::vec4 clip =
          camera.projection(320.0f / 180.0f) * camera.view() * glm::vec4(side ? 1.0f : -1.0f, 0.0f, 0.0f, 1.0f);
      const int cx = static_cast<int>((clip.x / clip.w * 0.5f + 0.5f) * 320);
      const int cy = static_cast<int>((0.5f - clip.y / clip.w * 0.5f) * 180);
      for (int y = std::max(0, cy - 25); y < std::min(180, cy + 25); ++y)
        for (int x = std::max(0, cx - 25); x < std::min(320, cx + 25); ++x) {
          const std::uint8_t* p = image.pixel(x, y);
          if (p[0] + p[1] + p[2] < 90) continue;
          for (int c = 0; c < 3; ++c) sums[static_cast<std::size_t>(3 * side + c)] += p[c];
        }
    }
    return sums;
  };
  for (const RenderPath path : {RenderPath::sprites, RenderPath::splat}) {
    SCOPED_TRACE(path == RenderPath::sprites ? "sprites" : "splat");
    settings.render_path = path;
    const auto hidden = light(false);
    const auto shown = light(true);
    const double hidden_stars = hidden[0] + hidden[1] + hidden[2];
    EXPECT_GT(hidden_stars, 0.0) << "the stars are drawn";
    EXPECT_LT(hidden[3] + hidden[4] + hidden[5], 0.01 * hidden_stars) << "the halo is not drawn by default";
    EXPECT_GT(shown[3] + shown[4] + shown[5], 0.2 * (shown[0] + shown[1] + shown[2])) << "Dark matter on: drawn";
    // In the dark palette (grey violet), not the stars' blue or the second galaxy's orange.
    EXPECT_GT(shown[5], 1.2 * shown[4]);
    EXPECT_GT(shown[3], 0.8 * shown[4]);
  }
}

TEST_F(PictureEgl, CrowdedSpritesShrinkSoADenseCoreKeepsItsStructure) {
  // A dense disk with a ring of bodies missing: sprites sized by density keep the gap visible.
  Bodies bodies = testing::blob(200000, 1.0f);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const float r = std::hypot(bodies.x[i], bodies.y[i]);
    if (r > 0.15f && r < 0.2f) bodies.x[i] *= 1.4f, bodies.y[i] *= 1.4f;  // pushed out of the ring
  }
  testing::FakeBackend backend(bodies);
  SceneView view(false);
  const Image image = render(view, backend, ViewSettings{}, 480, 270);
  const PictureDetail d = picture_detail(image);
  EXPECT_TRUE(passes(d)) << describe(d);
  EXPECT_LT(image.pixel(0, 0)[1], 40) << "the sky stays dark";
}

TEST_F(PictureEgl, FollowCameraMovesWithTheBoundClusterNotTheEscapers) {
  // A cluster at the origin with a tenth of its bodies flying off at high speed; between frames the
  // cluster moves +0.5 in x. The camera target moves with it.
  Bodies bodies = testing::blob(5000, 0.3f);
  for (std::size_t i = 0; i < bodies.size(); ++i) bodies.mass[i] = 1.0f / 5000.0f;
  testing::FakeBackend backend(bodies);
  SceneView view(false);
  ViewSettings settings;
  GlRenderTarget target(160, 90, GL_RGBA8);
  OrbitCamera camera;
  auto frame = [&](double time, float shift_x, float escaper_x) {
    Bodies b = bodies;
    for (std::size_t i = 0; i < b.size(); ++i) b.x[i] += i % 10 == 0 ? escaper_x : shift_x;
    backend.set_bodies(b);
    view.update(backend, settings, {time, {}});
    view.follow(camera, settings, /*fixed_lag=*/true);
    view.draw(camera, settings, {0, 0, 160, 90}, target.framebuffer(), 0.1);
  };
  // With the offscreen renders' fixed lag, frame k applies the estimate from the samples of frames k - 3
  // and k - 2: the first at the fourth frame, which sets where the camera starts following from.
  frame(1.0, 0.0f, 0.0f);
  frame(1.1, 0.05f, 2.0f);  // the escapers move 20x faster: unbound
  frame(1.2, 0.1f, 4.0f);
  frame(1.3, 0.15f, 6.0f);
  ASSERT_TRUE(view.bound());
  const glm::vec3 before = camera.target();
  frame(1.4, 0.2f, 8.0f);
  frame(1.5, 0.25f, 10.0f);
  EXPECT_NEAR(view.bound()->bound_fraction, 0.9, 0.02);
  EXPECT_NEAR(camera.target().x - before.x, 0.1f, 0.02f) << "followed the cluster's 0.1, not the escapers' 4";

  settings.follow_bound = false;
  const glm::vec3 off = camera.target();
  frame(1.6, 0.3f, 12.0f);
  frame(1.7, 0.35f, 14.0f);
  EXPECT_EQ(camera.target(), off) << "turned off, the camera stays put";
}

}  // namespace
}  // namespace nbl
