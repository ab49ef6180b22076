// Energies, momenta, the direct-sum reference and the force-error summary.
#include "sim/diagnostics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "sim/scenes.hpp"

namespace nbl {
namespace {

Bodies two_bodies() {
  Bodies b;
  b.resize(2);
  b.x = {0.0f, 3.0f};
  b.y = {0.0f, 4.0f};
  b.z = {0.0f, 0.0f};
  b.vx = {1.0f, 0.0f};
  b.vy = {0.0f, -2.0f};
  b.vz = {0.0f, 0.0f};
  b.mass = {2.0f, 0.5f};
  return b;
}

TEST(Diagnostics, EnergyOfTwoBodiesMatchesHandComputation) {
  const Bodies b = two_bodies();
  const EnergyReport e = energy(b, 0.0);
  EXPECT_DOUBLE_EQ(e.kinetic, 0.5 * 2.0 * 1.0 + 0.5 * 0.5 * 4.0);
  EXPECT_DOUBLE_EQ(e.potential, -2.0 * 0.5 / 5.0);
  EXPECT_DOUBLE_EQ(e.total, e.kinetic + e.potential);
  EXPECT_FALSE(e.sampled);
  EXPECT_EQ(e.potential_error, 0.0);
  // Softening enters as sqrt(r^2 + eps^2).
  EXPECT_DOUBLE_EQ(energy(b, 1.0).potential, -1.0 / std::sqrt(26.0));
}

TEST(Diagnostics, SampledPotentialAgreesWithExactWithinItsError) {
  const Bodies b = make_scene(Scene::plummer, 6000, 3);
  const EnergyReport exact = energy(b, 0.02);
  const EnergyReport sampled = energy(b, 0.02, /*exact_limit=*/1000, /*samples=*/800, /*seed=*/5);
  ASSERT_TRUE(sampled.sampled);
  EXPECT_GT(sampled.potential_error, 0.0);
  EXPECT_LT(sampled.potential_error, 0.05 * std::abs(exact.potential));
  EXPECT_NEAR(sampled.potential, exact.potential, 4 * sampled.potential_error);
  EXPECT_DOUBLE_EQ(sampled.kinetic, exact.kinetic);
}

TEST(Diagnostics, MomentaMatchHandComputation) {
  const Bodies b = two_bodies();
  const auto p = linear_momentum(b);
  EXPECT_DOUBLE_EQ(p[0], 2.0);
  EXPECT_DOUBLE_EQ(p[1], -1.0);
  EXPECT_DOUBLE_EQ(p[2], 0.0);
  const auto l = angular_momentum(b);
  // Body 2: r = (3, 4, 0), m v = (0, -1, 0): L_z = 3 * -1 - 4 * 0 = -3. Body 1 sits at the origin.
  EXPECT_DOUBLE_EQ(l[0], 0.0);
  EXPECT_DOUBLE_EQ(l[1], 0.0);
  EXPECT_DOUBLE_EQ(l[2], -3.0);
}

TEST(Diagnostics, ReferenceAccelerationsMatchHandComputation) {
  Bodies b = two_bodies();
  const Accelerations a = reference_accelerations(b, 0.0);
  ASSERT_EQ(a.size(), 2u);
  // |d| = 5: a_1 = m_2 d / 125 toward body 2; a_2 = m_1 d / 125 toward body 1.
  EXPECT_DOUBLE_EQ(a.x[0], 0.5 * 3.0 / 125.0);
  EXPECT_DOUBLE_EQ(a.y[0], 0.5 * 4.0 / 125.0);
  EXPECT_DOUBLE_EQ(a.x[1], -2.0 * 3.0 / 125.0);
  EXPECT_DOUBLE_EQ(a.y[1], -2.0 * 4.0 / 125.0);
  EXPECT_EQ(a.z[0], 0.0);
}

TEST(Diagnostics, ReferenceNeverMeetsItselfEvenWithoutSoftening) {
  Bodies b;
  b.resize(1);
  b.mass = {1.0f};
  const Accelerations a = reference_accelerations(b, 0.0);
  EXPECT_EQ(a.x[0], 0.0);
  EXPECT_EQ(a.y[0], 0.0);
  EXPECT_EQ(a.z[0], 0.0);
}

TEST(Diagnostics, ReferenceForSubsetEqualsSelectedRowsOfFullReference) {
  const Bodies b = make_scene(Scene::cube, 500, 2);
  const auto indices = sample_indices(b.size(), 37, 9);
  const Accelerations all = reference_accelerations(b, 0.01);
  const Accelerations some = reference_accelerations(b, 0.01, indices);
  const Accelerations picked = select(all, indices);
  ASSERT_EQ(some.size(), indices.size());
  for (std::size_t k = 0; k < indices.size(); ++k) {
    EXPECT_DOUBLE_EQ(some.x[k], picked.x[k]);
    EXPECT_DOUBLE_EQ(some.y[k], picked.y[k]);
    EXPECT_DOUBLE_EQ(some.z[k], picked.z[k]);
  }
}

TEST(Diagnostics, SampleIndicesAreDistinctInRangeAndSeeded) {
  const auto a = sample_indices(1000, 100, 1);
  ASSERT_EQ(a.size(), 100u);
  const std::set<std::size_t> unique(a.begin(), a.end());
  EXPECT_EQ(unique.size(), 100u);
  EXPECT_LT(*unique.rbegin(), 1000u);
  EXPECT_EQ(a, sample_indices(1000, 100, 1));
  EXPECT_NE(a, sample_indices(1000, 100, 2));
  const auto all = sample_indices(5, 10, 1);
  EXPECT_EQ(all, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

Accelerations filled(std::size_t n, double value) {
  Accelerations a;
  a.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    a.x[i] = value * (1.0 + i);
    a.y[i] = -value;
    a.z[i] = 0.5 * value;
  }
  return a;
}

TEST(Diagnostics, ForceErrorOfIdenticalAccelerationsIsZero) {
  const Accelerations a = filled(10, 1.0);
  const ForceError e = force_error(a, a);
  EXPECT_FALSE(e.non_finite);
  EXPECT_EQ(e.count, 10u);
  EXPECT_EQ(e.relative_norm, 0.0);
  EXPECT_EQ(e.rms, 0.0);
  EXPECT_EQ(e.max, 0.0);
  EXPECT_GT(e.reference_rms, 0.0);
  EXPECT_EQ(e.normalized_rms, 0.0);
  EXPECT_EQ(e.normalized_max, 0.0);
}

TEST(Diagnostics, ForceErrorMeasuresRelativeDeviation) {
  const Accelerations ref = filled(100, 1.0);
  Accelerations approx = ref;
  for (std::size_t i = 0; i < 100; ++i) {
    approx.x[i] *= 1.01;
    approx.y[i] *= 1.01;
    approx.z[i] *= 1.01;
  }
  approx.x[99] = ref.x[99] * 1.5;  // one outlier
  approx.y[99] = ref.y[99] * 1.5;
  approx.z[99] = ref.z[99] * 1.5;
  const ForceError e = force_error(approx, ref);
  EXPECT_NEAR(e.median, 0.01, 1e-12);
  EXPECT_NEAR(e.p99, 0.01, 1e-12);  // 99 of 100 values are 0.01
  EXPECT_NEAR(e.max, 0.5, 1e-12);
  EXPECT_GT(e.rms, 0.01);
  EXPECT_GT(e.relative_norm, 0.01);
}

TEST(Diagnostics, NormalizedForceErrorIsRelativeToTheSampleRmsAcceleration) {
  // Two bodies pulled hard (|a| = 3 and 4 along x) and two where the pulls nearly cancel (|a| = 1e-6).
  // An error of 1e-3 on every body is 1e-3 / 1e-6 = 1000 relative to the cancelling bodies' own
  // acceleration, but small against the typical acceleration of the sample.
  Accelerations ref;
  ref.resize(4);
  ref.x = {3.0, 4.0, 1e-6, -1e-6};
  ref.y = {0.0, 0.0, 0.0, 0.0};
  ref.z = {0.0, 0.0, 0.0, 0.0};
  Accelerations approx = ref;
  for (std::size_t i = 0; i < 4; ++i) approx.y[i] = 1e-3;
  const ForceError e = force_error(approx, ref);
  const double rms = std::sqrt((9.0 + 16.0 + 2e-12) / 4.0);  // 2.5
  EXPECT_NEAR(e.reference_rms, rms, 1e-12);
  EXPECT_NEAR(e.max, 1000.0, 1e-6);  // the per-body figure blows up where the pulls cancel
  EXPECT_NEAR(e.normalized_max, 1e-3 / rms, 1e-15);
  EXPECT_NEAR(e.normalized_p99, 1e-3 / rms, 1e-15);
  EXPECT_NEAR(e.normalized_median, 1e-3 / rms, 1e-15);
  EXPECT_NEAR(e.normalized_rms, 1e-3 / rms, 1e-15);
  EXPECT_NEAR(e.normalized_rms, e.relative_norm, 1e-15);

  // Order statistics of the normalized error: one body of four wrong by 0.5 along y.
  approx = ref;
  approx.y[0] = 0.5;
  const ForceError one = force_error(approx, ref);
  EXPECT_EQ(one.normalized_median, 0.0);
  EXPECT_NEAR(one.normalized_p99, 0.5 / rms, 1e-15);
  EXPECT_NEAR(one.normalized_max, 0.5 / rms, 1e-15);
  EXPECT_NEAR(one.normalized_rms, std::sqrt(0.25 / 4) / rms, 1e-15);
}

TEST(Diagnostics, NormalizedForceErrorOfAllZeroReferenceIsZeroOrInfinite) {
  Accelerations zero;
  zero.resize(3);
  EXPECT_EQ(force_error(zero, zero).normalized_max, 0.0);
  Accelerations off = zero;
  off.z[1] = 1e-9;
  const ForceError e = force_error(off, zero);
  EXPECT_FALSE(e.non_finite);
  EXPECT_TRUE(std::isinf(e.normalized_max));
  EXPECT_TRUE(std::isinf(e.normalized_p99));
}

TEST(Diagnostics, ForceErrorFlagsNaNAndInfAsInfinitelyWrong) {
  const Accelerations ref = filled(50, 1.0);
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    Accelerations poisoned = ref;
    poisoned.y[17] = bad;
    // A bad approximation, or a bad reference: neither may pass.
    for (const ForceError& e : {force_error(poisoned, ref), force_error(ref, poisoned)}) {
      EXPECT_TRUE(e.non_finite);
      for (double figure : {e.relative_norm, e.rms, e.median, e.p99, e.max, e.reference_rms, e.normalized_rms,
                            e.normalized_median, e.normalized_p99, e.normalized_max}) {
        EXPECT_TRUE(std::isinf(figure));
        EXPECT_FALSE(figure <= 0.02);  // no tolerance can pass
      }
    }
  }
}

TEST(Diagnostics, VirialSpeedIsSqrtOfMassOverHalfMassRadius) {
  Bodies b;
  b.resize(4);
  // Unit masses at x = -2, -1, 1, 2 (and y = 5, an offset the centre removes): centre x = 0, distances
  // 2, 1, 1, 2, half-mass radius 1.5, so sqrt(4 / 1.5).
  b.x = {-2, -1, 1, 2};
  b.y = {5, 5, 5, 5};
  b.mass = {1, 1, 1, 1};
  EXPECT_NEAR(virial_speed(b), std::sqrt(4.0 / 1.5), 1e-12);
  // One far body barely moves the scale: it is one body of five, not a lever arm of 1e20.
  b.resize(5);
  b.x[4] = 1e20f;
  b.mass[4] = 1;
  EXPECT_GT(virial_speed(b), 1.0);
  b.resize(4);
  b.x = {2, 2, 2, 2};
  EXPECT_TRUE(std::isinf(virial_speed(b)));  // no radius
  b.x = {-2, -1, 1, 2};
  b.mass = {0, 0, 0, 0};
  EXPECT_EQ(virial_speed(b), 0.0);  // no mass
}

TEST(Diagnostics, AllFiniteDetectsNaNInAnyField) {
  const Bodies good = make_scene(Scene::cube, 10, 1);
  EXPECT_TRUE(all_finite(good));
  for (auto field : {&Bodies::x, &Bodies::y, &Bodies::z, &Bodies::vx, &Bodies::vy, &Bodies::vz, &Bodies::mass}) {
    Bodies bad = good;
    (bad.*field)[4] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(all_finite(bad));
    (bad.*field)[4] = -std::numeric_limits<float>::infinity();
    EXPECT_FALSE(all_finite(bad));
  }
}

}  // namespace
}  // namespace nbl
