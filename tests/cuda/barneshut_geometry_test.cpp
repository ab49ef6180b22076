// The GPU Barnes-Hut backend for any geometry (issue 14), the GPU side of tests/sim/geometry_test.cpp:
// the cases of sim/geometry_cases (a far outlier, coincident bodies, a line, a plane) with both tree
// builds and every walk, each held to the Plummer sphere of the same n and seed on the same variant.
// Cost is counted in operations from the step's statistics (interactions and nodes touched per body,
// cells, depth), never in seconds; accuracy is the error relative to the sample's RMS acceleration
// against the double-precision direct sum (p99 and max at most twice the sphere's, and the sphere
// itself within the per-body bound for theta, sim/accuracy.hpp). Fresh random inputs every run (the
// seed is printed on failure). Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "cuda/barneshut_backend.hpp"
#include "cuda/barneshut_variant.hpp"
#include "cuda/device.hpp"
#include "cuda/kernels/bh_tree.hpp"
#include "sim/accuracy.hpp"
#include "sim/diagnostics.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

class BarnesHutGeometry : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

std::uint64_t fresh_seed() {
  static std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) | device();
}

constexpr double kTheta = 0.5;
constexpr std::size_t kBodies = 20000;

struct Variant {
  const char* build;
  int traversal;
  std::string label() const { return std::string(build) + ", traversal " + std::to_string(traversal); }
};
constexpr Variant kVariants[] = {{"morton", 0}, {"morton", 1}, {"morton", 2},
                                 {"insertion", 0}, {"insertion", 1}, {"insertion", 2}};

struct Measured {
  StepStats stats;  // one force pass
  ForceError error;
  std::size_t bodies = 0;
  double interactions_per_body() const { return stats.interactions / static_cast<double>(bodies); }
};

Measured measure(const Variant& variant, const Bodies& bodies, double softening, std::uint64_t seed) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  s.backend = BackendKind::gpu;
  s.dt = 0.0;  // every force pass sees exactly these bodies
  s.softening = softening;
  s.opening_angle = kTheta;
  s.toggles["bh_build"] = std::string(variant.build) == "morton" ? Choice{"bh_build", "morton"}.value
                                                                 : Choice{"bh_build", "insertion"}.value;
  s.toggles["bh_traversal"] = variant.traversal;
  BarnesHutBackend backend(s);
  backend.set_bodies(bodies);
  backend.step();
  Measured m;
  m.stats = backend.step();
  m.bodies = bodies.size();
  Accelerations approx;
  backend.compute_accelerations(approx);
  const auto indices = sample_indices(bodies.size(), 2000, seed);
  m.error = force_error(select(approx, indices), reference_accelerations(bodies, softening, indices));
  return m;
}

std::string describe(const Measured& m) {
  return std::to_string(m.interactions_per_body()) + " interactions and " +
         std::to_string(m.stats.tree.nodes_touched.avg) + " (max " + std::to_string(m.stats.tree.nodes_touched.max) +
         ") nodes touched per body, " + std::to_string(m.stats.tree.cells) + " cells, depth " +
         std::to_string(m.stats.tree.max_depth) + "; error / RMS accel p99 " + std::to_string(m.error.normalized_p99) +
         " max " + std::to_string(m.error.normalized_max) + "; per body p99 " + std::to_string(m.error.p99) +
         (m.error.non_finite ? " (NaN/inf!)" : "");
}

struct Baseline {
  std::uint64_t seed;
  double softening;
  Measured plummer;
  Baseline(const Variant& v, std::uint64_t s)
      : seed(s), softening(scene_defaults(Scene::plummer, kBodies).softening),
        plummer(measure(v, make_geometry_case(GeometryCase::plummer, kBodies, s), softening, s)) {}
  Measured run(const Variant& v, GeometryCase c) const {
    return measure(v, make_geometry_case(c, kBodies, seed), softening, seed);
  }
};

void expect_accuracy_within_twice_plummer(const Measured& m, const Baseline& base) {
  EXPECT_FALSE(m.error.non_finite);
  EXPECT_LE(m.error.normalized_p99, 2 * base.plummer.error.normalized_p99) << describe(m);
  EXPECT_LE(m.error.normalized_max, 2 * base.plummer.error.normalized_max) << describe(m);
}

void expect_cells_bounded(const Measured& m) {
  EXPECT_FALSE(m.stats.non_finite);
  EXPECT_GT(m.stats.tree.cells, 0);
  // Chains of single-child cells are at most kMaxDepth long per split: a generous linear bound.
  EXPECT_LT(m.stats.tree.cells, 4 * static_cast<std::int64_t>(m.bodies)) << describe(m);
}

