// Barnes-Hut on the CPU for any geometry: a far outlier, coincident and nearly coincident
// bodies, a line and a plane cost at most twice what a Plummer sphere of the same n costs, counted in
// operations (interactions and nodes touched per body, cells), never in seconds; and their forces
// stay within twice the sphere's error at the same settings, measured against the double-precision
// direct sum relative to the sample's RMS acceleration (the per-body relative error is meaningless
// where the pulls on a body cancel, as they do along a line). Each test runs with either opening test:
// relative to the pull (the default) and by the angle theta. Fresh random inputs every run; the seed
// is printed on failure.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "sim/cpu_backends.hpp"
#include "sim/diagnostics.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

using test::fresh_seed;

// What users run: the default opening test, tolerance, theta and cell moments (adaptive quadrupoles),
// and the same with cells opened by the angle.
const double kTheta = Settings{}.opening_angle;
struct Opening {
  const char* name;
  Choice choice;
};
void PrintTo(const Opening& o, std::ostream* os) { *os << o.name; }  // test names say which test

class CpuGeometry : public ::testing::TestWithParam<Opening> {};

// What one force pass of the CPU Barnes-Hut backend cost and how accurate it was.
struct Measured {
  StepStats stats;  // a step with exactly one force evaluation
  ForceError error;
  Accelerations approx;  // that pass's forces, for errors over other samples
  std::size_t bodies = 0;
  double interactions_per_body() const { return stats.interactions / static_cast<double>(bodies); }
};

// `softening` is the Plummer sphere's for its n in every case, so the cases differ only in geometry.
Measured measure(const Opening& opening, const Bodies& bodies, double softening, std::uint64_t seed) {
  Settings s;
  s.toggles.set(opening.choice);
  // A zero time step moves nothing: every force pass sees exactly these bodies (a real step would
  // let the nested and nearly coincident bodies below fall together within float resolution).
  s.dt = 0.0;
  s.softening = softening;
  s.opening_angle = kTheta;
  auto backend = make_cpu_barneshut(s);
  backend->set_bodies(bodies);
  backend->step();  // the first step evaluates the forces twice, at its start and at its end
  Measured m;
  m.stats = backend->step();
  m.bodies = bodies.size();
  backend->compute_accelerations(m.approx);  // the forces of that pass
  const auto indices = sample_indices(bodies.size(), 2000, seed);
  m.error = force_error(select(m.approx, indices), reference_accelerations(bodies, softening, indices));
  return m;
}

std::string describe(const Measured& m) {
  return std::to_string(m.interactions_per_body()) + " interactions and " +
         std::to_string(m.stats.tree.nodes_touched.avg) + " nodes touched per body, " +
         std::to_string(m.stats.tree.cells) + " cells, depth " + std::to_string(m.stats.tree.max_depth) +
         "; error / RMS accel p99 " + std::to_string(m.error.normalized_p99) + " max " +
         std::to_string(m.error.normalized_max) + (m.error.non_finite ? " (NaN/inf!)" : "");
}

// The sphere of the same n and seed, and the bounds every other case is held to.
struct Baseline {
  std::uint64_t seed;
  double softening;
  Measured plummer;
  Baseline(const Opening& opening, std::size_t n, std::uint64_t s)
      : seed(s),
        softening(scene_defaults(Scene::plummer, n).softening),
        plummer(measure(opening, make_geometry_case(GeometryCase::plummer, n, s), softening, s)) {}
};

void expect_accuracy_within_twice_plummer(const Measured& m, const Baseline& base) {
  ASSERT_FALSE(base.plummer.error.non_finite);
  EXPECT_FALSE(m.error.non_finite);
  // Infinite figures (NaN or inf anywhere) fail these comparisons too.
  EXPECT_LE(m.error.normalized_p99, 2 * base.plummer.error.normalized_p99) << describe(m);
  EXPECT_LE(m.error.normalized_max, 2 * base.plummer.error.normalized_max) << describe(m);
}

void expect_structure_bounded(const Measured& m) {
  // Every cell that is not a leaf has at least two children: fewer cells than 2n.
  EXPECT_LT(m.stats.tree.cells, 2 * static_cast<std::int64_t>(m.bodies)) << describe(m);
  EXPECT_GT(m.stats.tree.cells, 0);
  EXPECT_FALSE(m.stats.non_finite);
}

