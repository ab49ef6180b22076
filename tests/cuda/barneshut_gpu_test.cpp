// The GPU Barnes-Hut backend against the double-precision direct sum and against its own definition
// of the tree, on fresh random inputs every run (the seed is printed on failure). Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include <limits>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "cuda/barneshut/backend.hpp"
#include "cuda/barneshut/variant.hpp"
#include "tests/cuda/bh_tree_check.hpp"
#include "tests/cuda/kernel_test_support.hpp"
#include "tests/cuda/sliced_steps.hpp"
#include "cuda/device.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/accuracy.hpp"
#include "sim/diagnostics.hpp"
#include "sim/scenes.hpp"
#include "sim/tour.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

class BarnesHutGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
};

// The bound every build is held to at theta = 0.5 (sim/accuracy.hpp), the same the lab's build check uses.
const ForceErrorBound kBound = force_error_bound(Algorithm::barneshut, false, 0.5);

using test::fresh_seed;

// Cells open by the angle theta (the tests of relative opening, the default, set it).
Settings bh_settings(double theta, double softening = 0.01) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  s.backend = BackendKind::gpu;
  s.opening_angle = theta;
  s.toggles.set(Choice{"bh_opening", "geometric"});
  s.softening = softening;
  s.dt = 1e-3;
  return s;
}

// Both opening tests, for the tests of hard cases that every variant must survive.
const Choice kOpenings[] = {{"bh_opening", "relative"}, {"bh_opening", "geometric"}};

ForceError gpu_force_error(Backend& backend, const Bodies& bodies, double softening, std::size_t sample = 2000) {
  Accelerations approx;
  backend.compute_accelerations(approx);
  const auto indices = sample_indices(bodies.size(), sample, 5);
  return force_error(select(approx, indices), reference_accelerations(bodies, softening, indices));
}

std::string describe(const ForceError& e) {
  return "relative norm " + std::to_string(e.relative_norm) + ", p99 " + std::to_string(e.p99) + ", max " +
         std::to_string(e.max) + ", p99 / RMS acceleration " + std::to_string(e.normalized_p99) +
         ", max / RMS acceleration " + std::to_string(e.normalized_max) + (e.non_finite ? " (NaN/inf!)" : "");
}

TEST_F(BarnesHutGpu, ForcesMatchTheDirectSumWithinTheThetaBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 20000, seed);
  for (int k = 0; k < 4; ++k) {
    const int build = k % 2;
    Settings s = bh_settings(0.5);
    s.toggles["bh_build"] = build;  // each build, by index, with either opening test
    s.toggles.set(kOpenings[k / 2]);
    auto backend = std::make_unique<BarnesHutBackend>(s);
    backend->set_bodies(bodies);
    const ForceError e = gpu_force_error(*backend, bodies, 0.01);
    EXPECT_FALSE(e.non_finite);
    EXPECT_LE(e.p99, kBound.p99) << "build " << build << ": " << describe(e);
    // The largest error relative to the sample's RMS acceleration: a body whose net force nearly cancels
    // can show a large per-body relative error on some fresh sphere without any cell being wrong.
    EXPECT_LE(e.normalized_max, kBound.max) << "build " << build << ": " << describe(e);
  }
}

TEST_F(BarnesHutGpu, ErrorFallsAsThetaFallsAndVanishesAtZero) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 8192, seed);
  double previous = 1e30;
  for (double theta : {1.0, 0.7, 0.5, 0.3}) {
    auto backend = make_barneshut_backend(bh_settings(theta));
    backend->set_bodies(bodies);
    const ForceError e = gpu_force_error(*backend, bodies, 0.01);
    EXPECT_LT(e.rms, previous) << "theta " << theta << ": " << describe(e);
    previous = e.rms;
  }
  auto exact = make_barneshut_backend(bh_settings(0.0));
  exact->set_bodies(bodies);
  const ForceError e = gpu_force_error(*exact, bodies, 0.01);
  EXPECT_LE(e.relative_norm, 1e-5) << describe(e);  // theta = 0 opens every cell: a direct sum in float
}

TEST_F(BarnesHutGpu, EverySwitchCombinationStaysWithinTheBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 6000, seed);
  for (const ToggleValues& toggles : barneshut_toggle_sweep()) {
    for (double softening : {0.01, 0.0}) {
      Settings s = bh_settings(0.5, softening);
      s.toggles = toggles;
      auto backend = std::make_unique<BarnesHutBackend>(s);
      backend->set_bodies(bodies);
      const ForceError e = gpu_force_error(*backend, bodies, softening, 1000);
      EXPECT_FALSE(e.non_finite) << barneshut_variant(toggles, softening > 0).label;
      EXPECT_LE(e.p99, kBound.p99) << barneshut_variant(toggles, softening > 0).label << ": " << describe(e);
      EXPECT_LE(e.normalized_max, kBound.max) << barneshut_variant(toggles, softening > 0).label << ": " << describe(e);
      const test::TreeCheck check = test::check_tree(*backend);
      EXPECT_TRUE(check.problems.empty()) << barneshut_variant(toggles, true).label << ": " << check.listed();
    }
  }
}

