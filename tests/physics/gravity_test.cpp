// The shared force law (physics/gravity.hpp) on the host: the numbers, the self-term, the kernel
// variants and the opening criterion every backend relies on.
#include "physics/gravity.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace nbl {
namespace {

TEST(Gravity, AccumulateAccelerationMatchesHandComputation) {
  // Body j of mass 2 at offset (3, 4, 0) with eps = 1: |d|^2 + eps^2 = 26, a = 2 d / 26^(3/2).
  double ax = 0.5, ay = -0.25, az = 1.0;  // accumulates onto what is there
  accumulate_acceleration(3.0, 4.0, 0.0, 2.0, 1.0, ax, ay, az);
  const double scale = 2.0 / std::pow(26.0, 1.5);
  EXPECT_DOUBLE_EQ(ax, 0.5 + 3.0 * scale);
  EXPECT_DOUBLE_EQ(ay, -0.25 + 4.0 * scale);
  EXPECT_DOUBLE_EQ(az, 1.0);

  float fx = 0, fy = 0, fz = 0;
  accumulate_acceleration(3.0f, 4.0f, 0.0f, 2.0f, 1.0f, fx, fy, fz);
  EXPECT_NEAR(fx, 3.0 * scale, 1e-7);
  EXPECT_NEAR(fy, 4.0 * scale, 1e-7);
  EXPECT_EQ(fz, 0.0f);
}

TEST(Gravity, AccelerationPointsTowardTheOtherBodyAndFallsAsInverseSquare) {
  double near_x = 0, far_x = 0, unused_y = 0, unused_z = 0;
  accumulate_acceleration(1.0, 0.0, 0.0, 1.0, 0.0, near_x, unused_y, unused_z);
  accumulate_acceleration(2.0, 0.0, 0.0, 1.0, 0.0, far_x, unused_y, unused_z);
  EXPECT_DOUBLE_EQ(near_x, 1.0);
  EXPECT_DOUBLE_EQ(far_x, 0.25);
  double toward_negative = 0;
  accumulate_acceleration(-2.0, 0.0, 0.0, 1.0, 0.0, toward_negative, unused_y, unused_z);
  EXPECT_DOUBLE_EQ(toward_negative, -0.25);
}

TEST(Gravity, SelfInteractionWithSofteningIsExactlyZero) {
  for (float eps2 : {1e-8f, 1e-4f, 0.01f, 1.0f}) {
    float ax = 0, ay = 0, az = 0;
    accumulate_acceleration(0.0f, 0.0f, 0.0f, 123.0f, eps2, ax, ay, az);
    accumulate_acceleration<true, true>(0.0f, 0.0f, 0.0f, 123.0f, eps2, ax, ay, az);
    EXPECT_EQ(ax, 0.0f);
    EXPECT_EQ(ay, 0.0f);
    EXPECT_EQ(az, 0.0f);
  }
}

TEST(Gravity, FastRsqrtAndFmaOrderVariantsAgreeWithPlainOnHost) {
  // Deterministic spread of offsets over several decades, masses and softenings.
  unsigned state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f;
  };
  for (int k = 0; k < 2000; ++k) {
    const float scale = std::pow(10.0f, 3.0f * next());
    const float dx = scale * next(), dy = scale * next(), dz = scale * next();
    const float mass = 0.5f + 0.5f * next();
    const float eps2 = 1e-4f * (1.5f + next());
    float plain[3] = {}, rsqrt[3] = {}, fma[3] = {}, both[3] = {};
    accumulate_acceleration<false, false>(dx, dy, dz, mass, eps2, plain[0], plain[1], plain[2]);
    accumulate_acceleration<true, false>(dx, dy, dz, mass, eps2, rsqrt[0], rsqrt[1], rsqrt[2]);
    accumulate_acceleration<false, true>(dx, dy, dz, mass, eps2, fma[0], fma[1], fma[2]);
    accumulate_acceleration<true, true>(dx, dy, dz, mass, eps2, both[0], both[1], both[2]);
    const float norm = std::sqrt(plain[0] * plain[0] + plain[1] * plain[1] + plain[2] * plain[2]);
    for (int a = 0; a < 3; ++a) {
      // The host has no approximate rsqrt instruction, so only the grouping of the sum differs: each
      // regrouping rounds once more, and the cube of 1/sqrt triples that: well under 10 ulp.
      EXPECT_NEAR(rsqrt[a], plain[a], 1e-6f * norm) << "offset " << dx << ", " << dy << ", " << dz;
      EXPECT_NEAR(fma[a], plain[a], 1e-6f * norm) << "offset " << dx << ", " << dy << ", " << dz;
      EXPECT_NEAR(both[a], plain[a], 1e-6f * norm) << "offset " << dx << ", " << dy << ", " << dz;
    }
  }
}

TEST(Gravity, PairPotentialIsConsistentWithTheForce) {
  // -dU/dx of the pair potential must be the acceleration times m_i (central differences).
  const double mi = 0.7, mj = 1.3, eps2 = 0.01;
  const double dx = 0.3, dy = -0.2, dz = 0.5, h = 1e-6;
  auto potential = [&](double x) { return pair_potential(x * x + dy * dy + dz * dz, mi, mj, eps2); };
  // d is x_j - x_i: moving body i by +h changes dx by -h.
  const double force_x = (potential(dx + h) - potential(dx - h)) / (2 * h);
  double ax = 0, ay = 0, az = 0;
  accumulate_acceleration(dx, dy, dz, mj, eps2, ax, ay, az);
  EXPECT_NEAR(force_x, mi * ax, 1e-8);
}

TEST(Gravity, CellIsFarWithZeroOpeningAngleAlwaysOpens) {
  for (double dist2 : {0.0, 1e-12, 1.0, 1e6, 1e30}) {
    for (double size : {0.0, 1e-9, 1.0, 100.0}) {
      EXPECT_FALSE(cell_is_far(dist2, size, 0.0)) << "dist2 " << dist2 << " size " << size;
      EXPECT_FALSE(cell_is_far(static_cast<float>(dist2), static_cast<float>(size), 0.0f));
    }
  }
}

TEST(Gravity, CellIsFarFollowsSizeOverDistance) {
  // size / distance < theta: size 1 at distance 2.5 is far for theta 0.5 (0.4 < 0.5), not for 0.3.
  EXPECT_TRUE(cell_is_far(2.5 * 2.5, 1.0, 0.5));
  EXPECT_FALSE(cell_is_far(2.5 * 2.5, 1.0, 0.3));
  // A body at the centre of mass is never far from it.
  EXPECT_FALSE(cell_is_far(0.0, 1.0, 2.0));
}

TEST(Gravity, KickAndDriftAdvanceByRateTimesStep) {
  double v = 1.0, x = 2.0;
  kick(v, 4.0, 0.25);
  EXPECT_DOUBLE_EQ(v, 2.0);
  drift(x, v, 0.5);
  EXPECT_DOUBLE_EQ(x, 3.0);
}

}  // namespace
}  // namespace nbl
