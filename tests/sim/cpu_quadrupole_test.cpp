// Quadrupole cells in the CPU Barnes-Hut backend (bh_moments = quadrupole): every cell's
// moments against the direct sums of its bodies, the same walk and interaction count as the monopole
// with a smaller error at every theta, a switch that takes effect at the next force evaluation, and
// every hard geometry (sim/geometry_cases.hpp) within the theta bound on the RMS-normalized error (the error
// against the sample's RMS acceleration, sim/diagnostics.hpp). Fresh random inputs every run; the
// seed is printed on failure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <cstdlib>
#include <random>
#include <string>

#include "sim/accuracy.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

using test::fresh_seed;

Settings bh_settings(double theta, double softening, bool quadrupole) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  s.dt = 0.0;  // nothing moves: every force pass sees the bodies it was given
  s.softening = softening;
  s.opening_angle = theta;
  s.toggles.set({"bh_opening", "geometric"});  // a study of theta: cells open by it
  if (quadrupole) s.toggles.set({"bh_moments", "quadrupole"});
  return s;
}

// One force pass, its statistics and its error on a sample against the double-precision direct sum.
struct Measured {
  StepStats stats;  // of the first step: two force passes over the same bodies (dt = 0)
  ForceError error;
  double interactions = 0;  // of one force pass
};

Measured measure(const Bodies& bodies, const Settings& s, const std::vector<std::size_t>& sample,
                 const Accelerations& reference) {
  auto backend = make_cpu_barneshut(s);
  backend->set_bodies(bodies);
  Measured m;
  m.stats = backend->step();  // the first step evaluates the forces at its start and at its end
  m.interactions = m.stats.interactions / 2;
  Accelerations approx;
  backend->compute_accelerations(approx);
  m.error = force_error(select(approx, sample), reference);
  return m;
}

std::string describe(const Measured& m) {
  return "error / RMS accel p99 " + std::to_string(m.error.normalized_p99) + ", max " +
         std::to_string(m.error.normalized_max) + "; per body p99 " + std::to_string(m.error.p99) + "; " +
         std::to_string(m.interactions) + " interactions" + (m.error.non_finite ? " (NaN/inf!)" : "");
}

TEST(CpuQuadrupole, CellMomentsEqualTheDirectSumsOfTheirBodies) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // A Plummer sphere (deep, uneven cells) with a few bodies on top of others (merged point masses).
  Bodies bodies = make_scene(Scene::plummer, 6000, seed);
  for (std::size_t i = 0; i < 20; ++i) {
    bodies.x[100 + i] = bodies.x[i], bodies.y[100 + i] = bodies.y[i], bodies.z[100 + i] = bodies.z[i];
  }
  const std::vector<CpuOctreeCell> cells = cpu_octree_cells(bodies);
  ASSERT_GT(cells.size(), 100u);
  EXPECT_EQ(cells[0].bodies.size(), bodies.size());  // the root holds them all
  std::size_t checked = 0;
  for (const CpuOctreeCell& cell : cells) {
    double mass = 0, com[3] = {0, 0, 0};
    for (std::size_t b : cell.bodies) {
      mass += bodies.mass[b];
      com[0] += bodies.mass[b] * double(bodies.x[b]);
      com[1] += bodies.mass[b] * double(bodies.y[b]);
      com[2] += bodies.mass[b] * double(bodies.z[b]);
    }
    for (double& c : com) c /= mass;
    double q[3][3] = {}, trace = 0;  // sum m (3 d d^T - |d|^2 I), and sum m |d|^2 for its scale
    for (std::size_t b : cell.bodies) {
      const double d[3] = {bodies.x[b] - com[0], bodies.y[b] - com[1], bodies.z[b] - com[2]};
      const double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      trace += bodies.mass[b] * d2;
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) q[a][c] += bodies.mass[b] * (3 * d[a] * d[c] - (a == c ? d2 : 0.0));
    }
    // Each figure is computed in double and rounded to float once; merged bodies' masses are summed in
    // float first, which moves the centre by a few 1e-8 of the cell's spread at most.
    const double spread = std::sqrt(trace / mass);
    EXPECT_NEAR(cell.mass, mass, 2e-7 * mass);
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(cell.com[a], com[a], 1.2e-7 * std::abs(com[a]) + 1e-7 * spread + 1e-30);
    const double tolerance = 1e-6 * trace + 1e-30;
    EXPECT_NEAR(cell.quadrupole.xx, q[0][0], tolerance);
    EXPECT_NEAR(cell.quadrupole.yy, q[1][1], tolerance);
    EXPECT_NEAR(-(double(cell.quadrupole.xx) + cell.quadrupole.yy), q[2][2], 2 * tolerance);
    EXPECT_NEAR(cell.quadrupole.xy, q[0][1], tolerance);
    EXPECT_NEAR(cell.quadrupole.xz, q[0][2], tolerance);
    EXPECT_NEAR(cell.quadrupole.yz, q[1][2], tolerance);
    EXPECT_NEAR(cell.quadrupole.trace, trace, 2e-7 * trace + 1e-30);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "cell " << (&cell - cells.data()) << " of " << cell.bodies.size() << " bodies";
      break;
    }
    ++checked;
  }
  EXPECT_EQ(checked, cells.size());
}