// Three of the tutorial's switches change how the kernels work, never what they compute: the warp's vote
// (against agreeing through shared memory), stopping at a cell's first empty slot, and the sort kernel's
// throttling barrier. With and without each, on the same bodies, the forces agree to rounding and stay
// within the bound, and the tree passes its check.
TEST_F(BarnesHutGpu, VoteEarlyOutAndSortThrottleChangeNoForce) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 12000, seed);
  struct Case {
    const char* key;
    Choice traversal;
  };
  const Case cases[] = {{"bh_vote", {"bh_traversal", "warp"}},
                        {"bh_early_out", {"bh_traversal", "thread"}},
                        {"bh_early_out", {"bh_traversal", "warp"}},
                        {"bh_sort_throttle", {"bh_traversal", "thread"}}};
  for (const Case& c : cases) {
    for (double softening : {0.01, 0.0}) {
      Accelerations with, without;
      for (int value : {1, 0}) {
        Settings s = bh_settings(0.5, softening);
        s.toggles.set(Choice{"bh_build", "insertion"}).set(c.traversal);
        s.toggles.values[static_cast<std::size_t>(find_toggle(c.key) - kToggles.data())] = value;
        SCOPED_TRACE(barneshut_variant(s.toggles, softening > 0).label);
        auto backend = std::make_unique<BarnesHutBackend>(s);
        backend->set_bodies(bodies);
        backend->compute_accelerations(value ? with : without);
        const ForceError e = gpu_force_error(*backend, bodies, softening, 1000);
        EXPECT_FALSE(e.non_finite);
        EXPECT_LE(e.p99, kBound.p99) << describe(e);
        EXPECT_LE(e.normalized_max, kBound.max) << describe(e);
        const test::TreeCheck check = test::check_tree(*backend);
        EXPECT_TRUE(check.problems.empty()) << check.listed();
      }
      ASSERT_EQ(with.size(), without.size());
      double rms = 0, worst = 0;
      for (std::size_t i = 0; i < with.size(); ++i) {
        rms += without.x[i] * without.x[i] + without.y[i] * without.y[i] + without.z[i] * without.z[i];
        worst = std::max({worst, std::abs(with.x[i] - without.x[i]), std::abs(with.y[i] - without.y[i]),
                          std::abs(with.z[i] - without.z[i])});
      }
      rms = std::sqrt(rms / static_cast<double>(with.size()));
      EXPECT_LE(worst, 1e-5 * rms) << c.key << " changed the forces (softening " << softening << ")";
    }
  }
}

// Every step of the Barnes-Hut tour, in the configuration it declares (its toggles and theta), stays within
// the bound: by angle at the step's theta, and with the relative test within theta 0.65's, as the tests of
// relative opening hold it.
TEST_F(BarnesHutGpu, EveryStepOfTheTourStaysWithinTheBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 12000, seed);
  const Tour tour = load_tour(TourKind::barneshut);
  for (std::size_t i = 0; i < tour.steps.size(); ++i) {
    const Settings s = with_step_settings(tour, i, bh_settings(0.5));
    SCOPED_TRACE("step " + std::to_string(i + 1) + ": " + barneshut_variant(s.toggles, true).label);
    auto backend = std::make_unique<BarnesHutBackend>(s);
    backend->set_bodies(bodies);
    const ForceError e = gpu_force_error(*backend, bodies, 0.01, 1000);
    const bool relative = s.toggles.is(Choice{"bh_opening", "relative"});
    const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, relative ? 0.65 : s.opening_angle);
    EXPECT_FALSE(e.non_finite);
    EXPECT_LE(e.p99, bound.p99) << describe(e);
    EXPECT_LE(e.normalized_max, bound.max) << describe(e);
  }
}

