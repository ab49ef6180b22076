// The CPU backends: physics (orbits, conservation, equilibrium), accuracy against the double-precision
// reference, Barnes-Hut's behaviour on bad geometry, and what a step reports.
#include "sim/cpu_backends.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

enum class Kind { allpairs_float, allpairs_double, barneshut, barneshut_quadrupole };

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::allpairs_float: return "AllPairsFloat";
    case Kind::allpairs_double: return "AllPairsDouble";
    case Kind::barneshut: return "BarnesHut";
    case Kind::barneshut_quadrupole: return "BarnesHutQuadrupole";
  }
  return "?";
}

// Cells open by the angle theta here (the default opens them relative to the pull; the tests of that
// set it).
Settings settings_for(Scene scene, std::size_t n, double theta = 0.5) {
  Settings s;
  s.scene = scene;
  s.dt = scene_defaults(scene, n).dt;
  s.softening = scene_defaults(scene, n).softening;
  s.opening_angle = theta;
  s.toggles.set({"bh_opening", "geometric"});
  return s;
}

// The settings a kind runs with: the quadrupole kind is Barnes-Hut with bh_moments at quadrupole.
Settings for_kind(Kind kind, Settings s) {
  if (kind == Kind::barneshut_quadrupole) s.toggles.set({"bh_moments", "quadrupole"});
  return s;
}

std::unique_ptr<Backend> make(Kind kind, const Settings& s) {
  switch (kind) {
    case Kind::allpairs_float: return make_cpu_allpairs(s, CpuPrecision::float32);
    case Kind::allpairs_double: return make_cpu_allpairs(s, CpuPrecision::double_accumulate);
    case Kind::barneshut: return make_cpu_barneshut(s);
    case Kind::barneshut_quadrupole: return make_cpu_barneshut(for_kind(kind, s));
  }
  return nullptr;
}

Bodies state_of(Backend& backend) {
  Bodies b;
  backend.get_bodies(b);
  return b;
}

Accelerations accelerations_of(Backend& backend) {
  Accelerations a;
  backend.compute_accelerations(a);
  return a;
}

class EveryCpuBackend : public ::testing::TestWithParam<Kind> {};

TEST_P(EveryCpuBackend, KeplerOrbitReturnsAfterOnePeriodAndConservesEnergy) {
  const Settings s = settings_for(Scene::kepler, 2);
  ASSERT_EQ(*s.softening, 0.0);
  const Bodies start = make_scene(Scene::kepler, 2, 1);
  auto backend = make(GetParam(), s);
  backend->set_bodies(start);
  const KeplerOrbit orbit = kepler_orbit();
  const long steps = std::lround(orbit.period / *s.dt);
  ASSERT_GE(steps, 1000);
  const double e0 = energy(start, 0.0).total;
  double worst_energy_error = 0;
  for (long k = 0; k < steps; ++k) {
    backend->step();
    if (k % 64 == 0)
      worst_energy_error = std::max(worst_energy_error, std::abs(energy(state_of(*backend), 0.0).total - e0));
  }
  const Bodies end = state_of(*backend);
  for (std::size_t i = 0; i < 2; ++i) {
    const double moved = std::hypot(end.x[i] - start.x[i], end.y[i] - start.y[i], end.z[i] - start.z[i]);
    EXPECT_LT(moved, 1e-3 * orbit.semi_major_axis) << "body " << i;
  }
  EXPECT_LT(worst_energy_error, 1e-4 * std::abs(e0));
  EXPECT_LT(std::abs(energy(end, 0.0).total - e0), 1e-5 * std::abs(e0));
}

TEST_P(EveryCpuBackend, AgreesWithReferenceAtZeroOpeningAngle) {
  const std::size_t n = 1500;
  const Settings s = settings_for(Scene::plummer, n, /*theta=*/0.0);
  const Bodies bodies = make_scene(Scene::plummer, n, 4);
  auto backend = make(GetParam(), s);
  backend->set_bodies(bodies);
  const ForceError e = force_error(accelerations_of(*backend), reference_accelerations(bodies, *s.softening));
  EXPECT_FALSE(e.non_finite);
  // Float summation of 1500 terms: a few ulp of the sum; in double, only the final rounding to float.
  EXPECT_LT(e.max, GetParam() == Kind::allpairs_double ? 1e-6 : 2e-5);
}

