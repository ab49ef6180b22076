// Initial conditions, deterministic per (scene, n, seed): the same inputs give bit-identical bodies on
// every machine (own RNG, no std::distribution whose output varies between standard libraries). A few
// C math library calls remain (cbrt, log, exp, sin, cos); a libm that rounds one of them differently
// in its last bit could change the last bit of a body.
// All scenes are in N-body units (G = 1, total mass 1) and start with zero total momentum, centred on
// the origin.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/bodies.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct SceneDefaults {
  double dt;           // a time step that keeps energy drift small over a few hundred steps
  double softening;    // Plummer softening length suited to n
  double view_radius;  // radius that frames the scene (camera fit before the first frame)
};

// Bodies for a scene. plummer: Plummer sphere (Aarseth, Henon & Wielen 1974, as the tutorial's
// generator), virial radius 1. galaxy: exponential disk + Plummer bulge + dark Plummer halo in
// equilibrium (the halo: a quarter of the bodies, three quarters of the mass, after the stars).
// collision: two such galaxies on a parabolic encounter (both galaxies' stars, then both halos). sphere: uniform cold sphere (collapses).
// cube: uniform random cube with small random velocities. kepler: two bodies on an eccentric orbit
// (n must be 2; see kepler_period()).
// Throws InputError for n < 1 (and for kepler with n != 2).
Bodies make_scene(Scene scene, std::size_t n, std::uint64_t seed);

SceneDefaults scene_defaults(Scene scene, std::size_t n);

// Bodies born together (one galaxy of the collision, or the galaxies' dark halos), as a range of body
// indices. Every backend keeps the bodies in the order it was given them (sorting for the tree walk
// permutes an index, never the bodies), so the renderer colours by galaxy of origin from the index
// alone and no backend needs to know (ColorMode::origin). Scenes of one population are one group.
// Dark groups come last: the renderer draws the bodies before them unless asked to show dark matter,
// and sizes and brightens stars by their mass against the drawn bodies' mean (mass / count).
struct BodyGroup {
  std::size_t begin = 0, end = 0;
  std::string_view name;
  double mass = 0;    // the group's total mass; 0: unknown (the bodies' share of a unit total)
  bool dark = false;  // not drawn by default: a dark-matter halo
};
std::vector<BodyGroup> scene_groups(Scene scene, std::size_t n);
inline std::vector<BodyGroup> single_group(std::size_t n) { return {{0, n, "all bodies", 1.0}}; }

// The two-body Kepler scene's orbital parameters: semi-major axis, eccentricity, period.
struct KeplerOrbit {
  double semi_major_axis, eccentricity, period;
};
KeplerOrbit kepler_orbit();

// dt and softening from the settings when set, else the scene's defaults.
double effective_dt(const Settings& settings, std::size_t n);
double effective_softening(const Settings& settings, std::size_t n);

}  // namespace nbl