TEST(CpuQuadrupole, PlummerErrorIsBelowTheMonopolesAtEveryThetaForTheSameInteractions) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t n = 20000;
  const Bodies bodies = make_scene(Scene::plummer, n, seed);
  const double softening = scene_defaults(Scene::plummer, n).softening;
  const auto sample = sample_indices(n, 2000, seed);
  const Accelerations reference = reference_accelerations(bodies, softening, sample);
  for (double theta : {0.3, 0.5, 0.7}) {
    const Measured mono = measure(bodies, bh_settings(theta, softening, false), sample, reference);
    const Measured quad = measure(bodies, bh_settings(theta, softening, true), sample, reference);
    SCOPED_TRACE("theta " + std::to_string(theta) + ": monopole " + describe(mono) + "; quadrupole " + describe(quad));
    ASSERT_FALSE(mono.error.non_finite);
    ASSERT_FALSE(quad.error.non_finite);
    // The same tree, the same criterion, the same walk: only what a far cell contributes differs.
    EXPECT_EQ(quad.interactions, mono.interactions);
    EXPECT_EQ(quad.stats.tree.nodes_touched.avg, mono.stats.tree.nodes_touched.avg);
    // Over 250 seeds the quadrupoles' p99 relative to the RMS acceleration was at most 0.60, 0.81 and
    // 0.95 of the monopoles' at theta 0.3, 0.5 and 0.7 (medians 0.47, 0.70, 0.86): the gain shrinks as
    // the next term a quadrupole leaves out, of order theta^3, catches up with the monopole's theta^2.
    // Single bodies are another matter: the monopoles' error happens to be smaller for some of them,
    // so the max per body, and at 0.5 and above even the p99 per body of 2,000, came out above the
    // monopoles' now and then (at most 1.08x the p99 and 1.22x the max; below them at 0.3, at most
    // 0.70x and 0.87x). The formula itself is pinned by physics_gravity_tests (Quadrupole.*); here the
    // claim is that the walk's quadrupoles pay off on a sphere.
    EXPECT_LT(quad.error.normalized_p99, mono.error.normalized_p99);
    const double slack = theta <= 0.3 ? 1.0 : 1.4;
    EXPECT_LT(quad.error.p99, slack * mono.error.p99);
    EXPECT_LT(quad.error.normalized_max, slack * mono.error.normalized_max);
    const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, theta);
    EXPECT_LE(quad.error.normalized_p99, bound.p99);
    EXPECT_LE(quad.error.normalized_max, bound.max);
  }
}