// The quadrupole's error is of order theta^3 against the monopole's theta^2 (physics/gravity.hpp): at the
// same theta every walk gets markedly closer to the direct sum with quadrupoles, and closer with the
// adaptive choice (quadrupoles only near the opening limit), at every group size.
TEST_F(BarnesHutGpu, QuadrupolesCutTheErrorOfEveryWalk) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 20000, seed);
  struct Shape {
    int traversal, group_size;
  };
  for (const Shape& shape : {Shape{0, 32}, Shape{1, 32}, Shape{2, 32}, Shape{2, 64}, Shape{2, 128}}) {
    for (double theta : {0.5, 0.7}) {
      ForceError errors[3];
      for (int moments = 0; moments < 3; ++moments) {
        Settings s = bh_settings(theta);
        s.toggles["bh_traversal"] = shape.traversal;
        s.toggles["bh_group_size"] = shape.group_size;
        s.toggles["bh_moments"] = moments;  // monopole, quadrupole, adaptive
        auto backend = std::make_unique<BarnesHutBackend>(s);
        backend->set_bodies(bodies);
        errors[moments] = gpu_force_error(*backend, bodies, 0.01);
        EXPECT_FALSE(errors[moments].non_finite);
      }
      const std::string where = "traversal " + std::to_string(shape.traversal) + ", group " +
                                std::to_string(shape.group_size) + ", theta " + std::to_string(theta) +
                                "\n monopole: " + describe(errors[0]) + "\n quadrupole: " + describe(errors[1]) +
                                "\n adaptive: " + describe(errors[2]);
      // Quadrupoles halve the error norm (force-weighted: bodies whose net force nearly cancels cannot
      // sway it) and cut the per-body RMS by a third. The per-body RMS was held to half too, and failed
      // at 0.51 with the group walk of 32 at theta 0.7 (H200, seed 13530099317068394096, whose norm ratio
      // was 0.37); on the CPU's group walk, over 31 seeds at theta 0.7, the ratios reach 0.47 and 0.44.
      EXPECT_LT(errors[1].relative_norm, 0.5 * errors[0].relative_norm) << where;
      EXPECT_LT(errors[1].rms, 0.65 * errors[0].rms) << where;
      EXPECT_LT(errors[2].rms, 0.8 * errors[0].rms) << where;
      EXPECT_LT(errors[1].p99, errors[0].p99) << where;
      const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, theta);
      for (const ForceError& e : errors) {
        EXPECT_LE(e.p99, bound.p99) << where;
        EXPECT_LE(e.normalized_max, bound.max) << where;
      }
    }
  }
}

// Relative opening (bh_opening = relative, physics/gravity.hpp): in every walk and with every moment
// order the error falls as the tolerance falls, and at the default tolerance it stays within the bound of
// the default theta. compute_accelerations on a fresh state runs the geometric pass, then the relative one.
TEST_F(BarnesHutGpu, RelativeOpeningErrorFallsWithTheToleranceInEveryWalk) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 20000, seed);
  const ForceErrorBound bound = force_error_bound(Algorithm::barneshut, false, 0.65);
  for (int traversal = 0; traversal < 3; ++traversal) {
    for (int moments = 0; moments < 3; ++moments) {
      double previous = 1e30;
      for (int tolerance : {160, 40, 10}) {
        Settings s = bh_settings(0.65);
        s.toggles["bh_traversal"] = traversal;
        s.toggles["bh_moments"] = moments;
        s.toggles.set(Choice{"bh_opening", "relative"});
        s.toggles["bh_tolerance"] = tolerance;
        auto backend = std::make_unique<BarnesHutBackend>(s);
        backend->set_bodies(bodies);
        const ForceError e = gpu_force_error(*backend, bodies, 0.01);
        const std::string where = "traversal " + std::to_string(traversal) + ", moments " + std::to_string(moments) +
                                  ", tolerance " + std::to_string(tolerance) + "e-4: " + describe(e);
        EXPECT_FALSE(e.non_finite) << where;
        EXPECT_LT(e.rms, previous) << where;
        previous = e.rms;
        if (tolerance == 40) {
          EXPECT_LE(e.p99, bound.p99) << where;
          EXPECT_LE(e.normalized_max, bound.max) << where;
        }
      }
    }
  }
}

// What relative opening is for: on a Plummer sphere the group walk at a tolerance of 40e-4 takes fewer
// interactions than the angle 0.65 for a smaller error (H200, 1M bodies, at the default 80e-4: 1.47e9
// against 2.48e9 interactions, p99 of the RMS-normalized error 1.46e-3 against 1.56e-3; BENCHMARKS.md,
// relative opening against the RMS pull). Steps first, so the relative walk judges by the previous step's pull as it does in a run.
// Smaller p99 both ways, and a smaller max relative to the RMS acceleration, the budget's unit. Not a
// smaller max relative to each body's own pull: the budget does not shrink where that pull is weak,
// and light cells (physics/gravity.hpp) accept a halo body's sparse neighbours whole (seed
// 14791868949977542712: 1.16% against the angle's 0.80%, while relative to the RMS 0.22% against 0.34%).
TEST_F(BarnesHutGpu, RelativeOpeningTakesFewerInteractionsForLessErrorThanTheAngle) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = make_scene(Scene::plummer, 50000, seed);
  double interactions[2] = {0, 0};
  ForceError errors[2];
  for (int relative = 0; relative < 2; ++relative) {
    Settings s = bh_settings(0.65);
    s.toggles.set(relative ? Choice{"bh_opening", "relative"} : Choice{"bh_opening", "geometric"});
    s.toggles["bh_tolerance"] = 40;
    auto backend = std::make_unique<BarnesHutBackend>(s);
    backend->set_bodies(bodies);
    const StepStats stats = backend->step();
    interactions[relative] = stats.interactions;
    Bodies now;
    backend->get_bodies(now);
    errors[relative] = gpu_force_error(*backend, now, 0.01);
    EXPECT_FALSE(errors[relative].non_finite);
  }
  const std::string where = "angle: " + std::to_string(interactions[0]) + " interactions, " + describe(errors[0]) +
                            "\n relative: " + std::to_string(interactions[1]) + " interactions, " + describe(errors[1]);
  EXPECT_LT(interactions[1], interactions[0]) << where;
  EXPECT_LT(errors[1].p99, errors[0].p99) << where;
  EXPECT_LT(errors[1].normalized_p99, errors[0].normalized_p99) << where;
  EXPECT_LT(errors[1].normalized_max, errors[0].normalized_max) << where;
}