TEST_F(BarnesHutGeometry, ThePlummerSphereItselfIsWithinTheThetaBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, kTheta);
  for (const Variant& v : kVariants) {
    const Baseline base(v, seed);
    SCOPED_TRACE(v.label() + ": " + describe(base.plummer));
    EXPECT_FALSE(base.plummer.error.non_finite);
    EXPECT_LE(base.plummer.error.p99, bound.p99);
    EXPECT_LE(base.plummer.error.max, bound.max);
    expect_cells_bounded(base.plummer);
  }
}

TEST_F(BarnesHutGeometry, FarOutlierCostsAtMostTwiceThePlummerSphere) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Variant& v : kVariants) {
    const Baseline base(v, seed);
    SCOPED_TRACE(v.label() + "; plummer: " + describe(base.plummer));
    // Before the shells, every sphere body shared one cell at the depth limit: all-pairs inside it.
    const Measured m = base.run(v, GeometryCase::far_outlier);
    EXPECT_LE(m.interactions_per_body(), 2 * base.plummer.interactions_per_body()) << describe(m);
    EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
    EXPECT_LE(m.stats.tree.nodes_touched.max, 2 * base.plummer.stats.tree.nodes_touched.max) << describe(m);
    EXPECT_LE(m.stats.tree.max_depth, base.plummer.stats.tree.max_depth + 1) << describe(m);  // the sphere keeps its resolution
    expect_cells_bounded(m);
    expect_accuracy_within_twice_plummer(m, base);
  }
}

TEST_F(BarnesHutGeometry, CoincidentBodiesCostAtMostTwiceTheSphereAlone) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Variant& v : kVariants) {
    const Baseline base(v, seed);
    SCOPED_TRACE(v.label() + "; plummer: " + describe(base.plummer));
    const Measured m = base.run(v, GeometryCase::coincident);
    ASSERT_EQ(m.bodies, kBodies + kBodies / 10);
    // All of the step's interactions: O(k^2) among the 2,000 coincident bodies would be 4e6, twice
    // the whole sphere's.
    EXPECT_LE(m.stats.interactions, 2 * base.plummer.stats.interactions) << describe(m);
    EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
    EXPECT_LE(m.stats.tree.nodes_touched.max, 2 * base.plummer.stats.tree.nodes_touched.max) << describe(m);
    EXPECT_EQ(m.stats.tree.max_depth, bh::kMaxDepth);
    bool said = false;
    for (const auto& notice : m.stats.notices) said |= notice.find("one point mass") != std::string::npos;
    EXPECT_TRUE(said);
    expect_cells_bounded(m);
    expect_accuracy_within_twice_plummer(m, base);
  }
}

TEST_F(BarnesHutGeometry, LinesAndPlanesStayWithinTwiceTheSpheresErrorAndCost) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (const Variant& v : kVariants) {
    const Baseline base(v, seed);
    SCOPED_TRACE(v.label() + "; plummer: " + describe(base.plummer));
    for (GeometryCase c : {GeometryCase::line, GeometryCase::plane}) {
      const Measured m = base.run(v, c);
      SCOPED_TRACE(std::string(to_string(c)));
      EXPECT_LE(m.interactions_per_body(), 2 * base.plummer.interactions_per_body()) << describe(m);
      EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
      expect_cells_bounded(m);
      expect_accuracy_within_twice_plummer(m, base);
    }
  }
}

TEST_F(BarnesHutGeometry, EjectaOutsideTheRobustCubeDoNotDeepenTheSphere) {
  // A slowly widening box (ejecta of a long collision run): 1% of the bodies pushed out to 100 to
  // 10,000 times the sphere's scale. The sphere's cells must stay as fine as without them, so its
  // bodies' walks cost about the same.
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> log_radius(2.0, 4.0);
  for (const Variant& v : kVariants) {
    const Baseline base(v, seed);
    SCOPED_TRACE(v.label() + "; plummer: " + describe(base.plummer));
    Bodies b = make_geometry_case(GeometryCase::plummer, kBodies, seed);
    for (std::size_t i = 0; i < kBodies; i += 100) {
      const double scale = std::pow(10.0, log_radius(rng));
      b.x[i] = static_cast<float>(b.x[i] * scale), b.y[i] = static_cast<float>(b.y[i] * scale);
      b.z[i] = static_cast<float>(b.z[i] * scale);
    }
    const Measured m = measure(v, b, base.softening, seed);
    EXPECT_LE(m.interactions_per_body(), 2 * base.plummer.interactions_per_body()) << describe(m);
    EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
    expect_cells_bounded(m);
    EXPECT_FALSE(m.error.non_finite);
  }
}

}  // namespace
}  // namespace nbl
