// Line geometry drawn over the bodies: octree cells (coloured by depth), the bounding box, the axes.
// Plain vertex lists built on the host; SceneRenderer draws them.
#pragma once
#include <cstddef>
#include <glm/glm.hpp>
#include <span>
#include <vector>

#include "sim/backend.hpp"

namespace nbl {

struct LineVertex {
  glm::vec3 position;
  glm::vec4 color;  // rgb in linear light, a = intensity (lines add light like the bodies do)
};

// Cells beyond this many are left out (the overlay says so): deep levels of a 1M-body tree would
// cover the picture in lines and cost more than the bodies.
inline constexpr std::size_t kMaxOverlayCells = 100000;

struct OverlayLines {
  std::vector<LineVertex> vertices;  // GL_LINES pairs
  std::size_t cells_drawn = 0;
  std::size_t cells_left_out = 0;
};

void append_box(std::vector<LineVertex>& out, const glm::vec3& lo, const glm::vec3& hi, const glm::vec4& color);
void append_axes(std::vector<LineVertex>& out, const glm::vec3& origin, float length);
// Shallow cells are drawn first, so a truncated overlay keeps the top of the tree.
void append_cells(OverlayLines& out, std::span<const CellBox> cells);

}  // namespace nbl
