// The quadrupole term of the force law (physics/gravity.hpp): its moment from second moments equals the
// direct sum over the bodies, its signs match a hand expansion, and for clusters of random bodies its
// error against the direct sum of their pulls falls as (size / distance)^3, one order faster than the
// monopole's (size / distance)^2, without softening and with it. Everything in double, so only the
// expansion's truncation is measured. Several fixed seeds: each cluster is random, the test repeatable.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "physics/gravity.hpp"

namespace nbl {
namespace {

using Vec = std::array<double, 3>;

// A cluster of bodies of random masses at random positions in a cube of edge `size` about a random
// centre near the origin, with its mass, centre of mass and second moments about that centre.
struct Cluster {
  std::vector<Vec> position;
  std::vector<double> mass;
  double total = 0;
  Vec com{0, 0, 0};
  double sxx = 0, syy = 0, szz = 0, sxy = 0, sxz = 0, syz = 0;

  Cluster(std::uint64_t seed, int count, double size) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-0.5, 0.5), weight(0.1, 1.0);
    const Vec centre{0.3 * size * unit(rng), 0.3 * size * unit(rng), 0.3 * size * unit(rng)};
    for (int k = 0; k < count; ++k) {
      position.push_back({centre[0] + size * unit(rng), centre[1] + size * unit(rng), centre[2] + size * unit(rng)});
      mass.push_back(weight(rng));
    }
    for (int k = 0; k < count; ++k) {
      total += mass[k];
      for (int a = 0; a < 3; ++a) com[a] += mass[k] * position[k][a];
    }
    for (double& c : com) c /= total;
    for (int k = 0; k < count; ++k) {
      const Vec d = offset(k);
      sxx += mass[k] * d[0] * d[0], syy += mass[k] * d[1] * d[1], szz += mass[k] * d[2] * d[2];
      sxy += mass[k] * d[0] * d[1], sxz += mass[k] * d[0] * d[2], syz += mass[k] * d[1] * d[2];
    }
  }
  Vec offset(int k) const { return {position[k][0] - com[0], position[k][1] - com[1], position[k][2] - com[2]}; }

  // sum_k m_k (3 d_k d_k^T - |d_k|^2 I), d_k from the centre of mass: the definition, term by term.
  std::array<std::array<double, 3>, 3> quadrupole_by_definition() const {
    std::array<std::array<double, 3>, 3> q{};
    for (std::size_t k = 0; k < mass.size(); ++k) {
      const Vec d = offset(static_cast<int>(k));
      const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) q[a][b] += mass[k] * (3 * d[a] * d[b] - (a == b ? d2 : 0.0));
    }
    return q;
  }

  // The pull of every body on a point at `at`: the truth both expansions approximate.
  Vec direct(const Vec& at, double eps2) const {
    Vec a{0, 0, 0};
    for (std::size_t k = 0; k < mass.size(); ++k)
      accumulate_acceleration(position[k][0] - at[0], position[k][1] - at[1], position[k][2] - at[2], mass[k], eps2,
                              a[0], a[1], a[2]);
    return a;
  }
  Vec monopole(const Vec& at, double eps2) const {
    Vec a{0, 0, 0};
    accumulate_acceleration(com[0] - at[0], com[1] - at[1], com[2] - at[2], total, eps2, a[0], a[1], a[2]);
    return a;
  }
  Vec quadrupole(const Vec& at, double eps2) const {
    // Through the float Quadrupole the walks use, so its rounding is part of what is measured.
    const Quadrupole q = quadrupole_from_second_moments(sxx, syy, szz, sxy, sxz, syz);
    Vec a{0, 0, 0};
    accumulate_quadrupole(com[0] - at[0], com[1] - at[1], com[2] - at[2], total, double(q.xx), double(q.yy),
                          double(q.xy), double(q.xz), double(q.yz), double(q.trace), eps2, a[0], a[1], a[2]);
    return a;
  }
};

double relative_error(const Vec& approx, const Vec& exact) {
  return std::hypot(approx[0] - exact[0], approx[1] - exact[1], approx[2] - exact[2]) /
         std::hypot(exact[0], exact[1], exact[2]);
}

// RMS over many directions of each expansion's relative error at `distance` from the cluster's centre
// of mass: one direction can meet a chance zero of the next term, the RMS cannot.
struct Errors {
  double monopole = 0, quadrupole = 0;
};
Errors errors_at(const Cluster& c, double distance, double eps2) {
  std::mt19937_64 rng(99);
  std::normal_distribution<double> gauss;
  Errors e;
  const int directions = 200;
  for (int k = 0; k < directions; ++k) {
    Vec u{gauss(rng), gauss(rng), gauss(rng)};
    const double norm = std::hypot(u[0], u[1], u[2]);
    const Vec at{c.com[0] + distance * u[0] / norm, c.com[1] + distance * u[1] / norm,
                 c.com[2] + distance * u[2] / norm};
    const Vec exact = c.direct(at, eps2);
    e.monopole += std::pow(relative_error(c.monopole(at, eps2), exact), 2);
    e.quadrupole += std::pow(relative_error(c.quadrupole(at, eps2), exact), 2);
  }
  e.monopole = std::sqrt(e.monopole / directions);
  e.quadrupole = std::sqrt(e.quadrupole / directions);
  return e;
}

