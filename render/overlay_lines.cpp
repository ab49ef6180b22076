#include "render/overlay_lines.hpp"

#include <algorithm>
#include <cmath>

namespace nbl {

namespace {

// A hue per depth, cycling, fading with depth so the fine levels do not drown the coarse ones.
glm::vec4 depth_color(int depth) {
  static const glm::vec3 palette[] = {{0.35f, 0.55f, 1.0f}, {0.3f, 1.0f, 0.7f},  {1.0f, 0.85f, 0.3f},
                                      {1.0f, 0.45f, 0.3f},  {0.85f, 0.4f, 1.0f}, {0.4f, 0.9f, 1.0f}};
  const glm::vec3 rgb = palette[static_cast<std::size_t>(depth) % std::size(palette)];
  return {rgb, 0.16f * std::pow(0.8f, static_cast<float>(depth))};
}

}  // namespace

void append_box(std::vector<LineVertex>& out, const glm::vec3& lo, const glm::vec3& hi, const glm::vec4& color) {
  const glm::vec3 c[8] = {{lo.x, lo.y, lo.z}, {hi.x, lo.y, lo.z}, {hi.x, hi.y, lo.z}, {lo.x, hi.y, lo.z},
                          {lo.x, lo.y, hi.z}, {hi.x, lo.y, hi.z}, {hi.x, hi.y, hi.z}, {lo.x, hi.y, hi.z}};
  static constexpr int edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                       {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& e : edges) {
    out.push_back({c[e[0]], color});
    out.push_back({c[e[1]], color});
  }
}

void append_axes(std::vector<LineVertex>& out, const glm::vec3& origin, float length) {
  const glm::vec4 colors[3] = {{1.0f, 0.3f, 0.3f, 0.8f}, {0.3f, 1.0f, 0.3f, 0.8f}, {0.35f, 0.5f, 1.0f, 0.8f}};
  for (int axis = 0; axis < 3; ++axis) {
    glm::vec3 tip = origin;
    tip[axis] += length;
    out.push_back({origin, colors[axis]});
    out.push_back({tip, colors[axis]});
  }
}

void append_cells(OverlayLines& out, std::span<const CellBox> cells) {
  std::vector<const CellBox*> order;
  order.reserve(cells.size());
  for (const auto& c : cells) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](const CellBox* a, const CellBox* b) { return a->depth < b->depth; });
  const std::size_t drawn = std::min(order.size(), kMaxOverlayCells);
  out.vertices.reserve(out.vertices.size() + drawn * 24);
  for (std::size_t i = 0; i < drawn; ++i) {
    const CellBox& c = *order[i];
    const glm::vec3 center(c.center[0], c.center[1], c.center[2]);
    append_box(out.vertices, center - c.half_size, center + c.half_size, depth_color(c.depth));
  }
  out.cells_drawn += drawn;
  out.cells_left_out += order.size() - drawn;
}

}  // namespace nbl