TEST_F(BarnesHutGpu, TreeHoldsEveryBodyOnceAndTheRootHoldsAllTheMass) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (std::size_t n : {1u, 2u, 3u, 31u, 1000u, 4099u, 50000u}) {
    const Bodies bodies = make_scene(n == 2 ? Scene::kepler : Scene::plummer, n, seed + n);
    double mass = 0, mx = 0, my = 0, mz = 0;
    for (std::size_t i = 0; i < n; ++i) {
      mass += bodies.mass[i];
      mx += double(bodies.mass[i]) * bodies.x[i], my += double(bodies.mass[i]) * bodies.y[i],
          mz += double(bodies.mass[i]) * bodies.z[i];
    }
    for (int build = 0; build < 2; ++build) {
      for (int leaf : {1, 4, 8}) {
        Settings s = bh_settings(0.5);
        s.toggles["bh_build"] = build;  // each build, by index
        s.toggles["bh_leaf_capacity"] = leaf;
        auto backend = std::make_unique<BarnesHutBackend>(s);
        backend->set_bodies(bodies);
        const test::TreeCheck check = test::check_tree(*backend);
        const std::string where =
            "n " + std::to_string(n) + " build " + std::to_string(build) + " leaf " + std::to_string(leaf);
        ASSERT_TRUE(check.problems.empty()) << where << ": " << check.listed();
        EXPECT_EQ(check.root_count, static_cast<long long>(n)) << where;
        EXPECT_NEAR(check.root_mass, mass, 1e-5 * mass) << where;
        EXPECT_NEAR(check.root_center_of_mass[0], mx / mass, 1e-4) << where;
        EXPECT_NEAR(check.root_center_of_mass[1], my / mass, 1e-4) << where;
        EXPECT_NEAR(check.root_center_of_mass[2], mz / mass, 1e-4) << where;
      }
    }
  }
}

TEST_F(BarnesHutGpu, OneAndTwoBodiesWork) {
  for (const Choice opening : kOpenings) {
    SCOPED_TRACE(toggle_changes(ToggleValues{}, ToggleValues{}.set(opening), Algorithm::barneshut));
    Bodies one;
    one.resize(1);
    one.x[0] = 0.3f, one.mass[0] = 1.0f;
    Settings s = bh_settings(0.5);
    s.toggles.set(opening);
    auto backend = make_barneshut_backend(s);
    backend->set_bodies(one);
    Accelerations a;
    backend->compute_accelerations(a);
    EXPECT_EQ(a.x[0], 0.0);
    EXPECT_EQ(a.y[0], 0.0);
    const StepStats stats = backend->step();
    EXPECT_FALSE(stats.non_finite);

    const Bodies two = make_scene(Scene::kepler, 2, 1);
    for (double eps : {0.0, 0.01}) {
      Settings p = bh_settings(0.5, eps);
      p.toggles.set(opening);
      auto pair = make_barneshut_backend(p);
      pair->set_bodies(two);
      const ForceError e = gpu_force_error(*pair, two, eps, 2);
      EXPECT_LE(e.relative_norm, 1e-5) << describe(e);
    }
  }
}

Bodies cloud(std::size_t n, std::uint64_t seed, double radius) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-radius, radius);
  Bodies b;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b.x[i] = static_cast<float>(u(rng)), b.y[i] = static_cast<float>(u(rng)), b.z[i] = static_cast<float>(u(rng));
    b.mass[i] = 1.0f / static_cast<float>(n);
  }
  return b;
}

