#include "render/scene_view.hpp"

namespace nbl {

namespace {

// On the interop path the positions live only on the GPU; reading them back for the bounding box
// every frame would cost more than drawing them, so refresh it this often.
constexpr int kBoundsRefreshFrames = 30;

}  // namespace

void SceneView::update(Backend& backend, const ViewSettings& view) {
  vertices_.update(backend, view.color_mode);
  overlay_ = {};
  if (view.octree_depth > 0) {
    const auto cells = backend.tree_cells(view.octree_depth - 1);  // depth 1 = the root cell alone
    append_cells(overlay_, cells);
  }
  if (view.show_bounding_box || view.show_axes) {
    update_bounds(vertices_.path() == VertexPath::host_copy);
  }
  if (view.show_bounding_box && bounds_) append_box(overlay_.vertices, bounds_->min, bounds_->max, {0.9f, 0.9f, 1.0f, 0.5f});
  if (view.show_axes) append_axes(overlay_.vertices, glm::vec3(0.0f), bounds_ ? bounds_->radius : 1.0f);
}

void SceneView::update_bounds(bool every_frame) {
  if (bounds_ && !every_frame && ++frames_since_bounds_ < kBoundsRefreshFrames) return;
  bounds_ = measure_extent();
  frames_since_bounds_ = 0;
}

SceneExtent SceneView::measure_extent() const {
  if (!vertices_.host_copy().empty()) return nbl::measure_extent(vertices_.host_copy().data(), vertices_.count());
  const auto positions = vertices_.read_positions();
  return nbl::measure_extent(positions.data(), vertices_.count());
}

void SceneView::draw(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport,
                     GLuint target_framebuffer) {
  SceneFrame frame;
  frame.camera = &camera;
  frame.view = view;
  frame.viewport = viewport;
  frame.target_framebuffer = target_framebuffer;
  frame.vertex_buffer = vertices_.buffer();
  frame.body_count = vertices_.count();
  frame.lines = overlay_.vertices;
  renderer_.draw(frame);
}

}  // namespace nbl
