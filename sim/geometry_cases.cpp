#include "sim/geometry_cases.hpp"

#include <cmath>
#include <numbers>
#include <random>

#include "sim/scenes.hpp"

namespace nbl {

std::string_view to_string(GeometryCase c) {
  switch (c) {
    case GeometryCase::plummer: return "plummer";
    case GeometryCase::far_outlier: return "far outlier";
    case GeometryCase::coincident: return "coincident";
    case GeometryCase::line: return "line";
    case GeometryCase::plane: return "plane";
    case GeometryCase::ejecta: return "ejecta";
  }
  return "?";
}

namespace {

// Appends `count` bodies at rest at (x, y, z) with the mass of body 0.
void add_at_rest(Bodies& b, std::size_t count, float x, float y, float z) {
  const std::size_t n = b.size();
  const float mass = b.mass[0];
  b.resize(n + count);
  for (std::size_t i = n; i < n + count; ++i) {
    b.x[i] = x;
    b.y[i] = y;
    b.z[i] = z;
    b.vx[i] = b.vy[i] = b.vz[i] = 0;
    b.mass[i] = mass;
  }
}

// Appends `count` bodies at rest, at radii evenly spread in log from r_min to r_max, in directions
// uniform on the sphere, with the mass of body 0.
void add_ejecta(Bodies& b, std::size_t count, double r_min, double r_max, std::uint64_t seed) {
  const std::size_t n = b.size();
  add_at_rest(b, count, 0, 0, 0);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = n; i < n + count; ++i) {
    const double r = r_min * std::pow(r_max / r_min, unit(rng));
    const double cos_t = 2 * unit(rng) - 1, sin_t = std::sqrt(1 - cos_t * cos_t),
                 phi = 2 * std::numbers::pi * unit(rng);
    b.x[i] = static_cast<float>(r * sin_t * std::cos(phi));
    b.y[i] = static_cast<float>(r * sin_t * std::sin(phi));
    b.z[i] = static_cast<float>(r * cos_t);
  }
}

}  // namespace

Bodies make_geometry_case(GeometryCase c, std::size_t n, std::uint64_t seed) {
  Bodies b = make_scene(Scene::plummer, n, seed);
  switch (c) {
    case GeometryCase::plummer: break;
    case GeometryCase::far_outlier: add_at_rest(b, 1, 1e20f, 0, 0); break;
    case GeometryCase::coincident: add_at_rest(b, n / 10, b.x[0], b.y[0], b.z[0]); break;
    case GeometryCase::line:
      for (std::size_t i = 0; i < n; ++i) b.y[i] = b.z[i] = b.vy[i] = b.vz[i] = 0;
      break;
    case GeometryCase::plane:
      for (std::size_t i = 0; i < n; ++i) b.z[i] = b.vz[i] = 0;
      break;
    case GeometryCase::ejecta: add_ejecta(b, n / 100, 10.0, 10000.0, seed); break;
  }
  return b;
}

}  // namespace nbl
