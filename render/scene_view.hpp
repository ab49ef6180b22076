// One frame's picture of a backend's bodies: fills the vertex buffer (interop or host copy), builds
// the overlays the view settings ask for (octree cells, bounding box, axes) and draws it all through
// SceneRenderer. The window and `nbodylab render` both draw through this, so they look the same.
#pragma once
#include <optional>

#include "render/body_vertices.hpp"
#include "render/camera.hpp"
#include "render/overlay_lines.hpp"
#include "render/scene_renderer.hpp"

namespace nbl {

class SceneView {
 public:
  explicit SceneView(bool allow_interop = true) : vertices_(allow_interop) {}

  // Reads the backend's current state into the vertex buffer and the overlays.
  void update(Backend& backend, const ViewSettings& view);
  void draw(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport, GLuint target_framebuffer);

  SceneExtent measure_extent() const;  // where the bodies are now (camera fit)
  const BodyVertices& vertices() const { return vertices_; }
  const OverlayLines& overlay() const { return overlay_; }
  double render_gpu_ms() const { return renderer_.gpu_ms(); }

 private:
  void update_bounds(bool every_frame);

  BodyVertices vertices_;
  SceneRenderer renderer_;
  OverlayLines overlay_;
  std::optional<SceneExtent> bounds_;
  int frames_since_bounds_ = 0;
};

}  // namespace nbl