TEST_F(BarnesHutGpu, CoincidentBodiesFinishAndSayWhy) {
  Bodies b = cloud(1000, 3, 1.0);
  for (std::size_t i = 0; i < 600; ++i) b.x[i] = 0.25f, b.y[i] = -0.5f, b.z[i] = 0.125f;  // 600 at one point
  for (int build = 0; build < 2; ++build) {
    Settings s = bh_settings(0.5);
    s.toggles["bh_build"] = build;  // each build, by index
    auto backend = std::make_unique<BarnesHutBackend>(s);
    backend->set_bodies(b);
    const StepStats stats = backend->step();
    EXPECT_FALSE(stats.non_finite);
    bool said = false;
    for (const auto& notice : stats.notices) said |= notice.find("maximum depth") != std::string::npos;
    EXPECT_TRUE(said) << "build " << build;
    EXPECT_EQ(stats.tree.max_depth, 21);
    const test::TreeCheck check = test::check_tree(*backend);
    EXPECT_TRUE(check.problems.empty()) << check.listed();
    Accelerations a;
    backend->compute_accelerations(a);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(std::isfinite(a.x[i]) && std::isfinite(a.y[i]));
  }
}

TEST_F(BarnesHutGpu, BodiesOnALineAndHugeDynamicRangeStayAccurate) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Bodies line = cloud(10000, seed, 1.0);
  for (std::size_t i = 0; i < line.size(); ++i) line.y[i] = line.z[i] = 0.0f;
  Bodies range = cloud(4000, seed + 1, 1e-5);  // a dense clump ...
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> far(-1e4f, 1e4f);
  for (std::size_t i = 0; i < 2000; ++i)
    range.x[i] = far(rng), range.y[i] = far(rng), range.z[i] = far(rng);  // ... and a halo
  // A line is the worst case for a monopole (all mass on one axis): a looser bound there.
  for (const auto& [bodies, bound] : {std::pair{&line, 0.1}, std::pair{&range, 0.02}}) {
    for (int build = 0; build < 2; ++build) {
      Settings s = bh_settings(0.5, 1e-7);
      s.toggles["bh_build"] = build;  // each build, by index
      auto backend = std::make_unique<BarnesHutBackend>(s);
      backend->set_bodies(*bodies);
      const ForceError e = gpu_force_error(*backend, *bodies, 1e-7, 1000);
      EXPECT_FALSE(e.non_finite);
      EXPECT_LE(e.p99, bound) << "build " << build << ": " << describe(e);
      const test::TreeCheck check = test::check_tree(*backend);
      EXPECT_TRUE(check.problems.empty()) << "build " << build << ": " << check.listed();
    }
  }
}

TEST_F(BarnesHutGpu, AnExhaustedCellPoolGrowsAndTheTreeIsRebuilt) {
  const Bodies bodies = make_scene(Scene::plummer, 5000, fresh_seed());
  for (int build = 0; build < 2; ++build) {
    Settings s = bh_settings(0.5);
    s.toggles["bh_build"] = build;  // each build, by index
    auto backend =
        std::make_unique<BarnesHutBackend>(s, BarnesHutBackend::Options{.initial_cells = 8, .engine = nullptr});
    backend->set_bodies(bodies);
    const StepStats stats = backend->step();
    bool grown = false;
    for (const auto& notice : stats.notices) grown |= notice.find("cell pool grown") != std::string::npos;
    EXPECT_TRUE(grown) << "build " << build;
    Bodies now;
    backend->get_bodies(now);
    EXPECT_LE(gpu_force_error(*backend, now, 0.01).p99, kBound.p99);
    const test::TreeCheck check = test::check_tree(*backend);
    EXPECT_TRUE(check.problems.empty()) << "build " << build << ": " << check.listed();
  }
}

TEST_F(BarnesHutGpu, AStepMatchesTheCpuDirectSumAtThetaZero) {
  const Bodies start = make_scene(Scene::plummer, 3000, fresh_seed());
  Settings s = bh_settings(0.0);
  auto gpu = make_barneshut_backend(s);
  auto cpu = make_cpu_allpairs(s, CpuPrecision::double_accumulate);
  cpu->configure(s);
  gpu->set_bodies(start);
  cpu->set_bodies(start);
  for (int i = 0; i < 3; ++i) {
    gpu->step();
    cpu->step();
  }
  Bodies g, c;
  gpu->get_bodies(g);
  cpu->get_bodies(c);
  double worst = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    worst = std::max({worst, std::fabs(double(g.x[i]) - c.x[i]), std::fabs(double(g.y[i]) - c.y[i]),
                      std::fabs(double(g.vz[i]) - c.vz[i])});
  }
  EXPECT_LT(worst, 1e-5);
}

TEST_F(BarnesHutGpu, NanInTheStateIsReportedNotDrawn) {
  Bodies b = make_scene(Scene::plummer, 2000, 9);
  b.x[17] = std::nanf("");
  auto backend = make_barneshut_backend(bh_settings(0.5));
  backend->set_bodies(b);
  const StepStats stats = backend->step();
  EXPECT_TRUE(stats.non_finite);
}

