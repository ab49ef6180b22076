#include "render/overlay_lines.hpp"

#include <gtest/gtest.h>

namespace nbl {
namespace {

TEST(OverlayLines, ABoxIsTwelveEdges) {
  std::vector<LineVertex> v;
  append_box(v, glm::vec3(-1), glm::vec3(1), glm::vec4(1));
  EXPECT_EQ(v.size(), 24u);
  for (const auto& p : v)
    for (int a = 0; a < 3; ++a) EXPECT_EQ(std::abs(p.position[a]), 1.0f);
}

TEST(OverlayLines, TooManyCellsKeepTheShallowOnes) {
  std::vector<CellBox> cells(kMaxOverlayCells + 10, CellBox{{0, 0, 0}, 1.0f, 5});
  cells.back().depth = 0;
  OverlayLines out;
  append_cells(out, cells);
  EXPECT_EQ(out.cells_drawn, kMaxOverlayCells);
  EXPECT_EQ(out.cells_left_out, 10u);
  // The root (depth 0) was drawn first: its colour is the first palette entry, brightest alpha.
  EXPECT_GT(out.vertices.front().color.a, out.vertices.back().color.a);
}

}  // namespace
}  // namespace nbl