// Interactions and nodes touched per body (on average) within `factor` of the sphere's.
void expect_cost_within(double factor, const Measured& m, const Baseline& base) {
  EXPECT_LE(m.interactions_per_body(), factor * base.plummer.interactions_per_body()) << describe(m);
  EXPECT_LE(m.stats.tree.nodes_touched.avg, factor * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
}

// One case and the Plummer sphere of the same n, a fresh seed every run; `make` builds the case's bodies
// from the seed. SCOPED_TRACE(trace()) names the seed and the sphere's figures on any failure.
struct Trial {
  std::uint64_t seed;
  Baseline base;
  Measured m;
  template <typename Make>
  Trial(const Opening& opening, std::size_t n, Make make)
      : seed(fresh_seed()), base(opening, n, seed), m(measure(opening, make(seed), base.softening, seed)) {}
  Trial(const Opening& opening, GeometryCase c, std::size_t n)
      : Trial(opening, n, [&](std::uint64_t s) { return make_geometry_case(c, n, s); }) {}
  std::string trace() const { return "seed " + std::to_string(seed) + "; plummer: " + describe(base.plummer); }
};

TEST_P(CpuGeometry, FarOutlierCostsAtMostTwiceThePlummerSphere) {
  // Before the cells were shrunk to their bodies, every sphere body shared one leaf at the depth limit:
  // n - 1 interactions per body.
  const Trial t(GetParam(), GeometryCase::far_outlier, 20000);
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  expect_cost_within(2, m, base);
  EXPECT_LE(m.stats.tree.nodes_touched.max, 2 * base.plummer.stats.tree.nodes_touched.max) << describe(m);
  EXPECT_LE(m.stats.tree.max_depth, base.plummer.stats.tree.max_depth + 2) << describe(m);
  expect_structure_bounded(m);
  expect_accuracy_within_twice_plummer(m, base);
}

TEST_P(CpuGeometry, ThousandCoincidentBodiesCostAtMostTwiceTheSphereAlone) {
  const std::size_t n = 10000;
  const Trial t(GetParam(), GeometryCase::coincident, n);
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  ASSERT_EQ(m.bodies, n + 1000);
  // All of the step's interactions, not per body: the thousand added bodies pay their way too.
  EXPECT_LE(m.stats.interactions, 2 * base.plummer.stats.interactions) << describe(m);
  EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
  expect_structure_bounded(m);
  expect_accuracy_within_twice_plummer(m, base);
  // The notice says what happened to them: the thousand and the sphere's body 0 are one point mass.
  ASSERT_FALSE(m.stats.notices.empty());
  EXPECT_NE(m.stats.notices[0].find("1001 bodies sit on top of others"), std::string::npos) << m.stats.notices[0];
  EXPECT_NE(m.stats.notices[0].find("merged into 1 point mass"), std::string::npos) << m.stats.notices[0];
}

// The seeds whose thousand coincident bodies sat in a corner of their cell so that, at the default
// theta 0.65, cells were accepted for bodies within their bodies' reach, where the quadrupole expansion
// diverges: on this test's sample, max errors 5.9x, 3.2x and 4.3x the sphere's before cells counted at
// least their reach (physics/gravity.hpp, opening_size). Fixed seeds, so the case is tried every run.
TEST_P(CpuGeometry, CellsAreNeverAcceptedWithinTheirBodiesReach) {
  for (const std::uint64_t seed : {12396105022126748620ull, 11718588701966360123ull, 9883118096302771249ull}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Baseline base(GetParam(), 10000, seed);
    SCOPED_TRACE("plummer: " + describe(base.plummer));
    const Measured m =
        measure(GetParam(), make_geometry_case(GeometryCase::coincident, 10000, seed), base.softening, seed);
    expect_accuracy_within_twice_plummer(m, base);
  }
}

// A sphere of n bodies with as many again at distinct positions near the origin, `spacing` apart along
// x and over 13 rows of that spacing along y.
Bodies sphere_with_cluster(std::size_t n, std::uint64_t seed, float spacing) {
  Bodies bodies = make_geometry_case(GeometryCase::plummer, n, seed);
  bodies.resize(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    bodies.x[n + i] = spacing * static_cast<float>(i + 1);
    bodies.y[n + i] = -spacing * static_cast<float>((i * 7) % 13);
    bodies.mass[n + i] = bodies.mass[0];
  }
  return bodies;
}

TEST_P(CpuGeometry, NearlyCoincidentBodiesAreSeparatedAtBoundedCost) {
  // 10,000 distinct positions within 1e-13 of the origin, inside a sphere of 10,000: a grid halved
  // from the sphere's size cannot tell them apart within its old limit of 48 levels (2e-13), so they
  // used to share a leaf or two and meet each other directly, O(k^2): thousands of interactions per
  // body for these alone. Now they get cells of their own.
  const Trial t(GetParam(), 10000, [](std::uint64_t seed) { return sphere_with_cluster(10000, seed, 1e-17f); });
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  for (const std::string& notice : m.stats.notices) ADD_FAILURE() << notice;                // none merged, none capped
  EXPECT_GE(m.stats.tree.max_depth, base.plummer.stats.tree.max_depth + 5) << describe(m);  // really split
  expect_cost_within(2, m, base);
  expect_structure_bounded(m);
  expect_accuracy_within_twice_plummer(m, base);
}

TEST_P(CpuGeometry, BodiesCloserThanFloatsResolveAreOnePointMass) {
  // The same within 1e-29: squared distances of 1e-58 vanish in float, so no opening test can tell
  // these bodies apart. They are merged into one point mass, and the notice says so.
  const Trial t(GetParam(), 10000, [](std::uint64_t seed) { return sphere_with_cluster(10000, seed, 1e-33f); });
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  ASSERT_EQ(m.stats.notices.size(), 1u);
  EXPECT_NE(m.stats.notices[0].find("10000 bodies sit on top of others"), std::string::npos) << m.stats.notices[0];
  EXPECT_NE(m.stats.notices[0].find("merged into 1 point mass"), std::string::npos) << m.stats.notices[0];
  expect_cost_within(2, m, base);
  expect_structure_bounded(m);
  expect_accuracy_within_twice_plummer(m, base);
}

TEST_P(CpuGeometry, LineMeetsThePlummerAccuracyBoundAtBoundedCost) {
  // With the plain cube edge in the opening criterion this case's error was 14x the sphere's.
  const Trial t(GetParam(), GeometryCase::line, 20000);
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  expect_accuracy_within_twice_plummer(m, base);
  expect_cost_within(2, m, base);
  expect_structure_bounded(m);
}

TEST_P(CpuGeometry, PlaneMeetsThePlummerAccuracyBoundAtBoundedCost) {
  // With the plain cube edge in the opening criterion this case's error was 6x the sphere's.
  const Trial t(GetParam(), GeometryCase::plane, 20000);
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  expect_accuracy_within_twice_plummer(m, base);
  expect_cost_within(2, m, base);
  expect_structure_bounded(m);
}

// A percent of the bodies spread out to a thousand times the sphere's radius, as a long collision run
// ejects them. No angle may accept a cell as wide as its distance, so by angle every sphere body opens
// the sparse cells the ejecta fill around it at each scale they reach (1.27-1.35x the sphere's
// interactions here, 20 seeds), bounded by the general 2x. The relative test accepts such cells as
// light ones (physics/gravity.hpp, light_cell): 0.93-1.10x over 80 seeds, against 1.37-1.44x over 30
// without them (benchmarks/cpu/2026-11-25/light-cells/ejecta-test-spread.log). At 20,000 bodies the seeds
// spread too widely for a bound between the two (0.95-1.13x against 1.18-1.32x).
TEST_P(CpuGeometry, EjectaCostLittleByTheRelativeTestAndAtMostTwiceByAngle) {
  const std::size_t n = 50000;
  const Trial t(GetParam(), GeometryCase::ejecta, n);
  SCOPED_TRACE(t.trace());
  const Measured& m = t.m;
  const Baseline& base = t.base;
  ASSERT_EQ(m.bodies, n + n / 100);
  const bool relative = std::string(GetParam().name) == "relative";
  EXPECT_LE(m.interactions_per_body(), (relative ? 1.2 : 2.0) * base.plummer.interactions_per_body()) << describe(m);
  EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
  expect_structure_bounded(m);
  expect_accuracy_within_twice_plummer(m, base);
}

TEST_P(CpuGeometry, BodiesNestedOverTheWholeFloatRangeTerminateWithAccurateForces) {
  // The worst nesting floats allow: bodies at x = 2^-k down to the smallest subnormal, split off their
  // neighbours one or two at a level, plus a sphere around them. A grid halved from the sphere's size
  // could not part them within its old 48 levels; now the tree goes as deep as they need, down to
  // where floats stop resolving distances (kUnresolvedExtent, 2^-60), where the rest are one point
  // mass. It never needs its depth guard, and the forces stay right.
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::size_t n = 5000;
  const Baseline base(GetParam(), n, seed);
  Bodies bodies = make_geometry_case(GeometryCase::plummer, n, seed);
  const std::size_t nested = 150;
  bodies.resize(n + nested);
  for (std::size_t k = 0; k < nested; ++k) {
    bodies.x[n + k] = std::ldexp(1.0f, -static_cast<int>(k));  // 1, 1/2, ... 2^-149
    bodies.mass[n + k] = bodies.mass[0];
  }
  ASSERT_GT(bodies.x.back(), 0.0f);
  const Measured m = measure(GetParam(), bodies, base.softening, seed);
  EXPECT_GE(m.stats.tree.max_depth, 25) << describe(m);  // the nesting is really there
  // Nothing capped; the tail below 2^-60 merged (into one point, or two where a cell face cuts it).
  ASSERT_EQ(m.stats.notices.size(), 1u) << m.stats.notices.front();
  EXPECT_NE(m.stats.notices[0].find("bodies sit on top of others"), std::string::npos) << m.stats.notices[0];
  expect_structure_bounded(m);
  EXPECT_LE(m.interactions_per_body(), 2 * base.plummer.interactions_per_body()) << describe(m);
  // The sphere's bodies, and the nested ones apart. The nested bodies sit within 2 of the sphere's
  // centre, most of them at one point, where one approximation of the sphere serves them all: in a
  // common sample (3% of it) they set the 99th percentile with that one error, a single draw from the
  // sphere's spread of errors, which one seed in a few dozen put above twice the sphere's p99. So
  // they are held to the sphere's max, twice over, each of them, relative to the same RMS
  // acceleration as the sphere's sample. The sphere's bodies keep the p99 bound. Their max is one body's
  // error, and the nested bodies put 3% of the mass at one point at the centre, which makes the cells
  // around it lopsided: over 300 seeds its ratio to the plain sphere's max was 0.93 (median), 1.74
  // (95th percentile) and 2.74 at most, and 3.03 once in CI, with monopoles at theta 0.5; at the
  // default moments and theta (cells no smaller than their reach) 0.90, 1.59 and 2.34: held to 4x.
  const auto sphere = sample_indices(n, 2000, seed);
  const ForceError e = force_error(select(m.approx, sphere), reference_accelerations(bodies, base.softening, sphere));
  EXPECT_FALSE(e.non_finite);
  EXPECT_LE(e.normalized_p99, 2 * base.plummer.error.normalized_p99) << describe(m);
  EXPECT_LE(e.normalized_max, 4 * base.plummer.error.normalized_max) << describe(m);
  std::vector<std::size_t> inner(nested);
  for (std::size_t k = 0; k < nested; ++k) inner[k] = n + k;
  const ForceError i = force_error(select(m.approx, inner), reference_accelerations(bodies, base.softening, inner));
  EXPECT_FALSE(i.non_finite);
  // The worst nested body's error, relative to the sphere sample's RMS acceleration.
  EXPECT_LE(i.normalized_max * i.reference_rms / e.reference_rms, 2 * base.plummer.error.normalized_max) << describe(m);
}

INSTANTIATE_TEST_SUITE_P(EachOpening, CpuGeometry,
                         ::testing::Values(Opening{"relative", Choice{"bh_opening", "relative"}},
                                           Opening{"angle", Choice{"bh_opening", "geometric"}}),
                         [](const ::testing::TestParamInfo<Opening>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nbl