// A NaN in the very first step: the bounding box flags it and every later kernel (keys, radix tree,
// cells, moments, walks, kick, tree order for colours) leaves at once, so none indexes with keys, ids
// or links that were never written. scripts/gpu-suite.sh runs this test under compute-sanitizer
// memcheck, which is what catches an out-of-bounds access here; the test itself checks the report.
TEST_F(BarnesHutGpu, NanInTheFirstStepStopsEveryKernelInBothBuilds) {
  const Choice builds[] = {{"bh_build", "morton"}, {"bh_build", "insertion"}};
  const Choice walks[] = {{"bh_traversal", "thread"}, {"bh_traversal", "warp"}, {"bh_traversal", "group"}};
  for (const Choice build : builds) {
    for (const auto& [walk, opening] : {std::pair{walks[0], kOpenings[0]}, std::pair{walks[1], kOpenings[0]},
                                        std::pair{walks[2], kOpenings[0]}, std::pair{walks[2], kOpenings[1]}}) {
      Settings s = bh_settings(0.5);
      s.toggles.set(build).set(walk).set(opening);
      SCOPED_TRACE(toggle_changes(ToggleValues{}, s.toggles, Algorithm::barneshut));
      Bodies b = make_scene(Scene::plummer, 3000, fresh_seed());
      b.y[1234] = std::numeric_limits<float>::infinity();
      b.x[2] = std::nanf("");
      auto backend = make_barneshut_backend(s);
      backend->set_bodies(b);  // fresh buffers: nothing of a previous step to fall back on
      const StepStats stats = backend->step();
      EXPECT_TRUE(stats.non_finite);
      EXPECT_TRUE(backend->tree_cells(4).empty()) << "no tree was built to draw";
      std::vector<unsigned char> buffer(3000 * 20, 0);
      for (ColorMode mode : {ColorMode::body_index, ColorMode::warp_id, ColorMode::tree_depth})
        backend->write_vertices({buffer.data(), false}, mode);  // reads the (unwritten) tree order: no fault
      Accelerations a;
      EXPECT_THROW(backend->compute_accelerations(a), Error);
    }
  }
}

// compute-sanitizer from the CUDA Toolkit: on the PATH, else where the toolkit installs it.
std::string find_compute_sanitizer() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH"))
    for (std::string rest = path; !rest.empty();) {
      const auto colon = rest.find(':');
      dirs.push_back(rest.substr(0, colon));
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& dir : dirs) {
    const std::string candidate = dir + "/compute-sanitizer";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

// The NaN-in-the-first-step case (every kernel must leave before it indexes with keys and ids that were
// never written), one and two bodies, and 600 coincident bodies (the insertion build parts them by id
// below the deepest level), each build and walk, rerun by this binary under compute-sanitizer's
// memcheck and racecheck: no out-of-bounds or misaligned access, no shared-memory race.
TEST_F(BarnesHutGpu, HardCasesAreCleanUnderMemcheckAndRacecheck) {
  const std::string sanitizer = find_compute_sanitizer();
  if (sanitizer.empty()) GTEST_SKIP() << "compute-sanitizer not found (PATH, /usr/local/cuda/bin)";
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string filter =
      "BarnesHutGpu.NanInTheFirstStepStopsEveryKernelInBothBuilds:BarnesHutGpu.OneAndTwoBodiesWork:"
      "BarnesHutGpu.CoincidentBodiesFinishAndSayWhy";
  const auto log = std::filesystem::temp_directory_path() / ("nbl-sanitizer-" + std::to_string(::getpid()) + ".log");
  for (const char* tool : {"memcheck", "racecheck"}) {
    SCOPED_TRACE(tool);
    const std::string command = "'" + sanitizer + "' --tool " + tool + " --error-exitcode 3 '" + self +
                                "' --gtest_filter=" + filter + " > '" + log.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string tail = text.size() > 4000 ? text.substr(text.size() - 4000) : text;
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << tail;
    EXPECT_NE(text.find("[  PASSED  ] 3 tests"), std::string::npos) << "all three ran and passed:\n" << tail;
    const std::string clean = std::string(tool) == "racecheck"
                                  ? "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
                                  : "ERROR SUMMARY: 0 errors";
    EXPECT_NE(text.find(clean), std::string::npos) << tail;
  }
  std::filesystem::remove(log);
}

// The lab's stepping thread splits a slow force pass into launches over slices of the walk's work
// items (StepControl, sim/backend.hpp; cuda/step_slices.hpp): the state is the unsliced one, bit for bit,
// in every walk (per thread, warp, groups) under both opening tests; an abandoned step leaves the state
// as it was, and the next step is the one that would have come.
TEST_F(BarnesHutGpu, SlicedStepsAreBitIdenticalAndAnAbandonedOneChangesNothing) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies start = make_scene(Scene::plummer, 30000, seed);
  const Choice kTraversals[] = {{"bh_traversal", "thread"}, {"bh_traversal", "warp"}, {"bh_traversal", "group"}};
  for (const Choice traversal : kTraversals)
    for (const Choice opening : kOpenings) {
      Settings s = bh_settings(0.5);
      s.toggles.set(traversal);
      s.toggles.set(opening);
      SCOPED_TRACE(toggle_changes(ToggleValues{}, s.toggles, Algorithm::barneshut));
      BarnesHutBackend whole(s), sliced(s);
      test::expect_sliced_steps_match_whole_ones(whole, sliced, start, /*same_interactions=*/true);
    }
}

