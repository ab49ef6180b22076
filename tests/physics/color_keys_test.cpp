#include "physics/color_keys.hpp"

#include <gtest/gtest.h>

namespace nbl {
namespace {

TEST(ColorKeys, MagnitudeKeyIsHalfAtTheScaleAndNeverClips) {
  EXPECT_FLOAT_EQ(magnitude_key(2.0f, 2.0f), 0.5f);
  EXPECT_FLOAT_EQ(magnitude_key(0.0f, 2.0f), 0.0f);
  EXPECT_LT(magnitude_key(1e6f, 2.0f), 1.0f);
  EXPECT_LT(magnitude_key(1.0f, 2.0f), magnitude_key(3.0f, 2.0f));
  EXPECT_EQ(magnitude_key(5.0f, 0.0f), 0.0f);  // no scale (empty scene) gives a defined key
}

TEST(ColorKeys, OrderMassAndDepthKeysSpanZeroToOne) {
  EXPECT_EQ(order_key(0, 100), 0.0f);
  EXPECT_EQ(order_key(99, 100), 1.0f);
  EXPECT_EQ(order_key(0, 1), 0.0f);
  EXPECT_EQ(mass_key(2.0f, 4.0f), 0.5f);
  EXPECT_EQ(mass_key(8.0f, 4.0f), 1.0f);
  EXPECT_EQ(depth_key(3, 12), 0.25f);
  EXPECT_EQ(depth_key(3, 0), 0.0f);
}

TEST(ColorKeys, NeighbouringWarpsGetDistantKeys) {
  for (int w = 0; w < 1000; ++w) {
    const float a = warp_key(w), b = warp_key(w + 1);
    ASSERT_GE(a, 0.0f);
    ASSERT_LT(a, 1.0f);
    const float d = a > b ? a - b : b - a;
    EXPECT_GT(d < 0.5f ? d : 1.0f - d, 0.2f) << "warps " << w << " and " << w + 1;
  }
}

}  // namespace
}  // namespace nbl
