// Draws one frame of bodies: soft Gaussian point sprites (or the same Gaussians splatted by a compute
// kernel) added into a float (RGBA32F) framebuffer that holds light (rgb) and bodies per pixel (alpha),
// sized by the previous frame's on-screen density; a quarter-size copy of it that feeds the glow, the
// exposure histogram and the next frame's sprite sizes; an asinh tone map with a white point measured
// on the GPU, dithered, written straight into the target's texture where it has one (else through a
// copy: the window's back buffer); overlay lines on top. Every pass after the bodies is a compute
// dispatch (on an H100 only two TPCs run vertex and fragment shaders; compute is not limited to them).
// The window and `nbodylab render` share it. docs/window.md ("The picture") explains each step and what
// it costs.
#pragma once
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "render/auto_exposure.hpp"
#include "render/body_vertices.hpp"
#include "render/camera.hpp"
#include "render/color_maps.hpp"
#include "render/gl_objects.hpp"
#include "render/gl_timer.hpp"
#include "render/overlay_lines.hpp"
#include "render/shader_program.hpp"
#include "render/splatter.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct SceneFrame {
  const OrbitCamera* camera = nullptr;
  ViewSettings view;
  Viewport viewport;              // where in the target, in framebuffer pixels
  GLuint target_framebuffer = 0;  // 0: the window
  GLuint vertex_buffer = 0;       // sim/render_vertices.hpp layout (with device_vertices: filled when GL reads it)
  std::size_t body_count = 0;     // the buffer's bodies (its layout)
  std::size_t draw_count = 0;     // the first this many are drawn (dark halos come after the stars)
  float mean_mass = 0;            // of the drawn bodies: a body of this mass is a lone star; 0: 1/body_count
  // The same vertices for the splatting renderer (view.render_path): the host copy, or on the interop
  // path the device vertices (which also fill vertex_buffer, when GL reads it: BodyVertices::buffer).
  const float* host_vertices = nullptr;
  const BodyVertices* device_vertices = nullptr;
  std::span<const LineVertex> lines;  // overlays, GL_LINES pairs
  // Galaxy-of-origin colouring: the first body index of every group of stars after the first, and of
  // the dark halos (sim/scenes.hpp; SIZE_MAX: none). The halos, when drawn, take the last palette.
  std::span<const std::size_t> group_starts;
  std::size_t dark_start = SIZE_MAX;
  // Seconds since the previous frame, for the exposure's adaptation; 0: the wall clock's.
  double frame_seconds = 0;
  // Changes whenever the vertices are written (SceneView::update); 0: unknown, the bodies are always
  // drawn. Frames with the same vertices, camera, size and view draw the bodies once more (their sizes
  // settle on their own density) and then reuse them (SceneRenderer::bodies_reused).
  std::uint64_t vertices_version = 0;
};

// The look's constants, in one place (docs/window.md, "The picture").
struct PictureConstants {
  static constexpr float kStarSigmaPx = 0.75f;        // a lone body: Gaussian sigma at 1080 rows, point size 1
  static constexpr float kMinSigmaPx = 0.45f;         // crowded bodies shrink to this: about a pixel, not aliased
  static constexpr float kOverlap = 0.6f;             // bodies per sigma-disc the sizing aims at in crowds
  static constexpr float kPercentile = 0.995f;        // the white point, of the texels that show bodies
  static constexpr float kAdaptSeconds = 0.3f;        // time constant of the white point's adaptation
  static constexpr float kFixedWhiteStars = 2000.0f;  // without auto exposure: white = this many lone stars
  static constexpr float kGlowStrength = 0.12f;
  static constexpr float kStarDisplay = 0.35f;  // the display value (0..1) of a lone star's peak
};

