#include "sim/render_vertices.hpp"

#include <algorithm>
#include <cmath>

namespace nbl {

ColorScales color_scales(const Bodies& b) {
  double m = 0, cx = 0, cy = 0, cz = 0, max_mass = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    m += b.mass[i];
    cx += double(b.mass[i]) * b.x[i], cy += double(b.mass[i]) * b.y[i], cz += double(b.mass[i]) * b.z[i];
    max_mass = std::max<double>(max_mass, b.mass[i]);
  }
  if (m > 0) cx /= m, cy /= m, cz /= m;
  double r2 = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    const double dx = b.x[i] - cx, dy = b.y[i] - cy, dz = b.z[i] - cz;
    r2 += dx * dx + dy * dy + dz * dz;
  }
  const double radius = b.size() ? std::sqrt(r2 / static_cast<double>(b.size())) : 0;
  ColorScales s;
  if (m > 0 && radius > 0 && std::isfinite(m) && std::isfinite(radius)) {
    s.speed = static_cast<float>(std::sqrt(m / radius));
    s.acceleration = static_cast<float>(m / (radius * radius));
  }
  if (max_mass > 0 && std::isfinite(max_mass)) s.max_mass = static_cast<float>(max_mass);
  return s;
}

float* write_vertex_positions(const Bodies& bodies, float* buffer) {
  const std::size_t n = bodies.size();
  for (std::size_t i = 0; i < n; ++i) {
    buffer[4 * i + 0] = bodies.x[i];
    buffer[4 * i + 1] = bodies.y[i];
    buffer[4 * i + 2] = bodies.z[i];
    buffer[4 * i + 3] = bodies.mass[i];
  }
  return buffer + vertex_color_key_offset(n) / sizeof(float);
}

}  // namespace nbl
