// render/splat_model.hpp without GL: what one body adds, and which bodies are not drawn at all.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "render/splat_model.hpp"

namespace nbl {
namespace {

// An identity projection over a 100 x 80 target: clip = world, so x = 0 lands on the centre column.
SplatView identity_view() {
  SplatView v;
  for (int i = 0; i < 16; ++i) v.view_projection[i] = (i % 5 == 0) ? 1.0f : 0.0f;
  v.width = 100;
  v.height = 80;
  v.star_sigma_px = 1.5f;
  v.mean_mass = 1.0f;
  v.target_depth = 1.0f;
  v.color_texels = 2;
  return v;
}

const std::vector<float> kPalette = {1, 0, 0, 0, 0, 1};  // key 0 red, key 1 blue

TEST(SplatModel, ALoneBodyAddsOneBodyAndItsLight) {
  const SplatView v = identity_view();
  const float body[4] = {0.1f, -0.2f, 0.0f, 1.0f};
  const SplatBody b = splat_body(v, body, 0.25f, 0, kPalette.data(), nullptr);
  ASSERT_TRUE(b.visible);
  EXPECT_FLOAT_EQ(b.x, 55.0f);
  EXPECT_FLOAT_EQ(b.y, 32.0f);
  EXPECT_FLOAT_EQ(b.sigma, 1.5f);
  double bodies = 0, red = 0, blue = 0;
  int touched = 0;
  splat_pixels(v, b, [&](int x, int y, float weight) {
    EXPECT_GE(x, 0);
    EXPECT_LT(x, v.width);
    EXPECT_GE(y, 0);
    EXPECT_LT(y, v.height);
    bodies += b.peak * weight;
    red += b.light[0] * weight;
    blue += b.light[2] * weight;
    ++touched;
  });
  // 3 sigma holds 98.9% of a Gaussian and the peak is divided by that share: one body in all.
  EXPECT_NEAR(bodies, 1.0, 0.02);
  // Key 0.25 on a two-texel map sits on the first texel's centre: pure red.
  EXPECT_NEAR(red, 1.0, 0.02);
  EXPECT_NEAR(blue, 0.0, 1e-6);
  EXPECT_GT(touched, 50);  // a disc of radius 4.5 pixels
  EXPECT_LT(touched, 81);
}

TEST(SplatModel, CrowdedBodiesShrinkTowardsAPixel) {
  SplatView v = identity_view();
  v.density_valid = 1;
  v.density_width = v.density_height = 2;
  const std::vector<float> crowded(16, 1000.0f);  // every texel: 1,000 bodies per pixel
  const float body[4] = {0, 0, 0, 1};
  EXPECT_FLOAT_EQ(splat_body(v, body, 0, 0, kPalette.data(), crowded.data()).sigma, v.min_sigma_px);
}

TEST(SplatModel, BodiesOutsideTheViewBehindTheEyeOrNotANumberAreNotDrawn) {
  const SplatView v = identity_view();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float outside[4] = {1.5f, 0, 0, 1}, far[4] = {0, 0, 2, 1}, bad[4] = {nan, 0, 0, 1},
              bad_mass[4] = {0, 0, 0, nan};
  for (const float* p : {outside, far, bad, bad_mass})
    EXPECT_FALSE(splat_body(v, p, 0, 0, kPalette.data(), nullptr).visible);
  SplatView behind = v;
  behind.view_projection[15] = -1.0f;  // w < 0: behind the eye
  const float centre[4] = {0, 0, 0, 1};
  EXPECT_FALSE(splat_body(behind, centre, 0, 0, kPalette.data(), nullptr).visible);
}

TEST(SplatModel, TheQuarterDensityIsTheMeanOfFourByFourPixels) {
  // 8x4 pixels, quarter 2x1: one pixel of 16 bodies in the left block, 2 bodies everywhere in the right.
  std::vector<float> full(8 * 4 * 4, 0.0f);
  full[4 * (1 * 8 + 2) + 3] = 16.0f;
  for (int y = 0; y < 4; ++y)
    for (int x = 4; x < 8; ++x) full[4 * (y * 8 + x) + 3] = 2.0f;
  EXPECT_FLOAT_EQ(quarter_density(full.data(), 8, 4, 2, 1, 0, 0), 1.0f);
  EXPECT_FLOAT_EQ(quarter_density(full.data(), 8, 4, 2, 1, 1, 0), 2.0f);
}

TEST(SplatModel, GalaxyOfOriginPicksThePaletteByIndex) {
  SplatView v = identity_view();
  v.palette_count = 2;
  v.group_count = 2;
  v.group_starts[0] = 10;
  const std::vector<float> palettes = {1, 0, 0, 1, 0, 0, /* second */ 0, 1, 0, 0, 1, 0};
  const float body[4] = {0, 0, 0, 1};
  EXPECT_GT(splat_body(v, body, 0.5f, 9, palettes.data(), nullptr).light[0], 0.0f);
  const SplatBody second = splat_body(v, body, 0.5f, 10, palettes.data(), nullptr);
  EXPECT_EQ(second.light[0], 0.0f);
  EXPECT_GT(second.light[1], 0.0f);
}

}  // namespace
}  // namespace nbl