TEST_P(EveryCpuBackend, StepOfNaNBodyIsReportedNonFinite) {
  const std::size_t n = 100;
  Bodies bodies = make_scene(Scene::cube, n, 1);
  bodies.y[17] = std::numeric_limits<float>::quiet_NaN();
  auto backend = make(GetParam(), settings_for(Scene::cube, n));
  backend->set_bodies(bodies);
  const StepStats stats = backend->step();
  EXPECT_TRUE(stats.non_finite);
  EXPECT_FALSE(stats.notices.empty());
}

TEST_P(EveryCpuBackend, WritesHostVertexBufferInTheSharedLayout) {
  const std::size_t n = 300;
  const Bodies bodies = make_scene(Scene::plummer, n, 2);
  auto backend = make(GetParam(), settings_for(Scene::plummer, n));
  backend->set_bodies(bodies);
  std::vector<float> buffer(vertex_buffer_bytes(n) / sizeof(float), -1.0f);
  for (ColorMode mode : {ColorMode::speed, ColorMode::acceleration, ColorMode::mass, ColorMode::body_index,
                         ColorMode::warp_id, ColorMode::tree_depth}) {
    backend->write_vertices({buffer.data(), false}, mode);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(buffer[4 * i + 0], bodies.x[i]);
      ASSERT_EQ(buffer[4 * i + 1], bodies.y[i]);
      ASSERT_EQ(buffer[4 * i + 2], bodies.z[i]);
      ASSERT_EQ(buffer[4 * i + 3], bodies.mass[i]);
      const float key = buffer[4 * n + i];
      ASSERT_GE(key, 0.0f) << to_string(mode);
      ASSERT_LE(key, 1.0f) << to_string(mode);
    }
    if (mode == ColorMode::body_index) {
      EXPECT_EQ(buffer[4 * n], 0.0f);
      EXPECT_EQ(buffer[4 * n + n - 1], 1.0f);
    }
    if (mode == ColorMode::warp_id) {
      EXPECT_NE(buffer[4 * n + 0], buffer[4 * n + 32]);
    }
  }
  // A/B runs on the GPU only: every body differs by nothing, as the GPU backends draw without a
  // comparison, rather than whatever the buffer held.
  std::fill(buffer.begin(), buffer.end(), -1.0f);
  backend->write_vertices({buffer.data(), false}, ColorMode::ab_difference);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(buffer[4 * n + i], 0.0f) << i;
  EXPECT_THROW(backend->write_vertices({buffer.data(), true}, ColorMode::speed), Error);
}

// The lab's stepping thread (app/core/stepper.hpp) has a slow force pass split into slices
// (StepControl::slice_ms), so that a request to abandon the step is seen between them: the result is
// the unsliced one, bit for bit.
void expect_sliced_steps_match_whole_ones(Kind kind, const Settings& s) {
  const std::size_t n = s.body_count ? static_cast<std::size_t>(*s.body_count) : 3000;
  const Bodies start = make_scene(Scene::plummer, n, 7);
  auto whole = make(kind, s), sliced = make(kind, s);
  whole->set_bodies(start);
  sliced->set_bodies(start);
  std::atomic<bool> abandon{false};
  StepControl control;
  control.abandon = &abandon;
  control.slice_ms = 1e-9;  // as many slices as allowed
  sliced->set_step_control(control);
  for (int i = 0; i < 3; ++i) {
    const StepStats a = whole->step(), b = sliced->step();
    EXPECT_EQ(a.force_slices, 1);
    EXPECT_GT(b.force_slices, 1);
    EXPECT_FALSE(b.abandoned);
    EXPECT_EQ(a.interactions, b.interactions);
  }
  const Bodies x = state_of(*whole), y = state_of(*sliced);
  EXPECT_TRUE(x.x == y.x && x.y == y.y && x.z == y.z) << "positions differ";
  EXPECT_TRUE(x.vx == y.vx && x.vy == y.vy && x.vz == y.vz) << "velocities differ";
}

