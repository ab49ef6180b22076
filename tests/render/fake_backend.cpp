#include "fake_backend.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/render_vertices.hpp"

namespace nbl::testing {

void FakeBackend::write_vertices(VertexTarget target, ColorMode mode) {
  if (target.on_device) throw std::logic_error("FakeBackend has no device memory");
  const std::size_t n = bodies_.size();
  float* keys = write_vertex_positions(bodies_, static_cast<float*>(target.data));
  for (std::size_t i = 0; i < n; ++i) {
    const float r = std::sqrt(bodies_.x[i] * bodies_.x[i] + bodies_.y[i] * bodies_.y[i]);
    keys[i] = mode == ColorMode::body_index ? static_cast<float>(i) / static_cast<float>(n) : std::fmin(r, 1.0f);
  }
}

std::vector<CellBox> FakeBackend::tree_cells(int max_depth) {
  std::vector<CellBox> cells{{{0, 0, 0}, 1.6f, 0}};
  if (max_depth >= 1)
    for (int k = 0; k < 8; ++k)
      cells.push_back({{k & 1 ? 0.8f : -0.8f, k & 2 ? 0.8f : -0.8f, k & 4 ? 0.8f : -0.8f}, 0.8f, 1});
  return cells;
}

Bodies blob(std::size_t n, float radius) {
  Bodies b;
  b.resize(n);
  std::uint32_t state = 12345;
  auto uniform = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const float r = std::fmin(-0.25f * radius * std::log(1.0f - 0.999f * uniform()), radius);  // exponential disk
    const float a = 6.2831853f * uniform();
    b.x[i] = r * std::cos(a);
    b.y[i] = r * std::sin(a);
    b.z[i] = 0.05f * radius * (uniform() - 0.5f);
    b.vx[i] = b.vy[i] = b.vz[i] = 0;
    b.mass[i] = 1.0f / static_cast<float>(n);
  }
  return b;
}

}  // namespace nbl::testing