TEST(CpuQuadrupole, SwitchingMomentsTakesEffectAtTheNextForceEvaluation) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t n = 3000;
  const Bodies bodies = make_scene(Scene::plummer, n, seed);
  const double softening = scene_defaults(Scene::plummer, n).softening;
  auto forces_of = [&](Backend& backend) {
    Accelerations a;
    backend.compute_accelerations(a);
    return a;
  };
  auto fresh = [&](bool quadrupole) {
    auto backend = make_cpu_barneshut(bh_settings(0.6, softening, quadrupole));
    backend->set_bodies(bodies);
    return forces_of(*backend);
  };
  const Accelerations monopole = fresh(false), quadrupole = fresh(true);
  ASSERT_GT(force_error(quadrupole, monopole).relative_norm, 1e-6) << "the two orders should differ";

  auto backend = make_cpu_barneshut(bh_settings(0.6, softening, false));
  backend->set_bodies(bodies);
  EXPECT_EQ(force_error(forces_of(*backend), monopole).max, 0.0);
  backend->configure(bh_settings(0.6, softening, true));
  EXPECT_EQ(force_error(forces_of(*backend), quadrupole).max, 0.0);
  backend->configure(bh_settings(0.6, softening, false));
  backend->step();  // a step starts from the forces of the current order too (dt = 0: same bodies)
  EXPECT_EQ(force_error(forces_of(*backend), monopole).max, 0.0);
}

// The hard inputs (sim/geometry_cases.hpp) with quadrupole cells, at theta 0.5 and 0.7: each within the theta
// bound (sim/accuracy.hpp) on the RMS-normalized error, and at most twice the Plummer sphere's
// interactions per body. Where the expansion about a cell's centre of mass converges for every cell
// the criterion accepts (theta < 1/sqrt(3): every body of a cell lies within sqrt(3) edges of its
// centre of mass), also what tests/sim/geometry_test.cpp holds the monopole to: at most twice the
// sphere's error, p99 against the sphere's with quadrupoles, max against its monopole figure. (A
// single body's maximum is noisy, and the quadrupole gains less on a pile of coincident bodies than
// on the sphere: twice its own sphere's max is exceeded on some seeds.)
TEST(CpuQuadrupole, EveryGeometryCaseStaysWithinTheThetaBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t n = 20000;
  const double softening = scene_defaults(Scene::plummer, n).softening;
  const double thetas[] = {0.5, 0.7};
  struct Sphere {
    Measured monopole, quadrupole;
  };
  std::optional<Sphere> sphere[2];
  for (GeometryCase c : kGeometryCases) {
    const Bodies bodies = make_geometry_case(c, n, seed);
    const auto sample = sample_indices(bodies.size(), 2000, seed);
    const Accelerations reference = reference_accelerations(bodies, softening, sample);
    for (int k = 0; k < 2; ++k) {
      const double theta = thetas[k];
      const Measured m = measure(bodies, bh_settings(theta, softening, true), sample, reference);
      SCOPED_TRACE(std::string(to_string(c)) + " at theta " + std::to_string(theta) + ": " + describe(m) +
                   (sphere[k] ? "; plummer: " + describe(sphere[k]->quadrupole) +
                                    "; its monopole: " + describe(sphere[k]->monopole)
                              : std::string()));
      const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, theta);
      EXPECT_FALSE(m.error.non_finite);
      EXPECT_LE(m.error.normalized_p99, bound.p99);
      EXPECT_LE(m.error.normalized_max, bound.max);
      if (!sphere[k]) {
        sphere[k] = Sphere{measure(bodies, bh_settings(theta, softening, false), sample, reference), m};
        continue;
      }
      EXPECT_LE(m.interactions / double(bodies.size()), 2 * sphere[k]->quadrupole.interactions / double(n));
      if (theta < 1 / std::sqrt(3.0)) {
        EXPECT_LE(m.error.normalized_p99, 2 * sphere[k]->quadrupole.error.normalized_p99);
        EXPECT_LE(m.error.normalized_max, 2 * sphere[k]->monopole.error.normalized_max);
      }
    }
  }
}

TEST(CpuQuadrupole, UnsoftenedForcesStayFiniteAndAccurate) {
  // Without softening a far cell's distance must never be zero: quadrupole terms divide by r^7.
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t n = 5000;
  const Bodies bodies = make_scene(Scene::plummer, n, seed);
  const auto sample = sample_indices(n, 1000, seed);
  const Measured m = measure(bodies, bh_settings(0.5, 0.0, true), sample, reference_accelerations(bodies, 0.0, sample));
  EXPECT_FALSE(m.error.non_finite) << describe(m);
  EXPECT_LE(m.error.normalized_max, force_error_bound(Algorithm::barneshut, false, 0.5).max) << describe(m);
}

}  // namespace
}  // namespace nbl
