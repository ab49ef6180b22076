// Draws one frame of bodies: soft additive point sprites into a float (RGBA16F) framebuffer, a
// quarter-size glow of them, overlay lines on top, then a tone-map pass into the target (the window's back buffer
// or an offscreen framebuffer). The window and `nbodylab render` share it.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <span>

#include "render/camera.hpp"
#include "render/color_maps.hpp"
#include "render/gl_objects.hpp"
#include "render/gl_timer.hpp"
#include "render/overlay_lines.hpp"
#include "render/shader_program.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct SceneFrame {
  const OrbitCamera* camera = nullptr;
  ViewSettings view;
  Viewport viewport;                   // where in the target, in framebuffer pixels
  GLuint target_framebuffer = 0;       // 0: the window
  GLuint vertex_buffer = 0;            // sim/render_vertices.hpp layout
  std::size_t body_count = 0;
  std::span<const LineVertex> lines;   // overlays, GL_LINES pairs
};

class SceneRenderer {
 public:
  // Loads the shaders under shaders/ and the colour maps; throws Error naming a file that fails.
  SceneRenderer();
  void draw(const SceneFrame& frame);
  double gpu_ms() const { return timer_.ms(); }  // the last finished frame's GPU time

  // The look's two n-dependent constants, in one place: sprite diameter (px at 1080 rows) and light
  // per body. More bodies: smaller, fainter sprites, so the picture keeps its brightness.
  static float sprite_px(std::size_t body_count, float point_size, int viewport_height);
  static float body_intensity(std::size_t body_count);

 private:
  void ensure_targets(const Viewport& viewport);
  void bind_bodies(GLuint vertex_buffer, std::size_t body_count);
  void select_color_map(ColorMode mode);
  void draw_bodies(const SceneFrame& frame, const glm::mat4& view_projection);
  void draw_lines(std::span<const LineVertex> lines, const glm::mat4& view_projection);
  void draw_glow();
  void tone_map(const SceneFrame& frame);

  GlProgram bodies_{"shaders/bodies.vert", "shaders/bodies.frag"};
  GlProgram lines_{"shaders/lines.vert", "shaders/lines.frag"};
  GlProgram downsample_{"shaders/fullscreen.vert", "shaders/downsample.frag"};
  GlProgram blur_{"shaders/fullscreen.vert", "shaders/blur.frag"};
  GlProgram tonemap_{"shaders/fullscreen.vert", "shaders/tonemap.frag"};
  ColorMapSet color_maps_;
  GlTexture color_map_texture_{GL_TEXTURE_1D};
  std::optional<ColorMode> color_map_mode_;

  GlVertexArray body_layout_;
  GLuint bound_buffer_ = 0;
  std::size_t bound_count_ = 0;
  GlVertexArray line_layout_;
  GlBuffer line_buffer_;
  GlVertexArray empty_layout_;  // for the full-screen passes

  std::unique_ptr<GlRenderTarget> hdr_, glow_, glow_scratch_;
  GlTimer timer_;
};

}  // namespace nbl
