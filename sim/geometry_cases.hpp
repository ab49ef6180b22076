// The inputs that used to break Barnes-Hut, built the same way for the tests and for
// `nbodylab bench geometry`: a Plummer sphere, and the same sphere with a far outlier, with a pile of
// coincident bodies, squashed onto a line, squashed onto a plane, and with ejecta around it. Every
// case but the first is judged against the first (same n, same seed): its cost (interactions and
// nodes touched per body) and its force error relative to the RMS acceleration (diagnostics.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/bodies.hpp"

namespace nbl {

enum class GeometryCase {
  plummer,      // the Plummer sphere of n bodies (scenes.hpp)
  far_outlier,  // the sphere plus one body at rest at x = 1e20
  coincident,   // the sphere plus n / 10 bodies at rest exactly on top of its body 0
  line,         // the sphere's bodies moved onto the x axis (y = z = 0, x and vx kept)
  plane,        // the sphere's bodies moved onto the xy plane (z = 0, x, y, vx, vy kept)
  ejecta,       // the sphere plus n / 100 bodies at rest, evenly spread in log radius from 10 to 10,000
                // in random directions: the stars a long collision run ejects, at every scale at once
};
inline constexpr GeometryCase kGeometryCases[] = {GeometryCase::plummer,    GeometryCase::far_outlier,
                                                  GeometryCase::coincident, GeometryCase::line,
                                                  GeometryCase::plane,      GeometryCase::ejecta};

std::string_view to_string(GeometryCase c);

// Every added body has the mass of one of the sphere's bodies.
Bodies make_geometry_case(GeometryCase c, std::size_t n, std::uint64_t seed);

}  // namespace nbl