class SceneRenderer {
 public:
  // Loads the shaders under shaders/ and the colour maps; throws Error naming a file that fails.
  SceneRenderer();
  void draw(const SceneFrame& frame);
  // The last finished frame's GPU time, whole and by pass (timer queries, a few frames late).
  double gpu_ms() const { return timer_.last().frame_ms; }
  const PassTimes& pass_times() const { return timer_.last(); }
  double exposure_gpu_ms() const {  // of that, the exposure passes (histogram and white point)
    return pass_times().pass_ms(RenderPass::histogram) + pass_times().pass_ms(RenderPass::exposure);
  }
  // Dithering of the tone map's output (on by default): +-0.5 of an 8-bit level of interleaved gradient
  // noise before quantisation, so a smooth sky has no bands. Off: the undithered picture, for tests.
  void set_dither(bool on) { dither_ = on; }
  float adapted_white_in_stars() const;  // the white point in lone stars (panel, tests); 0 before the first
  // How the last frame's bodies were drawn: "sprites", "splat (CUDA)" or "splat (host)", and the splat's
  // own milliseconds (CUDA events or the host loop; 0 for sprites).
  std::string body_path() const;
  double splat_ms() const { return splatted_ && splatter_ ? splatter_->splat_ms() : 0.0; }
  const Splatter* splatter() const { return splatter_.get(); }
  // Whether the last frame kept the bodies of the frames before it (the same vertices, camera, size and
  // view twice already): it ran the post-processing alone. A slow step with a still camera then costs
  // the GPU no body pass at display rate, and the step gets that time.
  bool bodies_reused() const { return bodies_reused_; }
  // Whether drawing `frame` would show the last frame's picture again: the bodies were kept and nothing
  // they are drawn from changed (the post-processing's exposure, already adapted to these bodies, moves
  // no further than its last step). The lab then skips the frame's drawing.
  bool would_repeat(const SceneFrame& frame) const;

  // A lone body's Gaussian sigma in pixels for this point size and viewport height.
  static float star_sigma_px(float point_size, int viewport_height);

 private:
  void ensure_targets(const Viewport& viewport);
  bool splats(const SceneFrame& frame);
  struct BodiesInput;
  static BodiesInput bodies_input(const SceneFrame& frame, bool splat);
  void bind_bodies(GLuint vertex_buffer, std::size_t body_count);
  static float mean_mass(const SceneFrame& frame);
  void select_color_map(ColorMode mode);
  void draw_bodies(const SceneFrame& frame, const glm::mat4& view_projection, bool density_valid);
  void splat_bodies(const SceneFrame& frame, const glm::mat4& view_projection, bool density_valid);
  std::array<GLint, kSplatMaxGroups> group_starts(const SceneFrame& frame, int* groups) const;
  void draw_lines(std::span<const LineVertex> lines, const glm::mat4& view_projection);
  void downsample();
  void draw_glow();
  void tone_map(const SceneFrame& frame);
  static GLuint image_target(GLuint framebuffer);
  float reference_level(const SceneFrame& frame) const;
  float adapt_fraction(const SceneFrame& frame);

  GlProgram bodies_{"shaders/bodies.vert", "shaders/bodies.frag"};
  GlProgram lines_{"shaders/lines.vert", "shaders/lines.frag"};
  GlProgram downsample_{"shaders/downsample.comp"};
  GlProgram blur_{"shaders/blur.comp"};
  GlProgram tonemap_{"shaders/tonemap.comp"};
  AutoExposure exposure_;
  ColorMapSet color_maps_;
  GlTexture color_map_texture_{GL_TEXTURE_1D_ARRAY};  // one layer per palette
  std::optional<ColorMode> color_map_mode_;
  int palette_count_ = 1;

  GlVertexArray body_layout_;
  GLuint bound_buffer_ = 0;
  std::size_t bound_count_ = 0;
  GlVertexArray line_layout_;
  GlBuffer line_buffer_;

  // hdr_: full size, light + bodies per pixel. quarter_: its 4x4 means, kept until the next frame's
  // sprites read their density from it. glow_, glow_scratch_: the blurred quarter. picture_: the tone
  // map's output when the target has no texture to write into (the window), copied from there.
  std::unique_ptr<GlRenderTarget> hdr_, quarter_, glow_, glow_scratch_, picture_;
  bool quarter_valid_ = false;
  std::optional<ColorMode> measured_mode_;
  float last_reference_ = 0;
  std::chrono::steady_clock::time_point last_frame_{};
  GlPassTimer timer_;
  bool dither_ = true;
  std::unique_ptr<Splatter> splatter_;  // made on the first splatted frame
  std::vector<float> splat_palettes_;   // the current mode's colour maps as the splat reads them
  ColorMode splat_palettes_mode_ = ColorMode::speed;
  bool splatted_ = false;
  // What the bodies pass drew from, and how many frames in a row drew from the same.
  struct BodiesInput {
    std::uint64_t vertices = 0;
    glm::mat4 view_projection{1.0f};
    glm::vec3 target{0.0f};
    int width = 0, height = 0;
    std::size_t body_count = 0, draw_count = 0, dark_start = 0;
    float mean_mass = 0;
    std::vector<std::size_t> group_starts;
    ViewSettings view;
    bool splat = false;
    bool operator==(const BodiesInput&) const = default;
  };
  std::optional<BodiesInput> last_bodies_;
  int same_bodies_frames_ = 0;
  bool bodies_reused_ = false;
};

}  // namespace nbl
