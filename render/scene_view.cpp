#include "render/scene_view.hpp"

#include <algorithm>
#include <chrono>

namespace nbl {

namespace {

// On the interop path the positions live only on the GPU; reading them back for the bounding box
// every frame would cost more than drawing them, so refresh it this often.
constexpr int kBoundsRefreshFrames = 30;

// The colour keys the backend writes for a mode. Galaxy of origin and density are the renderer's own
// (ColorMode's comment): the origin palettes are shaded by speed, and density ignores the key.
ColorMode backend_color_mode(ColorMode mode) {
  return mode == ColorMode::origin || mode == ColorMode::density ? ColorMode::speed : mode;
}

}  // namespace

DrawnBodies drawn_bodies(const std::vector<BodyGroup>& groups, std::size_t body_count, bool show_dark) {
  DrawnBodies d{body_count, 0.0f};
  if (groups.empty() || body_count == 0) return d;
  double mass = 0;
  std::size_t count = 0;
  for (const BodyGroup& g : groups) {
    if (g.dark && !show_dark) break;  // dark groups come last (sim/scenes.hpp)
    if (g.mass <= 0) return d;        // unknown masses: the bodies' mean
    mass += g.mass;
    count = std::min(g.end, body_count);
  }
  if (count == 0) return d;
  d.count = count;
  d.mean_mass = static_cast<float>(mass / static_cast<double>(count));
  return d;
}

void SceneView::update(Backend& backend, const ViewSettings& view, const BodyFacts& facts) {
  // The last frame's CUDA splat may still be reading the vertex buffer on its own stream: the backend's
  // writes wait for it on the GPU (the overlapped frame: nothing here waits on the CPU).
  if (const Splatter* splatter = renderer_.splatter(); splatter && backend.on_gpu())
    splatter->order_before(backend.cuda_stream());
  vertices_.update(backend, backend_color_mode(view.color_mode));
  vertices_changed(view, facts, &backend);
}

bool SceneView::can_stage(const Backend& backend, const ViewSettings& view) const {
  return vertices_.staging_ready(backend) && view.octree_depth == 0;
}

void SceneView::stage(Backend& backend, const ViewSettings& view, int slot) {
  vertices_.stage(backend, backend_color_mode(view.color_mode), slot);
}

void SceneView::adopt_staged(int slot, const ViewSettings& view, const BodyFacts& facts) {
  // As update(): the copy into the vertex buffer waits for the last splat's reading of it.
  if (const Splatter* splatter = renderer_.splatter()) splatter->order_before(vertices_.adopt_stream());
  vertices_.adopt(slot);
  vertices_changed(view, facts, nullptr);
}

void SceneView::vertices_changed(const ViewSettings& view, const BodyFacts& facts, Backend* backend) {
  ++vertices_version_;
  drawn_ = drawn_bodies(facts.groups, vertices_.count(), view.show_dark_matter);
  group_starts_.clear();
  dark_start_ = SIZE_MAX;
  for (std::size_t g = 1; g < facts.groups.size(); ++g) {
    if (facts.groups[g].dark) {
      dark_start_ = facts.groups[g].begin;
      break;
    }
    group_starts_.push_back(facts.groups[g].begin);
  }
  if (view.follow_bound) {
    if (const float* device = vertices_.device_vertices())
      sampler_.gather_device(device, vertices_.copy_stream(), vertices_.count(), facts.time);
    else sampler_.gather(vertices_.buffer(), vertices_.count(), facts.time);
  }
  overlay_ = {};
  if (view.octree_depth > 0 && backend) {
    const auto cells = backend->tree_cells(view.octree_depth - 1);  // depth 1 = the root cell alone
    append_cells(overlay_, cells);
  }
  if (view.show_bounding_box || view.show_axes) {
    update_bounds(vertices_.path() == VertexPath::host_copy);
  }
  if (view.show_bounding_box && bounds_)
    append_box(overlay_.vertices, bounds_->min, bounds_->max, {0.9f, 0.9f, 1.0f, 0.5f});
  if (view.show_axes) append_axes(overlay_.vertices, glm::vec3(0.0f), bounds_ ? bounds_->radius : 1.0f);
}

void SceneView::follow(OrbitCamera& camera, const ViewSettings& view, bool fixed_lag) {
  follow_wait_ms_ = follow_cpu_ms_ = 0;
  if (!view.follow_bound) {
    followed_centre_.reset();  // turned back on later, it starts from where the camera is then
    last_sample_.reset();
    if (estimating_.valid()) estimating_.wait(), estimating_ = {};
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto waited = [&](auto&& wait) {
    const auto wait_start = std::chrono::steady_clock::now();
    wait();
    follow_wait_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wait_start).count();
  };
  // The estimate (bound_centre.hpp: a few passes over the sample, most of a millisecond on one core)
  // runs on a worker, so the frame loop only hands samples over and applies finished estimates; the
  // camera then lags the sample by a frame or two, which nobody sees. With a fixed lag, the estimate
  // handed over a frame ago is applied first (waiting for it), then this frame's is handed over.
  std::optional<BodySample> sample;
  if (fixed_lag) {
    waited([&] { sample = sampler_.take_previous(); });
    if (estimating_.valid()) waited([&] { estimating_.wait(); });
    apply_estimate(camera);
  } else {
    sample = sampler_.take();
  }
  if (sample) {
    if (last_sample_ && !estimating_.valid())
      estimating_ = std::async(std::launch::async, [earlier = *last_sample_, later = *sample] {
        return estimate_bound_centre(earlier, later);
      });
    last_sample_ = std::move(sample);
  }
  if (!fixed_lag) apply_estimate(camera);
  follow_cpu_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() - follow_wait_ms_;
}

void SceneView::apply_estimate(OrbitCamera& camera) {
  if (!estimating_.valid() || estimating_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return;
  bound_ = estimating_.get();
  if (!bound_) {
    followed_centre_.reset();  // a reset or a new N: no velocities across it
    return;
  }
  if (followed_centre_) camera.set_target(camera.target() + glm::vec3(bound_->centre - *followed_centre_));
  followed_centre_ = bound_->centre;
}

void SceneView::update_bounds(bool every_frame) {
  if (bounds_ && !every_frame && ++frames_since_bounds_ < kBoundsRefreshFrames) return;
  bounds_ = measure_extent();
  frames_since_bounds_ = 0;
}

SceneExtent SceneView::measure_extent() const {
  // What the camera fits is what it shows: the drawn bodies.
  if (!vertices_.host_copy().empty())
    return nbl::measure_extent(vertices_.host_copy().data(), std::min(drawn_.count, vertices_.count()));
  const auto positions = vertices_.read_positions();
  return nbl::measure_extent(positions.data(), std::min(drawn_.count, vertices_.count()));
}

SceneFrame SceneView::frame_of(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport,
                               GLuint target_framebuffer, double frame_seconds) const {
  SceneFrame frame;
  frame.camera = &camera;
  frame.view = view;
  frame.viewport = viewport;
  frame.target_framebuffer = target_framebuffer;
  frame.vertex_buffer = vertices_.buffer_name();
  frame.body_count = vertices_.count();
  frame.draw_count = std::min(drawn_.count, frame.body_count);
  frame.mean_mass = drawn_.mean_mass;
  if (!vertices_.host_copy().empty()) frame.host_vertices = vertices_.host_copy().data();
  if (vertices_.device_vertices()) frame.device_vertices = &vertices_;
  frame.vertices_version = vertices_version_;
  frame.lines = overlay_.vertices;
  frame.group_starts = group_starts_;
  frame.dark_start = dark_start_;
  frame.frame_seconds = frame_seconds;
  return frame;
}

void SceneView::draw(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport,
                     GLuint target_framebuffer, double frame_seconds) {
  renderer_.draw(frame_of(camera, view, viewport, target_framebuffer, frame_seconds));
}

bool SceneView::would_repeat(const OrbitCamera& camera, const ViewSettings& view, const Viewport& viewport) const {
  return renderer_.would_repeat(frame_of(camera, view, viewport, 0, 0));
}

}  // namespace nbl
