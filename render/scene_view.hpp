// One frame's picture of a backend's bodies: fills the vertex buffer (interop or host copy), builds
// the overlays the view settings ask for (octree cells, bounding box, axes), samples a few thousand
// bodies for the camera to follow (body_sample.hpp, bound_centre.hpp) and draws it all through
// SceneRenderer. The window and `nbodylab render` both draw through this, so they look the same.
#pragma once
#include <cstdint>
#include <future>
#include <optional>
#include <vector>

#include "render/body_sample.hpp"
#include "render/body_vertices.hpp"
#include "render/bound_centre.hpp"
#include "render/camera.hpp"
#include "render/overlay_lines.hpp"
#include "render/scene_renderer.hpp"
#include "sim/scenes.hpp"

namespace nbl {

// What the renderer knows of the bodies beyond their positions: when they are (the follow camera
// differentiates positions over time) and which groups they were born in (galaxy-of-origin colours).
struct BodyFacts {
  double time = 0;
  std::vector<BodyGroup> groups;  // empty: one group
};

// The bodies a frame draws: the first `count` (dark groups left out unless shown), and their mean mass,
// which the sprites' size and light are relative to (0: every body's, 1 / body_count).
struct DrawnBodies {
  std::size_t count = 0;
  float mean_mass = 0;
};
DrawnBodies drawn_bodies(const std::vector<BodyGroup>& groups, std::size_t body_count, bool show_dark);

class SceneView {
 public:
  explicit SceneView(bool allow_interop = true) : vertices_(allow_interop) {}

  // Reads the backend's current state into the vertex buffer and the overlays.
  void update(Backend& backend, const ViewSettings& view, const BodyFacts& facts = {});

  // The lab's run-ahead (BodyVertices' staging): whether the view can be drawn from vertices the stepping
  // thread wrote aside (the interop path, and no octree overlay, which reads the backend's tree), the
  // buffers for it (between jobs), the stepping thread's write, and the display's adoption of it in
  // place of update() (`facts` of the staged state).
  bool can_stage(const Backend& backend, const ViewSettings& view) const;
  void prepare_staging(const Backend& backend) { vertices_.prepare_staging(backend); }
  void stage(Backend& backend, const ViewSettings& view, int slot);
  void adopt_staged(int slot, const ViewSettings& view, const BodyFacts& facts);
  // With view.follow_bound: moves the camera's target by how far the bound bodies' centre moved since
  // the last call (so the user's own panning stays), from the newest finished sample. Never waits.
  // With `fixed_lag` (offscreen renders: the same frames however fast the CPU and GPU are), from the
  // sample gathered a frame earlier and the estimate started a frame earlier, waiting for them if need
  // be (they have as good as always finished), so nothing waits for this frame's GPU work.
  void follow(OrbitCamera& camera, const ViewSettings& view, bool fixed_lag = false);
  // seconds: since the previous frame, for the exposure's adaptation (0: the wall clock's).
  void draw(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport, GLuint target_framebuffer,
            double frame_seconds = 0);
  // Whether draw() would show the last picture again (SceneRenderer::would_repeat).
  bool would_repeat(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport) const;

  SceneExtent measure_extent() const;  // where the bodies are now (camera fit)
  const BodyVertices& vertices() const { return vertices_; }
  const OverlayLines& overlay() const { return overlay_; }
  double render_gpu_ms() const { return renderer_.gpu_ms(); }
  double exposure_gpu_ms() const { return renderer_.exposure_gpu_ms(); }
  const PassTimes& pass_times() const { return renderer_.pass_times(); }  // by pass, a few frames late
  void set_dither(bool on) { renderer_.set_dither(on); }
  std::string body_path() const { return renderer_.body_path(); }  // "sprites", "splat (CUDA)", "splat (host)"
  double splat_ms() const { return renderer_.splat_ms(); }
  const Splatter* splatter() const { return renderer_.splatter(); }
  // The last follow()'s cost in the frame loop: take the sample, hand it to the estimate's worker, apply
  // a finished estimate. With fixed_lag, follow_wait_ms() is what it waited for: the GPU to reach the
  // last frame's sample, and the worker's last estimate (the interactive loop waits for neither).
  double follow_cpu_ms() const { return follow_cpu_ms_; }
  double follow_wait_ms() const { return follow_wait_ms_; }
  const std::optional<BoundEstimate>& bound() const { return bound_; }  // the last estimate
  float white_in_stars() const { return renderer_.adapted_white_in_stars(); }

 private:
  SceneFrame frame_of(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport,
                      GLuint target_framebuffer, double frame_seconds) const;
  void vertices_changed(const ViewSettings& view, const BodyFacts& facts, Backend* backend);
  void update_bounds(bool every_frame);
  void apply_estimate(OrbitCamera& camera);  // a finished estimate moves the camera's target

  BodyVertices vertices_;
  std::uint64_t vertices_version_ = 0;  // counts update()s (SceneFrame::vertices_version)
  SceneRenderer renderer_;
  OverlayLines overlay_;
  std::optional<SceneExtent> bounds_;
  int frames_since_bounds_ = 0;
  std::vector<std::size_t> group_starts_;
  DrawnBodies drawn_;
  std::size_t dark_start_ = SIZE_MAX;
  BodySampler sampler_;
  std::optional<BodySample> last_sample_;
  std::optional<BoundEstimate> bound_;
  std::future<std::optional<BoundEstimate>> estimating_;  // on a worker thread (std::async)
  std::optional<glm::dvec3> followed_centre_;             // the centre the camera target last moved with
  double follow_cpu_ms_ = 0;
  double follow_wait_ms_ = 0;
};

}  // namespace nbl