// A walk that runs whole (up to 256 warps of bodies per SM: a million bodies) is stopped inside its
// launch: the stepping thread raises a word the walk's warps read as they start (StopWord,
// cuda/step_slices.hpp). Asked before the launch ends, the step is abandoned and the state is as it
// was; asked while it runs, the step is either abandoned so or finished, and either way the steps after
// it are the ones an uncontrolled backend takes, bit for bit.
TEST_F(BarnesHutGpu, AWholeWalkStopsInsideItsLaunchAndChangesNothing) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies start = make_scene(Scene::plummer, 60000, seed);
  const Choice kTraversals[] = {{"bh_traversal", "thread"}, {"bh_traversal", "warp"}, {"bh_traversal", "group"}};
  for (const Choice traversal : kTraversals) {
    Settings s = bh_settings(0.5);
    s.toggles.set(traversal);
    s.toggles["bh_sort"] = 0;
    SCOPED_TRACE(toggle_changes(ToggleValues{}, s.toggles, Algorithm::barneshut));
    BarnesHutBackend whole(s), stopped(s);
    whole.set_bodies(start);
    stopped.set_bodies(start);
    std::atomic<bool> abandon{false};
    StepControl control;
    control.abandon = &abandon;
    control.slice_ms = 1e-6;  // every pass is long: stoppable, and whole (its warps fit one launch)
    stopped.set_step_control(control);
    const auto same = [&](const char* what) {
      Bodies x, y;
      whole.get_bodies(x);
      stopped.get_bodies(y);
      EXPECT_TRUE(x.x == y.x && x.y == y.y && x.z == y.z && x.vx == y.vx && x.vy == y.vy && x.vz == y.vz) << what;
    };
    whole.step();
    const StepStats first = stopped.step();
    EXPECT_FALSE(first.abandoned);
    EXPECT_LE(first.force_slices, 1) << "the walk ran in one launch";
    same("a stoppable walk that is not stopped gives the uncontrolled state");

    abandon = true;  // raised as the launch starts
    EXPECT_TRUE(stopped.step().abandoned);
    same("a stopped walk leaves the state as it was");
    abandon = false;

    std::thread asker([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      abandon = true;
    });
    const StepStats raced = stopped.step();
    asker.join();
    abandon = false;
    if (!raced.abandoned) whole.step();
    same(raced.abandoned ? "stopped while it ran: the state as it was" : "finished before the request: the next state");
    whole.step();
    stopped.step();
    same("the step after a stopped one is the step that would have come");
  }
}

TEST_F(BarnesHutGpu, VerticesCarryPositionsMassAndColourKeys) {
  const Bodies bodies = make_scene(Scene::collision, 4000, 2);
  auto backend = make_barneshut_backend(bh_settings(0.5));
  backend->set_bodies(bodies);
  backend->step();
  Bodies now;
  backend->get_bodies(now);
  for (ColorMode mode : {ColorMode::speed, ColorMode::body_index, ColorMode::tree_depth}) {
    std::vector<unsigned char> buffer(4000 * 20, 0xff);
    backend->write_vertices({buffer.data(), false}, mode);
    const float* pos = reinterpret_cast<const float*>(buffer.data());
    const float* key = reinterpret_cast<const float*>(buffer.data() + 4000 * 16);
    for (std::size_t i = 0; i < 4000; ++i) {
      ASSERT_EQ(pos[4 * i], now.x[i]);
      ASSERT_EQ(pos[4 * i + 3], now.mass[i]);
      ASSERT_GE(key[i], 0.0f);
      ASSERT_LE(key[i], 1.0f);
    }
  }
}

