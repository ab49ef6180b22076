// Barnes-Hut on the GPU for any geometry, in both tree builds: a far outlier, coincident
// bodies, a line, a plane and ejecta cost at most twice what a Plummer sphere of the same n costs,
// counted in operations (interactions and nodes touched per body, cells), never in seconds; their forces stay
// within twice the sphere's error at the same settings, p99 and max, relative to the sample's RMS
// acceleration, at the default cell moments with either opening test (relative, the default, and by
// the angle; tests/sim/geometry_test.cpp holds the CPU backend to the same at 20,000 bodies); and the
// tree each
// build makes checks out against its definition (tests/cuda/bh_tree_check.cpp). Fresh random inputs
// every run; the seed is printed on failure. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "cuda/barneshut/backend.hpp"
#include "cuda/device.hpp"
#include "sim/diagnostics.hpp"
#include "sim/geometry_cases.hpp"
#include "sim/scenes.hpp"
#include "tests/cuda/bh_tree_check.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

// A tree build and an opening test.
struct Build {
  const char* name;
  Choice choice;
  Choice opening;
};
void PrintTo(const Build& build, std::ostream* os) { *os << build.name; }  // test names say which

class GpuGeometry : public ::testing::TestWithParam<Build> {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

using test::fresh_seed;

// What users run: the default theta, tolerance and cell moments (adaptive quadrupoles).
const double kTheta = Settings{}.opening_angle;
constexpr std::size_t kBodies = 100000;

struct Measured {
  StepStats stats;  // one step: one tree, one force pass
  ForceError error;
  Accelerations approx;  // that pass's forces, for errors over other samples
  std::size_t bodies = 0;
  test::TreeCheck tree;
  double interactions_per_body() const { return stats.interactions / static_cast<double>(bodies); }
};

// `softening` is the Plummer sphere's for its n in every case, so the cases differ only in geometry.
Settings gpu_settings(const Build& build, double softening) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  s.backend = BackendKind::gpu;
  s.toggles.set(build.choice).set(build.opening);
  // A zero time step moves nothing: the measured step and the checked forces see exactly these bodies.
  s.dt = 0.0;
  s.softening = softening;
  s.opening_angle = kTheta;
  return s;
}

Measured measure(const Build& build, const Bodies& bodies, double softening, std::uint64_t seed) {
  auto backend = std::make_unique<BarnesHutBackend>(gpu_settings(build, softening));
  backend->set_bodies(bodies);
  backend->step();  // warms up (a grown cell pool, a fallback) so the measured step is a plain one
  Measured m;
  m.stats = backend->step();
  m.bodies = bodies.size();
  m.tree = test::check_tree(*backend);
  backend->compute_accelerations(m.approx);
  const auto indices = sample_indices(bodies.size(), 2000, seed);
  m.error = force_error(select(m.approx, indices), reference_accelerations(bodies, softening, indices));
  return m;
}

std::string describe(const Measured& m) {
  return std::to_string(m.interactions_per_body()) + " interactions and " +
         std::to_string(m.stats.tree.nodes_touched.avg) + " nodes touched per body (max " +
         std::to_string(m.stats.tree.nodes_touched.max) + "), " + std::to_string(m.stats.tree.cells) +
         " cells, depth " + std::to_string(m.stats.tree.max_depth) + "; error / RMS accel p99 " +
         std::to_string(m.error.normalized_p99) + " max " + std::to_string(m.error.normalized_max) +
         (m.error.non_finite ? " (NaN/inf!)" : "");
}

struct Baseline {
  std::uint64_t seed;
  double softening;
  Measured plummer;
  Baseline(const Build& build, std::size_t n, std::uint64_t s)
      : seed(s),
        softening(scene_defaults(Scene::plummer, n).softening),
        plummer(measure(build, make_geometry_case(GeometryCase::plummer, n, s), softening, s)) {}
};

// The hard geometry's bound: p99 and max within twice the sphere's error (`e`: over the case's sample, or a
// part of it).
void expect_accurate(const ForceError& e, const Measured& m, const Baseline& base) {
  constexpr double error_bound = 2.0;
  ASSERT_FALSE(base.plummer.error.non_finite);
  EXPECT_FALSE(e.non_finite);
  // Infinite figures (NaN or inf anywhere) fail these comparisons too.
  EXPECT_LE(e.normalized_p99, error_bound * base.plummer.error.normalized_p99) << describe(m);
  EXPECT_LE(e.normalized_max, error_bound * base.plummer.error.normalized_max) << describe(m);
}

