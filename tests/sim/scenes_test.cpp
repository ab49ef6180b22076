// Initial conditions: deterministic, in N-body units, at rest at the origin; bad n refused.
#include "sim/scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <string>

#include "sim/diagnostics.hpp"
#include "sim/error.hpp"

namespace nbl {
namespace {

constexpr Scene kAllScenes[] = {Scene::collision, Scene::galaxy, Scene::plummer, Scene::sphere, Scene::cube, Scene::kepler};

std::size_t test_size(Scene scene) { return scene == Scene::kepler ? 2 : 3000; }

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

bool bit_identical(const Bodies& a, const Bodies& b) {
  return bit_identical(a.x, b.x) && bit_identical(a.y, b.y) && bit_identical(a.z, b.z) && bit_identical(a.vx, b.vx) &&
         bit_identical(a.vy, b.vy) && bit_identical(a.vz, b.vz) && bit_identical(a.mass, b.mass);
}

class EveryScene : public ::testing::TestWithParam<Scene> {};

TEST_P(EveryScene, SameSeedGivesBitIdenticalBodies) {
  const Scene scene = GetParam();
  const Bodies a = make_scene(scene, test_size(scene), 42);
  const Bodies b = make_scene(scene, test_size(scene), 42);
  EXPECT_TRUE(bit_identical(a, b));
}

// The kepler scene has no randomness to vary.
class RandomScene : public ::testing::TestWithParam<Scene> {};

TEST_P(RandomScene, DifferentSeedGivesDifferentBodies) {
  const Scene scene = GetParam();
  const Bodies a = make_scene(scene, test_size(scene), 42);
  const Bodies b = make_scene(scene, test_size(scene), 43);
  // Positions, since the cold sphere's velocities are all zero whatever the seed.
  EXPECT_FALSE(bit_identical(a.x, b.x));
  EXPECT_FALSE(bit_identical(a.z, b.z));
}

TEST_P(EveryScene, HasUnitMassZeroMomentumAndCentreAtOrigin) {
  const Scene scene = GetParam();
  const Bodies b = make_scene(scene, test_size(scene), 7);
  ASSERT_EQ(b.size(), test_size(scene));
  ASSERT_TRUE(all_finite(b));
  double mass = 0, cx = 0, cy = 0, cz = 0, scale = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    EXPECT_GT(b.mass[i], 0.0f);
    mass += b.mass[i];
    cx += b.mass[i] * static_cast<double>(b.x[i]);
    cy += b.mass[i] * static_cast<double>(b.y[i]);
    cz += b.mass[i] * static_cast<double>(b.z[i]);
    scale += b.mass[i] * std::sqrt(double(b.vx[i]) * b.vx[i] + double(b.vy[i]) * b.vy[i] + double(b.vz[i]) * b.vz[i]);
  }
  EXPECT_NEAR(mass, 1.0, 1e-5);
  EXPECT_NEAR(cx, 0.0, 1e-6);
  EXPECT_NEAR(cy, 0.0, 1e-6);
  EXPECT_NEAR(cz, 0.0, 1e-6);
  const auto p = linear_momentum(b);
  const double tolerance = 1e-6 * std::max(scale, 1.0);
  EXPECT_NEAR(p[0], 0.0, tolerance);
  EXPECT_NEAR(p[1], 0.0, tolerance);
  EXPECT_NEAR(p[2], 0.0, tolerance);
}

TEST_P(EveryScene, ZeroBodiesIsAnInputError) {
  EXPECT_THROW(make_scene(GetParam(), 0, 1), InputError);
}

TEST_P(EveryScene, DefaultsArePositiveAndFinite) {
  for (std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{1} << 20}) {
    const SceneDefaults d = scene_defaults(GetParam(), n);
    EXPECT_GT(d.dt, 0.0);
    EXPECT_TRUE(std::isfinite(d.dt));
    EXPECT_GE(d.softening, 0.0);
    EXPECT_GT(d.view_radius, 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Scenes, EveryScene, ::testing::ValuesIn(kAllScenes),
                         [](const auto& info) { return std::string(to_string(info.param)); });
INSTANTIATE_TEST_SUITE_P(Scenes, RandomScene,
                         ::testing::Values(Scene::collision, Scene::galaxy, Scene::plummer, Scene::sphere, Scene::cube),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(Scenes, SingleBodyScenesWork) {
  for (Scene scene : {Scene::collision, Scene::galaxy, Scene::plummer, Scene::sphere, Scene::cube}) {
    const Bodies b = make_scene(scene, 1, 3);
    ASSERT_EQ(b.size(), 1u) << to_string(scene);
    EXPECT_FLOAT_EQ(b.mass[0], 1.0f);
    EXPECT_TRUE(all_finite(b));
  }
}

TEST(Scenes, KeplerWithOtherThanTwoBodiesIsAnInputError) {
  EXPECT_THROW(make_scene(Scene::kepler, 3, 1), InputError);
  EXPECT_THROW(make_scene(Scene::kepler, 1, 1), InputError);
  try {
    make_scene(Scene::kepler, 5, 1);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("2 bodies"), std::string::npos) << e.what();
  }
}

TEST(Scenes, KeplerBodiesFollowTheAdvertisedOrbit) {
  const Bodies b = make_scene(Scene::kepler, 2, 1);
  const KeplerOrbit orbit = kepler_orbit();
  const double mu = double(b.mass[0]) + b.mass[1];
  const double rx = double(b.x[1]) - b.x[0], ry = double(b.y[1]) - b.y[0], rz = double(b.z[1]) - b.z[0];
  const double vx = double(b.vx[1]) - b.vx[0], vy = double(b.vy[1]) - b.vy[0], vz = double(b.vz[1]) - b.vz[0];
  const double r = std::sqrt(rx * rx + ry * ry + rz * rz);
  const double specific_energy = 0.5 * (vx * vx + vy * vy + vz * vz) - mu / r;
  const double a = -mu / (2 * specific_energy);
  const double hx = ry * vz - rz * vy, hy = rz * vx - rx * vz, hz = rx * vy - ry * vx;
  const double e = std::sqrt(1 - (hx * hx + hy * hy + hz * hz) / (mu * a));
  EXPECT_NEAR(a, orbit.semi_major_axis, 1e-6);
  EXPECT_NEAR(e, orbit.eccentricity, 1e-6);
  EXPECT_NEAR(orbit.period, 2 * std::numbers::pi * std::sqrt(a * a * a / mu), 1e-5);
  EXPECT_EQ(scene_defaults(Scene::kepler, 2).softening, 0.0);
  EXPECT_GE(orbit.period / scene_defaults(Scene::kepler, 2).dt, 1000.0);
}

TEST(Scenes, PlummerSphereHasVirialRadiusOne) {
  // Henon units: E = -1/4, so W = -1/2 and K = 1/4 (the outer 0.1% of mass is cut, n is finite).
  const Bodies b = make_scene(Scene::plummer, 4000, 5);
  const EnergyReport e = energy(b, 0.0);
  EXPECT_NEAR(e.potential, -0.5, 0.03);
  EXPECT_NEAR(e.kinetic, 0.25, 0.02);
}

TEST(Scenes, SofteningShrinksAsBodiesGrowDense) {
  EXPECT_GT(scene_defaults(Scene::plummer, 1000).softening, scene_defaults(Scene::plummer, 100000).softening);
  EXPECT_GE(scene_defaults(Scene::plummer, 100000).dt, 0.001);
}

TEST(Scenes, GalaxyRotatesCoherently) {
  // Disk bodies circle the same way: the angular momentum is large compared with what random
  // motions would give, and points along +z (counter-clockwise disk in the xy plane).
  const Bodies b = make_scene(Scene::galaxy, 4000, 9);
  const auto l = angular_momentum(b);
  double random_scale = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double r = std::sqrt(double(b.x[i]) * b.x[i] + double(b.y[i]) * b.y[i] + double(b.z[i]) * b.z[i]);
    const double v = std::sqrt(double(b.vx[i]) * b.vx[i] + double(b.vy[i]) * b.vy[i] + double(b.vz[i]) * b.vz[i]);
    random_scale += b.mass[i] * r * v;
  }
  EXPECT_GT(l[2], 0.5 * random_scale);
  EXPECT_LT(std::abs(l[0]) + std::abs(l[1]), 0.05 * l[2]);
}

TEST(Scenes, GalaxyStartsNearVirialEquilibrium) {
  const std::size_t n = 4000;
  const Bodies b = make_scene(Scene::galaxy, n, 9);
  const EnergyReport e = energy(b, scene_defaults(Scene::galaxy, n).softening);
  EXPECT_NEAR(e.virial_ratio(), 1.0, 0.12);
}

TEST(Scenes, EffectiveValuesPreferSettingsOverDefaults) {
  Settings s;
  s.scene = Scene::plummer;
  EXPECT_EQ(effective_dt(s, 5000), scene_defaults(Scene::plummer, 5000).dt);
  EXPECT_EQ(effective_softening(s, 5000), scene_defaults(Scene::plummer, 5000).softening);
  s.dt = 0.123;
  s.softening = 0.0;
  EXPECT_EQ(effective_dt(s, 5000), 0.123);
  EXPECT_EQ(effective_softening(s, 5000), 0.0);
}

}  // namespace
}  // namespace nbl
