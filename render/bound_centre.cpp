#include "render/bound_centre.hpp"

#include <algorithm>
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

  // Start from the component-wise medians of position and velocity, not the mean: a tenth of the mass
  // flying off at twenty times the cluster's speed carries more momentum than the cluster, and a mean
  // velocity dragged by it would call every body unbound.
  auto median_of = [&](auto component) {
    std::vector<double> values;
    values.reserve(bodies.size());
    for (const Body& b : bodies) values.push_back(component(b));
    auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
  };
  glm::dvec3 centre(median_of([](const Body& b) { return b.r.x; }), median_of([](const Body& b) { return b.r.y; }),
                    median_of([](const Body& b) { return b.r.z; }));
  glm::dvec3 velocity(median_of([](const Body& b) { return b.v.x; }), median_of([](const Body& b) { return b.v.y; }),
                      median_of([](const Body& b) { return b.v.z; }));
  double total_mass = 0;
  for (const Body& b : bodies) total_mass += b.m;
  double mass = total_mass;
  std::vector<char> bound(bodies.size(), 1), now(bodies.size(), 0);
  BoundEstimate estimate;
  estimate.centre = centre;
  estimate.bound_fraction = 1;
  for (int iteration = 1; iteration <= kBoundIterations; ++iteration) {
    double r2_sum = 0, r2_mass = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i)
      if (bound[i])
        r2_sum += bodies[i].m * glm::dot(bodies[i].r - centre, bodies[i].r - centre), r2_mass += bodies[i].m;
    const double eps2 = r2_mass > 0 ? r2_sum / r2_mass / 400.0 : 0.0;  // (RMS radius / 20)^2
    bool changed = false;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const glm::dvec3 dr = bodies[i].r - centre, dv = bodies[i].v - velocity;
      // E < 0, multiplied through by the distance (no division in the loop that runs most).
      now[i] = 0.5 * glm::dot(dv, dv) * std::sqrt(glm::dot(dr, dr) + eps2) < mass ? 1 : 0;
      changed |= now[i] != bound[i];
    }
    glm::dvec3 next_centre(0.0), next_velocity(0.0);
    double next_mass = 0;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      if (!now[i]) continue;
      next_centre += bodies[i].m * bodies[i].r;
      next_velocity += bodies[i].m * bodies[i].v;
      next_mass += bodies[i].m;
    }
    estimate.iterations = iteration;
    if (!(next_mass > 0)) break;  // nothing bound: keep the last centre
    bound.swap(now);
    centre = next_centre / next_mass;
    velocity = next_velocity / next_mass;
    mass = next_mass;
    estimate.centre = centre;
    estimate.bound_fraction = total_mass > 0 ? mass / total_mass : 0;
    if (!changed && iteration > 1) break;
  }
  return estimate;
}

}  // namespace nbl