// Its cost bounds, and the tree checked against its definition.
void expect_bounded(const Measured& m, const Baseline& base) {
  EXPECT_FALSE(m.stats.non_finite);
  EXPECT_LE(m.stats.tree.nodes_touched.avg, 2 * base.plummer.stats.tree.nodes_touched.avg) << describe(m);
  // The costliest walk too: one group's, and the force pass waits for its warp.
  EXPECT_LE(m.stats.tree.nodes_touched.max, 2 * base.plummer.stats.tree.nodes_touched.max) << describe(m);
  // The cell pool: fewer cells than 2n (a line in the insertion build, whose cells split one body off
  // at a time, makes the most: about 1.1n at 100k).
  EXPECT_LT(m.stats.tree.cells, 2 * static_cast<std::int64_t>(m.bodies)) << describe(m);
  EXPECT_TRUE(m.tree.problems.empty()) << m.tree.listed();
}

void expect_sound(const Measured& m, const Baseline& base) {
  expect_accurate(m.error, m, base);
  expect_bounded(m, base);
}

// One hard case and the Plummer sphere of the same n and seed, a fresh seed every run.
struct Trial {
  std::uint64_t seed;
  Baseline base;
  Measured m;
  Trial(const Build& build, GeometryCase c)
      : seed(fresh_seed()),
        base(build, kBodies, seed),
        m(measure(build, make_geometry_case(c, kBodies, seed), base.softening, seed)) {}
  std::string trace() const { return "seed " + std::to_string(seed) + "; plummer: " + describe(base.plummer); }
};

TEST_P(GpuGeometry, FarOutlierCostsAtMostTwiceThePlummerSphere) {
  // Before the split root, every sphere body shared one cell at the depth limit; before the Morton
  // build summed each cell's moments from its children, the root's centre at 5e19 wiped out the
  // sphere's second moments (every cell looked huge and was opened).
  const Trial t(GetParam(), GeometryCase::far_outlier);
  SCOPED_TRACE(t.trace());
  EXPECT_LE(t.m.interactions_per_body(), 2 * t.base.plummer.interactions_per_body()) << describe(t.m);
  expect_sound(t.m, t.base);
}

// The pass waits for its slowest warp, so no group may walk much farther than the rest. A group whose
// box reaches into a dense neighbour opens that neighbour down to its leaves: the insertion build's
// groups did that while bh_groups.cu took a child's slot for its octant (the build packs a cell's
// children to the front), with walks 12x the average at 1M with groups of 96 and 7x between seeds at
// 100k with 64. The Morton build's costliest walk is 1.6x the average at 1M (H200).
TEST_P(GpuGeometry, NoGroupWalksFarMoreThanTheAverageAtAnyGroupSize) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies sphere = make_geometry_case(GeometryCase::plummer, kBodies, seed);
  const Bodies outlier = make_geometry_case(GeometryCase::far_outlier, kBodies, seed);
  const double softening = scene_defaults(Scene::plummer, kBodies).softening;
  for (int size = 32; size <= 128; size += 32) {
    for (const Bodies* bodies : {&sphere, &outlier}) {
      Settings s = gpu_settings(GetParam(), softening);
      s.toggles["bh_group_size"] = size;
      BarnesHutBackend backend(s);
      backend.set_bodies(*bodies);
      backend.step();
      const StepStats stats = backend.step();
      const NodesTouched& touched = stats.tree.nodes_touched;
      EXPECT_LE(touched.max, 4 * touched.avg)
          << "groups of " << size << (bodies == &outlier ? ", far outlier" : ", sphere") << ": average " << touched.avg
          << ", costliest " << touched.max;
    }
  }
}