TEST(Quadrupole, FromSecondMomentsEqualsTheDirectSumOverTheBodies) {
  for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
    for (int count : {2, 7, 64}) {
      const Cluster c(seed, count, 0.8);
      const auto exact = c.quadrupole_by_definition();
      const Quadrupole q = quadrupole_from_second_moments(c.sxx, c.syy, c.szz, c.sxy, c.sxz, c.syz);
      // Float storage: each component within float rounding of the moment's scale, sum m |d|^2.
      const double scale = c.sxx + c.syy + c.szz;
      const double tolerance = 1e-6 * scale;
      SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(count) + " bodies");
      EXPECT_NEAR(q.xx, exact[0][0], tolerance);
      EXPECT_NEAR(q.yy, exact[1][1], tolerance);
      EXPECT_NEAR(-(double(q.xx) + q.yy), exact[2][2], 2 * tolerance);  // traceless: zz is not stored
      EXPECT_NEAR(q.xy, exact[0][1], tolerance);
      EXPECT_NEAR(q.xz, exact[0][2], tolerance);
      EXPECT_NEAR(q.yz, exact[1][2], tolerance);
      EXPECT_NEAR(q.trace, scale, 1e-7 * scale);
    }
  }
}

TEST(Quadrupole, DumbbellMatchesTheHandExpansionAlongAndAcrossItsAxis) {
  // Masses m at x = +-a: Q = diag(4, -2, -2) m a^2. On the axis at distance D the pull is
  // 2m/D^2 (1 + 3 a^2/D^2 + ...), across it 2m/D^2 (1 - 3/2 a^2/D^2 + ...), both toward the centre.
  const double m = 1.5, a = 0.1, D = 3.0;
  const double qxx = 4 * m * a * a, qyy = -2 * m * a * a, trace = 2 * m * a * a;
  double ax = 0, ay = 0, az = 0;
  accumulate_quadrupole(-D, 0.0, 0.0, 2 * m, qxx, qyy, 0.0, 0.0, 0.0, trace, 0.0, ax, ay, az);  // body at (D, 0, 0)
  EXPECT_DOUBLE_EQ(ax, -2 * m / (D * D) * (1 + 3 * a * a / (D * D)));
  EXPECT_EQ(ay, 0.0);
  EXPECT_EQ(az, 0.0);
  ax = ay = az = 0;
  accumulate_quadrupole(0.0, -D, 0.0, 2 * m, qxx, qyy, 0.0, 0.0, 0.0, trace, 0.0, ax, ay, az);  // body at (0, D, 0)
  EXPECT_DOUBLE_EQ(ay, -2 * m / (D * D) * (1 - 1.5 * a * a / (D * D)));
  EXPECT_EQ(ax, 0.0);
  EXPECT_EQ(az, 0.0);
  // And both agree with the two bodies summed directly to the order the expansion neglects, (a/D)^4.
  double ex = 0, ey = 0, ez = 0;
  accumulate_acceleration(a - D, 0.0, 0.0, m, 0.0, ex, ey, ez);
  accumulate_acceleration(-a - D, 0.0, 0.0, m, 0.0, ex, ey, ez);
  EXPECT_NEAR(-2 * m / (D * D) * (1 + 3 * a * a / (D * D)), ex, 2 * m / (D * D) * 10 * std::pow(a / D, 4));
}

TEST(Quadrupole, WithoutQuadrupoleItIsTheMonopole) {
  double qx = 0, qy = 0, qz = 0, mx = 0, my = 0, mz = 0;
  accumulate_quadrupole(0.3, -1.2, 2.0, 0.7, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.01, qx, qy, qz);
  accumulate_acceleration(0.3, -1.2, 2.0, 0.7, 0.01, mx, my, mz);
  EXPECT_DOUBLE_EQ(qx, mx);
  EXPECT_DOUBLE_EQ(qy, my);
  EXPECT_DOUBLE_EQ(qz, mz);
}