TEST_P(EveryCpuBackend, SlicedStepsAreBitIdenticalToWholeOnes) {
  expect_sliced_steps_match_whole_ones(GetParam(), for_kind(GetParam(), settings_for(Scene::plummer, 3000)));
}

TEST(CpuBarnesHut, SlicedStepsAreBitIdenticalToWholeOnesWithTheDefaultOpening) {
  Settings s = settings_for(Scene::plummer, 3000);
  s.toggles = ToggleValues{};  // relative opening with light cells, adaptive quadrupoles
  expect_sliced_steps_match_whole_ones(Kind::barneshut, s);
}

// Abandoned (the user switched away from a slow variant), a step puts the state back as it was; the
// next step is the one that would have come.
TEST_P(EveryCpuBackend, AnAbandonedStepLeavesTheStateAsItWas) {
  const std::size_t n = 2000;
  const Settings s = for_kind(GetParam(), settings_for(Scene::plummer, n));
  const Bodies start = make_scene(Scene::plummer, n, 8);
  auto reference = make(GetParam(), s), backend = make(GetParam(), s);
  reference->set_bodies(start);
  backend->set_bodies(start);
  std::atomic<bool> abandon{false};
  StepControl control;
  control.abandon = &abandon;
  control.slice_ms = 1e-9;
  backend->set_step_control(control);
  reference->step();
  backend->step();
  const Bodies before = state_of(*backend);
  abandon = true;
  const StepStats stopped = backend->step();
  EXPECT_TRUE(stopped.abandoned);
  const Bodies after = state_of(*backend);
  EXPECT_TRUE(after.x == before.x && after.vx == before.vx && after.vz == before.vz) << "the state moved";
  abandon = false;
  reference->step();
  backend->step();
  const Bodies x = state_of(*reference), y = state_of(*backend);
  EXPECT_TRUE(x.x == y.x && x.vy == y.vy) << "the step after an abandoned one is the step that would have come";
}