TEST_F(BarnesHutGpu, HotReloadSwapsInACheckedEditAndKeepsTheOldBuildOtherwise) {
  test::ScratchDir dir("nbl-bh-reload");
  auto copy = test::engine_on_copy(dir.path() / "kernels", "");
  const auto file = dir.path() / "kernels" / "bh_force_group.cu";
  auto rewrite = [&](const std::string& from, const std::string& to) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::trunc) << text;
  };
  const std::string evaluate =
      "for (int k = 0; k < kSlots; ++k) interact(e, b.x[k], b.y[k], b.z[k], eps2, b.ax[k], b.ay[k], b.az[k]);";
  const std::string call = "interact(e, b.x[k], b.y[k], b.z[k], eps2, b.ax[k], b.ay[k], b.az[k])";
  const Bodies bodies = make_scene(Scene::plummer, 20000, fresh_seed());
  BarnesHutBackend backend(bh_settings(0.5), BarnesHutBackend::Options{.engine = copy});
  backend.set_bodies(bodies);
  backend.step();
  Bodies now;
  backend.get_bodies(now);
  const double good_p99 = gpu_force_error(backend, now, 0.01).p99;
  auto force_info = [&] { return backend.kernel_info().front(); };  // bh_force comes first

  // 1. Does not compile: the old build runs on, the compiler's log is exposed.
  rewrite(evaluate, "for (int k = 0; k < kSlots; ++k) " + call + "  // broken");
  EXPECT_FALSE(backend.poll_reload(true));
  EXPECT_TRUE(force_info().reload_failed);
  EXPECT_NE(force_info().compile_log.find("error"), std::string::npos);
  EXPECT_LE(gpu_force_error(backend, now, 0.01).p99, kBound.p99);

  // 2. Compiles but every far interaction counts twice: refused by the check, with the reason.
  rewrite(call + "  // broken", "{ " + call + "; " + call + "; }");
  EXPECT_FALSE(backend.poll_reload(true));
  EXPECT_TRUE(force_info().reload_failed);
  EXPECT_NE(force_info().compile_log.find("refused"), std::string::npos) << force_info().compile_log;
  EXPECT_NEAR(gpu_force_error(backend, now, 0.01).p99, good_p99, 1e-3);  // the old build still runs

  // 3. A harmless edit: checked and swapped in.
  rewrite("{ " + call + "; " + call + "; }", call + ";  // edited while running");
  EXPECT_TRUE(backend.poll_reload(true));
  EXPECT_FALSE(force_info().reload_failed);
  EXPECT_LE(gpu_force_error(backend, now, 0.01).p99, kBound.p99);
  EXPECT_FALSE(backend.step().non_finite);
}

TEST_F(BarnesHutGpu, AnAsynchronousSwitchBuildsBesideTheRunningPipelineAndSwapsBetweenSteps) {
  const Bodies bodies = make_scene(Scene::plummer, 20000, fresh_seed());
  BarnesHutBackend backend(bh_settings(0.5));
  backend.set_bodies(bodies);
  Settings s = bh_settings(0.5);
  s.toggles.set({"bh_build", "insertion"});  // another build strategy: its scratch is swapped too
  s.toggles.set({"bh_traversal", "warp"});
  ASSERT_FALSE(backend.configure_async(s));
  EXPECT_FALSE(backend.builds().empty());
  std::optional<ConfigureOutcome> outcome;
  for (int i = 0; i < 6000 && !outcome; ++i) {  // at most a minute
    EXPECT_FALSE(backend.step().non_finite);    // the running pipeline keeps stepping meanwhile
    outcome = backend.poll_configure();
    if (!outcome) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(outcome->accepted) << outcome->message;
  const StepStats stats = backend.step();
  EXPECT_FALSE(stats.non_finite);
  EXPECT_TRUE(stats.stage_ms("sort") > 0) << "the insertion build sorts in its own kernel";
  Bodies now;
  backend.get_bodies(now);
  EXPECT_LE(gpu_force_error(backend, now, 0.01).p99, kBound.p99);
  EXPECT_TRUE(test::check_tree(backend).problems.empty());
}

TEST_F(BarnesHutGpu, AbComparesTwoOpeningAnglesAndTwoSwitchSetsOnTheSameState) {
  const Bodies bodies = make_scene(Scene::plummer, 30000, fresh_seed());
  BarnesHutBackend backend(bh_settings(0.5));
  backend.set_bodies(bodies);
  auto wait_for_sample = [&] {
    std::optional<ComparisonSample> sample;
    for (int i = 0; i < 6000 && !sample; ++i) {  // at most a minute
      EXPECT_FALSE(backend.step().non_finite);
      sample = backend.compare();
      if (!sample) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return sample;
  };
  backend.set_comparison(bh_settings(0.3));  // the same kernels, a smaller theta
  const auto theta = wait_for_sample();
  ASSERT_TRUE(theta);
  EXPECT_GT(theta->difference_max, 0.0);
  EXPECT_LE(theta->difference_max, kBound.max) << "both are within the theta = 0.5 bound of the direct sum";
  EXPECT_GT(theta->b.size(), 3u) << "B's tree build, summarize and force are timed";
  Settings warp = bh_settings(0.5);
  warp.toggles.set({"bh_traversal", "warp"});
  backend.set_comparison(warp);
  const auto walk = wait_for_sample();
  ASSERT_TRUE(walk);
  EXPECT_LE(walk->difference_max, kBound.max);
  EXPECT_FALSE(walk->non_finite);
  Bodies now;
  backend.get_bodies(now);
  EXPECT_LE(gpu_force_error(backend, now, 0.01).p99, kBound.p99);
}

}  // namespace
}  // namespace nbl