TEST(Quadrupole, AtADistanceWhoseSquareOverflowsFloatItAddsZeroLikeTheMonopole) {
  // A far outlier at x = 1e20 (a case of sim/geometry_cases.hpp) sees a whole sphere as one far cell: |d|^2 = 1e40 is
  // inf in float, and the pull (1e-40) is below float's range. The monopole adds 0; so must this.
  for (float distance : {1e20f, -3e19f, 1e30f}) {
    float ax = 0, ay = 0, az = 0, mx = 0, my = 0, mz = 0;
    accumulate_quadrupole(distance, 0.5f, -0.25f, 1.0f, 0.8f, -0.3f, 0.2f, -0.1f, 0.05f, 1.2f, 1e-4f, ax, ay, az);
    accumulate_quadrupole<true>(distance, 0.5f, -0.25f, 1.0f, 0.8f, -0.3f, 0.2f, -0.1f, 0.05f, 1.2f, 1e-4f, ax, ay, az);
    accumulate_acceleration(distance, 0.5f, -0.25f, 1.0f, 1e-4f, mx, my, mz);
    EXPECT_EQ(ax, mx) << distance;
    EXPECT_EQ(ay, my) << distance;
    EXPECT_EQ(az, mz) << distance;
    EXPECT_EQ(ax, 0.0f) << distance;
  }
  // At the other end, without softening, a tiny cluster 1e-12 away, where 1/r^5 and 1/r^7 overflow
  // float but the monopole's 1/r^3 does not: on its x axis, with Q = diag(q, -q, 0), the pull is
  // (m + 3/2 q / d^2) / d^2.
  const float d = 1e-12f, m = 1e-4f, q = 1e-7f * d * d;
  float ax = 0, ay = 0, az = 0;
  accumulate_quadrupole(d, 0.0f, 0.0f, m, q, -q, 0.0f, 0.0f, 0.0f, q, 0.0f, ax, ay, az);
  const double expected = (double(m) + 1.5 * double(q) / (double(d) * d)) / (double(d) * d);
  EXPECT_NEAR(ax, expected, 1e-6 * expected);
  EXPECT_EQ(ay, 0.0f);
  EXPECT_EQ(az, 0.0f);
}

TEST(Quadrupole, ErrorFallsAsTheCubeOfSizeOverDistanceAndBeatsTheMonopole) {
  const double size = 1.0;
  for (std::uint64_t seed : {11u, 12u, 13u, 14u, 15u, 16u}) {
    const Cluster c(seed, 40, size);
    SCOPED_TRACE("seed " + std::to_string(seed));
    Errors previous{};
    for (double distance : {3.0, 6.0, 12.0, 24.0, 48.0}) {
      const Errors e = errors_at(c, distance, 0.0);
      SCOPED_TRACE("distance " + std::to_string(distance) + ": monopole " + std::to_string(e.monopole) +
                   ", quadrupole " + std::to_string(e.quadrupole));
      // The monopole's error is the quadrupole term, of order (size / distance)^2; what the quadrupole
      // leaves is the octupole's, of order (size / distance)^3. Already at three cluster sizes (a cell
      // seen at theta 1/3) it is less than half the monopole's.
      EXPECT_LT(e.quadrupole, 0.5 * e.monopole);
      if (distance > 3.0) {
        // Each doubling of the distance: the monopole's error falls by about 4, the quadrupole's by 8,
        // so the quadrupole's advantage doubles.
        const double monopole_fall = previous.monopole / e.monopole;
        const double quadrupole_fall = previous.quadrupole / e.quadrupole;
        EXPECT_GT(monopole_fall, 3.0);
        EXPECT_LT(monopole_fall, 5.5);
        EXPECT_GT(quadrupole_fall, 6.0);
        EXPECT_LT(quadrupole_fall, 11.0);
        EXPECT_GT(quadrupole_fall / monopole_fall, 1.6);
      }
      previous = e;
    }
  }
}

TEST(Quadrupole, WithSofteningItConvergesToTheSoftenedDirectSumAsFast) {
  // Softening as large as half the distance at every distance, so it never fades away: the expansion
  // of the softened potential (physics/gravity.hpp, with its tr(S) eps^2 term) still leaves an error of
  // order (size / distance)^3. Without that term the quadrupole term is wrong by order eps^2 / r^2 of
  // itself, an error of order (size / distance)^2 like the monopole's.
  const double size = 1.0;
  for (std::uint64_t seed : {21u, 22u, 23u, 24u}) {
    const Cluster c(seed, 40, size);
    SCOPED_TRACE("seed " + std::to_string(seed));
    Errors previous{};
    for (double distance : {3.0, 6.0, 12.0, 24.0}) {
      const double eps = 0.5 * distance;
      const Errors e = errors_at(c, distance, eps * eps);
      SCOPED_TRACE("distance " + std::to_string(distance) + ": monopole " + std::to_string(e.monopole) +
                   ", quadrupole " + std::to_string(e.quadrupole));
      EXPECT_LT(e.quadrupole, 0.5 * e.monopole);
      if (distance > 3.0) {
        EXPECT_GT(previous.monopole / e.monopole, 3.0);
        EXPECT_GT(previous.quadrupole / e.quadrupole, 6.0);
      }
      previous = e;
    }
  }
}

}  // namespace
}  // namespace nbl