TEST_P(EveryCpuBackend, NewSofteningChangesTheForces) {
  const std::size_t n = 200;
  Settings s = settings_for(Scene::plummer, n);
  auto backend = make(GetParam(), s);
  backend->set_bodies(make_scene(Scene::plummer, n, 3));
  const Accelerations before = accelerations_of(*backend);
  s.softening = *s.softening * 4;
  backend->configure(for_kind(GetParam(), s));
  const Accelerations after = accelerations_of(*backend);
  EXPECT_GT(force_error(after, before).relative_norm, 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Cpu, EveryCpuBackend,
                         ::testing::Values(Kind::allpairs_float, Kind::allpairs_double, Kind::barneshut,
                                           Kind::barneshut_quadrupole),
                         [](const auto& info) { return kind_name(info.param); });

class AllPairsPrecision : public ::testing::TestWithParam<Kind> {};

TEST_P(AllPairsPrecision, ConservesLinearMomentumToRounding) {
  const std::size_t n = 1024;
  const Bodies start = make_scene(Scene::plummer, n, 6);
  auto backend = make(GetParam(), settings_for(Scene::plummer, n));
  backend->set_bodies(start);
  for (int k = 0; k < 100; ++k) backend->step();
  const Bodies end = state_of(*backend);
  double momentum_scale = 0;
  for (std::size_t i = 0; i < n; ++i)
    momentum_scale += end.mass[i] * std::sqrt(double(end.vx[i]) * end.vx[i] + double(end.vy[i]) * end.vy[i] +
                                              double(end.vz[i]) * end.vz[i]);
  const auto p0 = linear_momentum(start);
  const auto p1 = linear_momentum(end);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(p1[a], p0[a], 1e-6 * momentum_scale) << "axis " << a;
}

INSTANTIATE_TEST_SUITE_P(Cpu, AllPairsPrecision, ::testing::Values(Kind::allpairs_float, Kind::allpairs_double),
                         [](const auto& info) { return kind_name(info.param); });

// The double-accumulating mode is checked against the reference above; here the two paths a user
// runs by default.
class DefaultCpuBackends : public ::testing::TestWithParam<Kind> {};

TEST_P(DefaultCpuBackends, PlummerSphereStartsAndStaysInVirialEquilibrium) {
  const std::size_t n = 3000;
  const Settings s = settings_for(Scene::plummer, n);
  const Bodies start = make_scene(Scene::plummer, n, 1);
  const EnergyReport e0 = energy(start, *s.softening);
  EXPECT_NEAR(e0.virial_ratio(), 1.0, 0.05);
  auto backend = make(GetParam(), s);
  backend->set_bodies(start);
  for (int k = 0; k < 100; ++k) {
    backend->step();
    if (k % 25 == 24) {
      const EnergyReport e = energy(state_of(*backend), *s.softening);
      EXPECT_NEAR(e.virial_ratio(), 1.0, 0.05) << "after " << k + 1 << " steps";
      EXPECT_LT(std::abs(e.total - e0.total), 1e-3 * std::abs(e0.total)) << "after " << k + 1 << " steps";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cpu, DefaultCpuBackends,
                         ::testing::Values(Kind::allpairs_float, Kind::barneshut, Kind::barneshut_quadrupole),
                         [](const auto& info) { return kind_name(info.param); });

TEST(CpuAllPairs, WithoutSofteningSkipsOnlyItself) {
  // Two bodies one unit apart, no softening: the self-term must not turn into 0/0.
  Bodies b;
  b.resize(2);
  b.x = {0.0f, 1.0f};
  b.mass = {1.0f, 2.0f};
  Settings s;
  s.dt = 0.001;
  s.softening = 0.0;
  auto backend = make_cpu_allpairs(s);
  backend->set_bodies(b);
  const Accelerations a = accelerations_of(*backend);
  EXPECT_FLOAT_EQ(static_cast<float>(a.x[0]), 2.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(a.x[1]), -1.0f);
}

TEST(CpuAllPairs, ReportsForceAndIntegrateStages) {
  const std::size_t n = 256;
  auto backend = make_cpu_allpairs(settings_for(Scene::plummer, n));
  backend->set_bodies(make_scene(Scene::plummer, n, 1));
  backend->step();  // the first step also evaluates the initial forces
  const StepStats stats = backend->step();
  EXPECT_FALSE(stats.has_tree);
  EXPECT_GE(stats.stage_ms("force"), 0.0);
  ASSERT_EQ(stats.stages.size(), 2u);
  EXPECT_EQ(stats.stages[0].name, "force");
  EXPECT_EQ(stats.stages[1].name, "integrate");
  EXPECT_DOUBLE_EQ(stats.interactions, double(n) * n);
  EXPECT_GE(stats.total_ms, stats.stage_ms("force"));
  EXPECT_NE(backend->name().find("CPU"), std::string::npos);
  EXPECT_EQ(backend->algorithm(), Algorithm::allpairs);
  EXPECT_FALSE(backend->on_gpu());
  EXPECT_TRUE(backend->tree_cells(10).empty());
}

TEST(CpuBarnesHut, ForceErrorFallsAsOpeningAngleFalls) {
  const std::size_t n = 8192;
  const Bodies bodies = make_scene(Scene::plummer, n, 1);
  const double softening = scene_defaults(Scene::plummer, n).softening;
  const Accelerations reference = reference_accelerations(bodies, softening);
  double previous_p99 = std::numeric_limits<double>::infinity();
  double previous_rms = std::numeric_limits<double>::infinity();
  for (double theta : {1.0, 0.7, 0.5, 0.3}) {
    auto backend = make_cpu_barneshut(settings_for(Scene::plummer, n, theta));
    backend->set_bodies(bodies);
    const ForceError e = force_error(accelerations_of(*backend), reference);
    ASSERT_FALSE(e.non_finite) << "theta " << theta;
    EXPECT_LT(e.p99, previous_p99) << "theta " << theta;
    EXPECT_LT(e.rms, previous_rms) << "theta " << theta;
    if (theta == 0.5) {
      EXPECT_LE(e.p99, 0.02);
    }
    previous_p99 = e.p99;
    previous_rms = e.rms;
  }
}

// Relative opening (bh_opening = relative): the error falls with the tolerance, and on a fresh state
// compute_accelerations gives the relative walk's forces (a geometric pass first supplies the pull).
TEST(CpuBarnesHut, RelativeOpeningErrorFallsWithTheTolerance) {
  const std::size_t n = 8192;
  const Bodies bodies = make_scene(Scene::plummer, n, 3);
  const double softening = scene_defaults(Scene::plummer, n).softening;
  const Accelerations reference = reference_accelerations(bodies, softening);
  double previous_rms = std::numeric_limits<double>::infinity();
  for (int tolerance : {320, 80, 20, 5}) {
    Settings s = settings_for(Scene::plummer, n, 0.65);
    s.toggles.set({"bh_opening", "relative"});
    s.toggles["bh_tolerance"] = tolerance;
    s.toggles.set({"bh_moments", "adaptive"});
    auto backend = make_cpu_barneshut(s);
    backend->set_bodies(bodies);
    const ForceError e = force_error(accelerations_of(*backend), reference);
    ASSERT_FALSE(e.non_finite) << "tolerance " << tolerance;
    EXPECT_LT(e.rms, previous_rms) << "tolerance " << tolerance;
    previous_rms = e.rms;
  }
}

// What relative opening is for: fewer interactions than the angle for a smaller error on a Plummer
// sphere (at 100,000 bodies and a tolerance of 40e-4: 2.1e8 against 2.9e8 interactions, p99 1.7e-3
// against 3.7e-3). A step first, so the walk judges by the previous step's pull as in a run.
TEST(CpuBarnesHut, RelativeOpeningTakesFewerInteractionsForLessErrorThanTheAngle) {
  const std::size_t n = 30000;
  const Bodies bodies = make_scene(Scene::plummer, n, 5);
  double interactions[2] = {0, 0};
  ForceError errors[2];
  for (int relative = 0; relative < 2; ++relative) {
    Settings s = settings_for(Scene::plummer, n, 0.65);
    s.toggles.set({"bh_moments", "adaptive"});
    if (relative) s.toggles.set({"bh_opening", "relative"});
    s.toggles["bh_tolerance"] = 40;
    auto backend = make_cpu_barneshut(s);
    backend->set_bodies(bodies);
    interactions[relative] = backend->step().interactions;
    const Bodies now = state_of(*backend);
    errors[relative] = force_error(accelerations_of(*backend), reference_accelerations(now, *s.softening));
    ASSERT_FALSE(errors[relative].non_finite);
  }
  EXPECT_LT(interactions[1], interactions[0]);
  EXPECT_LT(errors[1].p99, errors[0].p99);
  EXPECT_LT(errors[1].max, errors[0].max);
}

TEST(CpuBarnesHut, ReportsTreeStagesAndStatistics) {
  const std::size_t n = 5000;
  auto backend = make_cpu_barneshut(settings_for(Scene::plummer, n));
  backend->set_bodies(make_scene(Scene::plummer, n, 1));
  const StepStats stats = backend->step();
  ASSERT_TRUE(stats.has_tree);
  std::vector<std::string> names;
  for (const auto& stage : stats.stages) names.push_back(stage.name);
  EXPECT_EQ(names, (std::vector<std::string>{"tree build", "summarize", "force", "integrate"}));
  EXPECT_GT(stats.tree.max_depth, 2);
  EXPECT_LE(stats.tree.max_depth, 48);
  EXPECT_GT(stats.tree.cells, static_cast<std::int64_t>(n / 16));
  EXPECT_GT(stats.tree.children_per_cell, 1.0);
  EXPECT_LE(stats.tree.children_per_cell, 8.0);
  EXPECT_GT(stats.tree.nodes_touched.min, 0.0);
  EXPECT_LE(stats.tree.nodes_touched.min, stats.tree.nodes_touched.avg);
  EXPECT_LE(stats.tree.nodes_touched.avg, stats.tree.nodes_touched.max);
  // Far fewer interactions than all-pairs, but more than one per body.
  EXPECT_GT(stats.interactions, double(n));
  EXPECT_LT(stats.interactions, 2.0 * double(n) * n);  // two force evaluations in the first step
  EXPECT_TRUE(stats.notices.empty());
  EXPECT_EQ(backend->algorithm(), Algorithm::barneshut);
}

TEST(CpuBarnesHut, TreeCellsStopAtTheRequestedDepthAndCoverTheBodies) {
  const std::size_t n = 3000;
  const Bodies bodies = make_scene(Scene::plummer, n, 2);
  auto backend = make_cpu_barneshut(settings_for(Scene::plummer, n));
  backend->set_bodies(bodies);
  const auto cells = backend->tree_cells(3);
  ASSERT_FALSE(cells.empty());
  EXPECT_EQ(cells[0].depth, 0);
  for (const CellBox& c : cells) EXPECT_LE(c.depth, 3);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_LE(std::abs(bodies.x[i] - cells[0].center[0]), cells[0].half_size);
    EXPECT_LE(std::abs(bodies.y[i] - cells[0].center[1]), cells[0].half_size);
    EXPECT_LE(std::abs(bodies.z[i] - cells[0].center[2]), cells[0].half_size);
  }
  EXPECT_GT(backend->tree_cells(6).size(), cells.size());
}

TEST(CpuBarnesHut, CoincidentBodiesTerminateWithANotice) {
  for (double softening : {0.01, 0.0}) {
    // 100,000 bodies at one point and a few elsewhere: the build must stop where nothing separates
    // them, and the walk must not cost n^2 nor divide by zero.
    const std::size_t n = 100000;
    Bodies bodies;
    bodies.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      bodies.x[i] = 0.25f;
      bodies.y[i] = -0.5f;
      bodies.z[i] = 1.0f;
      bodies.mass[i] = 1.0f / n;
    }
    for (std::size_t i = 0; i < 10; ++i) bodies.x[i] = 1.0f + static_cast<float>(i);
    Settings s;
    s.dt = 0.001;
    s.softening = softening;
    auto backend = make_cpu_barneshut(s);
    backend->set_bodies(bodies);
    const StepStats stats = backend->step();
    EXPECT_FALSE(stats.non_finite) << "softening " << softening;
    ASSERT_FALSE(stats.notices.empty()) << "softening " << softening;
    EXPECT_NE(stats.notices[0].find("99990 bodies sit on top of others"), std::string::npos) << stats.notices[0];
    EXPECT_NE(stats.notices[0].find("merged into 1 point mass"), std::string::npos) << stats.notices[0];
    EXPECT_LE(stats.tree.max_depth, 8);
    EXPECT_TRUE(all_finite(state_of(*backend)));
    // The coincident bodies pull on each other not at all: only the ten outliers move them.
    const Accelerations a = accelerations_of(*backend);
    EXPECT_GT(a.x[n - 1], 0.0);
    EXPECT_LT(std::abs(a.y[n - 1]), 1e-6);
  }
}

TEST(CpuBarnesHut, MatchesDirectSumWhenEveryBodyFitsOneLeaf) {
  const Bodies bodies = make_scene(Scene::cube, 12, 5);
  Settings s = settings_for(Scene::cube, 12, 1.0);
  auto backend = make_cpu_barneshut(s);
  backend->set_bodies(bodies);
  EXPECT_LT(force_error(accelerations_of(*backend), reference_accelerations(bodies, *s.softening)).max, 1e-6);
}

TEST(CpuBackends, BytesPerBodyCoverTheState) {
  EXPECT_GT(cpu_bytes_per_body(Algorithm::allpairs), 7 * sizeof(float));
  EXPECT_GT(cpu_bytes_per_body(Algorithm::barneshut), cpu_bytes_per_body(Algorithm::allpairs));
}

}  // namespace
}  // namespace nbl