TEST_P(GpuGeometry, CoincidentBodiesCostAtMostTwiceTheSphereAlone) {
  // n / 10 bodies on top of the sphere's body 0: one point mass, exactly where they are (a centre of
  // mass off by float rounding pulled each of them with a tenth of the mass from next to it).
  const Trial t(GetParam(), GeometryCase::coincident);
  SCOPED_TRACE(t.trace());
  ASSERT_EQ(t.m.bodies, kBodies + kBodies / 10);
  // All of the step's interactions, not per body: the added bodies pay their way too.
  EXPECT_LE(t.m.stats.interactions, 2 * t.base.plummer.stats.interactions) << describe(t.m);
  EXPECT_EQ(t.m.stats.tree.max_depth, 21) << describe(t.m);
  bool said = false;
  for (const auto& notice : t.m.stats.notices) said |= notice.find("maximum depth") != std::string::npos;
  EXPECT_TRUE(said);
  expect_bounded(t.m, t.base);
  // The added bodies sit at one point and share one error: in a common sample they are a tenth of it
  // and set its 99th percentile with that single value (seed 17601832604765712266: 2.16x the sphere's
  // p99, H200, relative opening). So the sphere's bodies are held to the bound, and the point's one
  // error, relative to the same RMS acceleration, to twice the sphere's max.
  const Bodies bodies = make_geometry_case(GeometryCase::coincident, kBodies, t.seed);
  const auto sphere = sample_indices(kBodies, 2000, t.seed);
  const ForceError e =
      force_error(select(t.m.approx, sphere), reference_accelerations(bodies, t.base.softening, sphere));
  expect_accurate(e, t.m, t.base);
  const std::vector<std::size_t> point{kBodies};  // the first added body: all of them are at its position
  const ForceError p = force_error(select(t.m.approx, point), reference_accelerations(bodies, t.base.softening, point));
  EXPECT_FALSE(p.non_finite);
  EXPECT_LE(p.normalized_max * p.reference_rms / e.reference_rms, 2 * t.base.plummer.error.normalized_max)
      << describe(t.m);
}

TEST_P(GpuGeometry, LineMeetsThePlummerAccuracyBoundAtBoundedCost) {
  const Trial t(GetParam(), GeometryCase::line);
  SCOPED_TRACE(t.trace());
  EXPECT_LE(t.m.interactions_per_body(), 2 * t.base.plummer.interactions_per_body()) << describe(t.m);
  expect_sound(t.m, t.base);
}

TEST_P(GpuGeometry, PlaneMeetsThePlummerAccuracyBoundAtBoundedCost) {
  const Trial t(GetParam(), GeometryCase::plane);
  SCOPED_TRACE(t.trace());
  EXPECT_LE(t.m.interactions_per_body(), 2 * t.base.plummer.interactions_per_body()) << describe(t.m);
  // A flat cell's monopole errs the same way at every n (4.3x the sphere at 1M with monopoles at
  // theta 0.5; docs/barneshut.md, "A plane still errs more as n grows"); its quadrupole is exactly
  // that bias, and the default adaptive moments bring the plane within the bound.
  expect_sound(t.m, t.base);
}

// A percent of the bodies spread out to a thousand times the sphere's radius, as a long collision run
// ejects them (tests/sim/geometry_test.cpp says why this costs by angle, and what the relative test's
// light cells save). The relative test's bound, 1.2x, as the CPU test's: this case spreads between
// seeds (on the CPU backend at 100k, 0.96-1.16x over 20 seeds; before light cells about 1.4x).
TEST_P(GpuGeometry, EjectaCostLittleByTheRelativeTestAndAtMostTwiceByAngle) {
  const Trial t(GetParam(), GeometryCase::ejecta);
  SCOPED_TRACE(t.trace());
  ASSERT_EQ(t.m.bodies, kBodies + kBodies / 100);
  const bool relative = GetParam().opening.value == Choice{"bh_opening", "relative"}.value;
  EXPECT_LE(t.m.interactions_per_body(), (relative ? 1.2 : 2.0) * t.base.plummer.interactions_per_body())
      << describe(t.m);
  expect_sound(t.m, t.base);
}

INSTANTIATE_TEST_SUITE_P(
    EachBuild, GpuGeometry,
    ::testing::Values(Build{"morton", Choice{"bh_build", "morton"}, Choice{"bh_opening", "relative"}},
                      Build{"insertion", Choice{"bh_build", "insertion"}, Choice{"bh_opening", "relative"}},
                      Build{"morton_angle", Choice{"bh_build", "morton"}, Choice{"bh_opening", "geometric"}},
                      Build{"insertion_angle", Choice{"bh_build", "insertion"}, Choice{"bh_opening", "geometric"}}),
    [](const ::testing::TestParamInfo<Build>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nbl
