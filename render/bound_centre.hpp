// The centre of mass of the bound bodies, from a sample (the camera follows it, so the
// galaxies stay in view while escapers fly off). Pure arithmetic, no GL: tests feed it made-up samples.
//
// "Bound" means negative energy relative to the centre of mass of the bound bodies:
//   E_i = |v_i - v_c|^2 / 2 - M_b / sqrt(|r_i - r_c|^2 + eps^2),
// with the bound mass M_b (the sample's, scaled to N) standing at the centre r_c. Far from the mass
// that is exact to leading order, and that is where escapers are; deep inside it overstates the binding
// of bodies that are bound anyway. eps is a twentieth of the sample's RMS radius, so a body passing
// through the centre is not counted as infinitely bound. Starting from the component-wise medians of
// position and velocity with every body's mass (robust to fast escapers, whose momentum would drag a
// mean), the bound set, then its centre of mass, mean velocity and M_b are recomputed until the set
// stops changing (at most kBoundIterations times).
//
// Velocities are not in the vertex buffer; they come from two samples of the same bodies a short time
// apart: v = (r(t1) - r(t0)) / (t1 - t0), exact for the leapfrog's straight drift over one step and
// close over a few.
#pragma once
#include <glm/glm.hpp>
#include <optional>

#include "render/body_sample.hpp"

namespace nbl {

struct BoundEstimate {
  glm::dvec3 centre{0.0};     // of the bound bodies, at the later sample's time
  double bound_fraction = 0;  // of the sample's mass
  int iterations = 0;
};

inline constexpr int kBoundIterations = 8;

// nullopt when the two samples are not the same bodies at two increasing times (a reset, a new N) or
// hold no finite body.
std::optional<BoundEstimate> estimate_bound_centre(const BodySample& earlier, const BodySample& later);

}  // namespace nbl
