#include "render/bound_centre.hpp"

#include <cmath>
#include <vector>

namespace nbl {

std::optional<BoundEstimate> estimate_bound_centre(const BodySample& earlier, const BodySample& later) {
  const std::size_t count = later.positions.size();
  if (count == 0 || earlier.positions.size() != count || earlier.stride != later.stride ||
      earlier.body_count != later.body_count || !(later.time > earlier.time))
    return std::nullopt;
  const double dt = later.time - earlier.time;
  const double mass_scale = static_cast<double>(later.body_count) / static_cast<double>(count);

  struct Body {
    glm::dvec3 r, v;
    double m;
  };
  std::vector<Body> bodies;
  bodies.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const glm::dvec4 a(earlier.positions[i]), b(later.positions[i]);
    const glm::dvec3 r(b), v = (glm::dvec3(b) - glm::dvec3(a)) / dt;
    if (!std::isfinite(r.x + r.y + r.z + v.x + v.y + v.z + b.w) || b.w < 0) continue;
    bodies.push_back({r, v, b.w * mass_scale});
  }
  if (bodies.empty()) return std::nullopt;

  std::vector<char> bound(bodies.size(), 1);
  BoundEstimate estimate;
  double total_mass = 0;
  for (const Body& b : bodies) total_mass += b.m;
  for (int iteration = 1; iteration <= kBoundIterations; ++iteration) {
    glm::dvec3 centre(0.0), velocity(0.0);
    double mass = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (!bound[i]) continue;
      centre += bodies[i].m * bodies[i].r;
      velocity += bodies[i].m * bodies[i].v;
      mass += bodies[i].m;
    }
    if (!(mass > 0)) break;  // nothing bound: keep the last centre
    centre /= mass;
    velocity /= mass;
    estimate.centre = centre;
    estimate.bound_fraction = total_mass > 0 ? mass / total_mass : 0;
    estimate.iterations = iteration;
    double r2_sum = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i)
      if (bound[i]) r2_sum += bodies[i].m * glm::dot(bodies[i].r - centre, bodies[i].r - centre);
    const double eps2 = r2_sum / mass / 400.0;  // (RMS radius / 20)^2
    bool changed = false;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const glm::dvec3 dr = bodies[i].r - centre, dv = bodies[i].v - velocity;
      const double energy = 0.5 * glm::dot(dv, dv) - mass / std::sqrt(glm::dot(dr, dr) + eps2);
      const char now = energy < 0 ? 1 : 0;
      changed |= now != bound[i];
      bound[i] = now;
    }
    if (!changed) break;
  }
  return estimate;
}

}  // namespace nbl
