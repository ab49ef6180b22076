#include "render/scene_renderer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

#include "cuda/nvtx.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

namespace {

constexpr int kQuarter = 4;             // the copy that feeds glow, exposure and density: a quarter in each direction
constexpr GLuint kExposureBinding = 2;  // shaders/tonemap.comp's uniform block
constexpr int kGroupSize = 16;          // the compute passes' local_size_x and _y
constexpr int kMaxGroups = kSplatMaxGroups;  // shaders/bodies.vert: u_group_starts[8]
// The light of a lone star's peak is its colour times its peak density; a typical colour's mean.
constexpr float kTypicalColorMean = 0.5f;

}  // namespace

float SceneRenderer::star_sigma_px(float point_size, int viewport_height) {
  return PictureConstants::kStarSigmaPx * point_size * static_cast<float>(std::max(viewport_height, 1)) / 1080.0f;
}

SceneRenderer::SceneRenderer() : color_maps_(load_color_maps()) {
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureStorage2D(color_map_texture_.id(), 1, GL_RGB16F, kColorMapTexels, static_cast<GLsizei>(kMaxPalettes));

  glVertexArrayAttribFormat(body_layout_.id(), 0, 4, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(body_layout_.id(), 0, 0);
  glEnableVertexArrayAttrib(body_layout_.id(), 0);
  glVertexArrayAttribFormat(body_layout_.id(), 1, 1, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(body_layout_.id(), 1, 1);
  glEnableVertexArrayAttrib(body_layout_.id(), 1);

  glVertexArrayVertexBuffer(line_layout_.id(), 0, line_buffer_.id(), 0, sizeof(LineVertex));
  glVertexArrayAttribFormat(line_layout_.id(), 0, 3, GL_FLOAT, GL_FALSE, offsetof(LineVertex, position));
  glVertexArrayAttribFormat(line_layout_.id(), 1, 4, GL_FLOAT, GL_FALSE, offsetof(LineVertex, color));
  for (GLuint a = 0; a < 2; ++a) {
    glVertexArrayAttribBinding(line_layout_.id(), a, 0);
    glEnableVertexArrayAttrib(line_layout_.id(), a);
  }
}

void SceneRenderer::ensure_targets(const Viewport& viewport) {
  if (hdr_ && hdr_->width() == viewport.width && hdr_->height() == viewport.height) return;
  if (splatter_) splatter_->release_target();
  // 32-bit float: a core pixel of a 10M-body frame sums thousands of bodies, and a 16-bit float stops
  // adding 1s above 2048.
  hdr_ = std::make_unique<GlRenderTarget>(viewport.width, viewport.height, GL_RGBA32F);
  const int qw = std::max(1, viewport.width / kQuarter), qh = std::max(1, viewport.height / kQuarter);
  quarter_ = std::make_unique<GlRenderTarget>(qw, qh, GL_RGBA16F);
  glow_ = std::make_unique<GlRenderTarget>(qw, qh, GL_RGBA16F);
  glow_scratch_ = std::make_unique<GlRenderTarget>(qw, qh, GL_RGBA16F);
  quarter_valid_ = false;
}

void SceneRenderer::bind_bodies(GLuint vertex_buffer, std::size_t body_count) {
  if (vertex_buffer == bound_buffer_ && body_count == bound_count_) return;
  // The colour keys follow all n positions, so their offset moves with n.
  glVertexArrayVertexBuffer(body_layout_.id(), 0, vertex_buffer, 0, kVertexPositionBytes);
  glVertexArrayVertexBuffer(body_layout_.id(), 1, vertex_buffer,
                            static_cast<GLintptr>(vertex_color_key_offset(body_count)), kVertexColorKeyBytes);
  bound_buffer_ = vertex_buffer;
  bound_count_ = body_count;
}

void SceneRenderer::select_color_map(ColorMode mode) {
  if (color_map_mode_ == mode) return;
  const auto& palettes = color_maps_.palettes(mode);
  for (std::size_t layer = 0; layer < palettes.size(); ++layer)
    glTextureSubImage2D(color_map_texture_.id(), 0, 0, static_cast<GLint>(layer), kColorMapTexels, 1, GL_RGB, GL_FLOAT,
                        palettes[layer].texels.data());
  const GLint filter = palettes.front().discrete ? GL_NEAREST : GL_LINEAR;
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_MIN_FILTER, filter);
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_MAG_FILTER, filter);
  palette_count_ = static_cast<int>(palettes.size());
  color_map_mode_ = mode;
}

float SceneRenderer::reference_level(const SceneFrame& frame) const {
  // As bodies.vert draws a lone star: never below the smallest sprite (small viewports, small point sizes).
  const float sigma =
      std::max(star_sigma_px(frame.view.point_size, frame.viewport.height), PictureConstants::kMinSigmaPx);
  const float peak_density = 1.0f / (2.0f * 3.14159265f * sigma * sigma * 0.98889f);
  return frame.view.color_mode == ColorMode::density ? peak_density : kTypicalColorMean * peak_density;
}

float SceneRenderer::adapt_fraction(const SceneFrame& frame) {
  const auto now = std::chrono::steady_clock::now();
  double seconds = frame.frame_seconds;
  if (seconds <= 0)
    seconds = last_frame_.time_since_epoch().count() ? std::chrono::duration<double>(now - last_frame_).count() : 0.0;
  last_frame_ = now;
  return static_cast<float>(1.0 - std::exp(-std::clamp(seconds, 0.0, 0.5) / PictureConstants::kAdaptSeconds));
}

float SceneRenderer::adapted_white_in_stars() const {
  return measured_mode_ && last_reference_ > 0 ? exposure_.white() / last_reference_ : 0.0f;
}

bool SceneRenderer::splats(const SceneFrame& frame) {
  switch (frame.view.render_path) {
    case RenderPath::sprites: return false;
    case RenderPath::splat: return true;
    case RenderPath::automatic:
      // The splat where CUDA has the vertices (a kernel beside the simulation's, no blender in the way);
      // the sprites where the vertices are on the host, whose splat would be a loop on one core.
      if (!frame.device_vertices) return false;
      if (!splatter_) splatter_ = std::make_unique<Splatter>();
      return splatter_->device_ready(hdr_->texture());
  }
  return false;
}

SceneRenderer::BodiesInput SceneRenderer::bodies_input(const SceneFrame& frame, bool splat) {
  const glm::mat4 view_projection = frame.camera->projection(frame.viewport.aspect()) * frame.camera->view();
  return BodiesInput{frame.vertices_version,
                     view_projection,
                     frame.camera->target(),
                     frame.viewport.width,
                     frame.viewport.height,
                     frame.body_count,
                     frame.draw_count,
                     frame.dark_start,
                     frame.mean_mass,
                     {frame.group_starts.begin(), frame.group_starts.end()},
                     frame.view,
                     splat};
}

bool SceneRenderer::would_repeat(const SceneFrame& frame) const {
  return bodies_reused_ && last_bodies_ && frame.vertices_version != 0 &&
         *last_bodies_ == bodies_input(frame, last_bodies_->splat);
}

void SceneRenderer::draw(const SceneFrame& frame) {
  const NvtxRange frame_range("render");
  timer_.begin_frame();
  ensure_targets(frame.viewport);
  const glm::mat4 view_projection = frame.camera->projection(frame.viewport.aspect()) * frame.camera->view();
  const bool have_bodies = frame.body_count > 0 && frame.vertex_buffer;
  const bool splat = have_bodies && splats(frame);

  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  glDisable(GL_BLEND);  // on for the sprites and the lines only
  glBlendEquation(GL_FUNC_ADD);
  const float clear[4] = {0, 0, 0, 0};
  // The same bodies seen the same way: drawn twice (the second sized by their own density), then kept.
  BodiesInput input = bodies_input(frame, splat);
  if (frame.vertices_version != 0 && quarter_valid_ && last_bodies_ == input) {
    ++same_bodies_frames_;
  } else {
    same_bodies_frames_ = 0;
    last_bodies_ = std::move(input);
  }
  bodies_reused_ = same_bodies_frames_ >= 2;
  // The sprites take their sizes from the previous frame's density. The first frame (and the first after
  // a resize) has none: it measures its own first, with every sprite at its lone-star size.
  for (int pass = bodies_reused_ ? 2 : quarter_valid_ ? 1 : 0; pass < 2; ++pass) {
    {
      const NvtxRange range("render: bodies");
      if (splat) {
        splat_bodies(frame, view_projection, pass == 1);  // replaces every texel: nothing to clear
      } else {
        glBindFramebuffer(GL_FRAMEBUFFER, hdr_->framebuffer());
        glViewport(0, 0, hdr_->width(), hdr_->height());
        glClearNamedFramebufferfv(hdr_->framebuffer(), GL_COLOR, 0, clear);
        if (have_bodies) {
          glEnable(GL_BLEND);
          draw_bodies(frame, view_projection, pass == 1);
          glDisable(GL_BLEND);
        }
      }
      timer_.end_pass(RenderPass::bodies);
    }
    const NvtxRange range("render: quarter");
    downsample();
    timer_.end_pass(RenderPass::quarter);
  }
  quarter_valid_ = true;
  splatted_ = splat;
  if (!splatted_ && splatter_) splatter_->forget_density();

  const bool density_mode = frame.view.color_mode == ColorMode::density;
  if (!frame.view.auto_exposure || !measured_mode_ || (*measured_mode_ == ColorMode::density) != density_mode)
    exposure_.restart();  // another quantity (light or bodies per pixel), or back from a fixed white point
  ExposureParameters p;
  p.reference = reference_level(frame);
  p.percentile = PictureConstants::kPercentile;
  p.adapt = adapt_fraction(frame);
  p.density_mode = density_mode;
  p.automatic = frame.view.auto_exposure;
  p.fixed_white = PictureConstants::kFixedWhiteStars;
  p.star_display = PictureConstants::kStarDisplay;
  {
    const NvtxRange range("render: histogram");
    exposure_.histogram(quarter_->texture(), quarter_->width(), quarter_->height(), p);
    timer_.end_pass(RenderPass::histogram);
  }
  {
    const NvtxRange range("render: exposure");
    exposure_.update(p);
    timer_.end_pass(RenderPass::exposure);
  }
  last_reference_ = p.reference;
  if (frame.view.auto_exposure) measured_mode_ = frame.view.color_mode;
  else measured_mode_.reset();

  {
    const NvtxRange range("render: glow");
    draw_glow();
    timer_.end_pass(RenderPass::glow);
  }
  {
    const NvtxRange range("render: tone map");
    tone_map(frame);
    timer_.end_pass(RenderPass::tone_map);
  }
  // The target stays bound for what the caller draws next (the panel), as a fragment pass would leave it.
  glBindFramebuffer(GL_FRAMEBUFFER, frame.target_framebuffer);
  glViewport(frame.viewport.x, frame.viewport.y, frame.viewport.width, frame.viewport.height);
  if (!frame.lines.empty()) {
    // Lines go over the tone-mapped picture: crisp, and as bright at any exposure.
    const NvtxRange range("render: lines");
    glEnable(GL_BLEND);
    draw_lines(frame.lines, view_projection);
    glDisable(GL_BLEND);
    timer_.end_pass(RenderPass::lines);
  }
  glBindVertexArray(0);
  glUseProgram(0);
  timer_.end_frame();
}

void SceneRenderer::draw_bodies(const SceneFrame& frame, const glm::mat4& view_projection, bool density_valid) {
  bind_bodies(frame.device_vertices ? frame.device_vertices->buffer() : frame.vertex_buffer, frame.body_count);
  select_color_map(frame.view.color_mode);
  const glm::vec4 target_clip = view_projection * glm::vec4(frame.camera->target(), 1.0f);
  bodies_.set("u_view_projection", view_projection);
  bodies_.set("u_star_sigma_px", star_sigma_px(frame.view.point_size, frame.viewport.height));
  bodies_.set("u_min_sigma_px", PictureConstants::kMinSigmaPx);
  bodies_.set("u_overlap", PictureConstants::kOverlap);
  bodies_.set("u_target_depth", std::max(target_clip.w, 1e-6f));
  bodies_.set("u_mean_mass", mean_mass(frame));
  bodies_.set("u_density_valid", density_valid ? 1 : 0);
  int groups = 1;
  const std::array<GLint, kMaxGroups> starts = group_starts(frame, &groups);
  glProgramUniform1iv(bodies_.id(), glGetUniformLocation(bodies_.id(), "u_group_starts"), kMaxGroups, starts.data());
  bodies_.set("u_group_count", groups);
  glBlendFunc(GL_ONE, GL_ONE);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glBindTextureUnit(0, color_map_texture_.id());
  glBindTextureUnit(1, quarter_->texture());
  bodies_.use();
  glBindVertexArray(body_layout_.id());
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(frame.draw_count));
}

float SceneRenderer::mean_mass(const SceneFrame& frame) {
  if (frame.mean_mass > 0) return frame.mean_mass;
  return 1.0f / static_cast<float>(std::max<std::size_t>(frame.body_count, 1));  // N-body units: total mass 1
}

std::array<GLint, kMaxGroups> SceneRenderer::group_starts(const SceneFrame& frame, int* groups) const {
  std::array<GLint, kMaxGroups> starts{};
  *groups = 1;
  if (frame.view.color_mode != ColorMode::origin) return starts;
  const int palettes = std::min(kMaxGroups, palette_count_);
  // Drawn dark halos take the last palette (colormaps.json: origin-dark); the stars' groups the others.
  const bool dark = frame.dark_start < frame.draw_count && palettes > 1;
  auto add = [&](std::size_t start) {
    starts[static_cast<std::size_t>(*groups - 1)] = static_cast<GLint>(std::min<std::size_t>(start, 0x7fffffff));
    ++*groups;
  };
  for (std::size_t start : frame.group_starts) {
    if (start >= frame.dark_start || *groups >= (dark ? palettes - 1 : palettes)) break;
    add(start);
  }
  // Repeated starts count the halo's bodies past every palette up to the last one.
  if (dark)
    while (*groups < palettes) add(frame.dark_start);
  return starts;
}

void SceneRenderer::splat_bodies(const SceneFrame& frame, const glm::mat4& view_projection, bool density_valid) {
  // The sprites' uniforms (draw_bodies) as plain numbers for the splat (render/splat_model.hpp).
  select_color_map(frame.view.color_mode);
  if (splat_palettes_.empty() || splat_palettes_mode_ != frame.view.color_mode) {
    splat_palettes_.clear();
    for (const ColorMap& map : color_maps_.palettes(frame.view.color_mode))
      for (const auto& texel : map.texels) splat_palettes_.insert(splat_palettes_.end(), texel.begin(), texel.end());
    splat_palettes_mode_ = frame.view.color_mode;
  }
  SplatView v;
  const float* m = &view_projection[0][0];
  std::copy(m, m + 16, v.view_projection);
  v.width = hdr_->width();
  v.height = hdr_->height();
  v.star_sigma_px = star_sigma_px(frame.view.point_size, frame.viewport.height);
  v.min_sigma_px = PictureConstants::kMinSigmaPx;
  v.overlap = PictureConstants::kOverlap;
  v.target_depth = std::max((view_projection * glm::vec4(frame.camera->target(), 1.0f)).w, 1e-6f);
  v.mean_mass = mean_mass(frame);
  v.density_valid = density_valid ? 1 : 0;
  v.density_width = quarter_->width();
  v.density_height = quarter_->height();
  int groups = 1;
  const std::array<GLint, kMaxGroups> starts = group_starts(frame, &groups);
  std::copy(starts.begin(), starts.end(), v.group_starts);
  v.group_count = groups;
  v.palette_count = palette_count_;
  v.color_texels = kColorMapTexels;
  v.color_linear = color_maps_.palettes(frame.view.color_mode).front().discrete ? 0 : 1;
  if (!splatter_) splatter_ = std::make_unique<Splatter>();
  SplatBodies bodies;
  bodies.count = frame.body_count;
  bodies.draw_count = frame.draw_count;
  bodies.host = frame.host_vertices;
  bodies.device = frame.device_vertices;
  bodies.buffer = frame.vertex_buffer;
  splatter_->draw(bodies, v, splat_palettes_, hdr_->texture(), quarter_->texture());
}

std::string SceneRenderer::body_path() const {
  if (!splatted_ || !splatter_) return "sprites";
  return std::string("splat (") + splatter_->where() + ")";
}

void SceneRenderer::draw_lines(std::span<const LineVertex> lines, const glm::mat4& view_projection) {
  const std::size_t bytes = lines.size_bytes();
  if (line_buffer_.bytes() < bytes) line_buffer_.allocate(std::max(bytes, 2 * line_buffer_.bytes()));
  line_buffer_.upload(0, bytes, lines.data());
  glVertexArrayVertexBuffer(line_layout_.id(), 0, line_buffer_.id(), 0, sizeof(LineVertex));
  lines_.set("u_view_projection", view_projection);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE);
  lines_.use();
  glBindVertexArray(line_layout_.id());
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(lines.size()));
}

namespace {

GLuint groups_of(int size) { return static_cast<GLuint>((size + kGroupSize - 1) / kGroupSize); }

}  // namespace

void SceneRenderer::downsample() {
  // One thread per quarter texel: four bilinear taps, the mean of its 4x4 pixels (shaders/downsample.comp).
  downsample_.set("u_source_texel", glm::vec2(1.0f / hdr_->width(), 1.0f / hdr_->height()));
  downsample_.use();
  glBindTextureUnit(0, hdr_->texture());
  glBindImageTexture(0, quarter_->texture(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
  glDispatchCompute(groups_of(quarter_->width()), groups_of(quarter_->height()), 1);
  // Read next by the histogram and the glow (texture fetches), the next frame's sprites, and the host
  // splat (glGetTextureImage).
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
}

void SceneRenderer::draw_glow() {
  // Two rounds of horizontal + vertical blur of the quarter copy: a soft halo around dense regions.
  blur_.use();
  GLuint source = quarter_->texture();
  auto blur = [&](GLuint from, const GlRenderTarget& to, glm::vec2 step) {
    blur_.set("u_step", step);
    glBindTextureUnit(0, from);
    glBindImageTexture(0, to.texture(), 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA16F);
    glDispatchCompute(groups_of(to.width()), groups_of(to.height()), 1);
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
  };
  for (int round = 0; round < 2; ++round) {
    blur(source, *glow_scratch_, glm::vec2(1.0f / glow_->width(), 0.0f));
    blur(glow_scratch_->texture(), *glow_, glm::vec2(0.0f, 1.0f / glow_->height()));
    source = glow_->texture();
  }
}

GLuint SceneRenderer::image_target(GLuint framebuffer) {
  // A framebuffer object whose colour is level 0 of a 2D RGBA8 texture can be written as an image; the
  // window's own framebuffer (0) cannot.
  if (framebuffer == 0) return 0;
  auto attachment = [framebuffer](GLenum what) {
    GLint value = 0;
    glGetNamedFramebufferAttachmentParameteriv(framebuffer, GL_COLOR_ATTACHMENT0, what, &value);
    return value;
  };
  if (attachment(GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) != GL_TEXTURE) return 0;
  const GLint name = attachment(GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME);
  const GLint level = attachment(GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL);
  if (name <= 0 || level != 0) return 0;
  const auto texture = static_cast<GLuint>(name);
  GLint target = 0, format = 0;
  glGetTextureParameteriv(texture, GL_TEXTURE_TARGET, &target);
  if (target != GL_TEXTURE_2D) return 0;
  glGetTextureLevelParameteriv(texture, 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
  return format == GL_RGBA8 ? texture : 0;
}

void SceneRenderer::tone_map(const SceneFrame& frame) {
  // Straight into the target's texture when it has one (render's frames, the offscreen lab): one
  // read of the float framebuffer and one write per pixel. The window's back buffer takes a copy.
  GLuint target = image_target(frame.target_framebuffer);
  glm::ivec2 origin(frame.viewport.x, frame.viewport.y);
  if (!target) {
    if (!picture_ || picture_->width() != frame.viewport.width || picture_->height() != frame.viewport.height)
      picture_ = std::make_unique<GlRenderTarget>(frame.viewport.width, frame.viewport.height, GL_RGBA8);
    target = picture_->texture();
    origin = glm::ivec2(0);
  }
  const float reference = reference_level(frame);
  tonemap_.set("u_reference", reference);
  tonemap_.set("u_exposure", frame.view.exposure);
  tonemap_.set("u_glow_strength", PictureConstants::kGlowStrength);
  tonemap_.set("u_density_mode", frame.view.color_mode == ColorMode::density ? 1 : 0);
  tonemap_.set("u_dither", dither_ ? 1.0f : 0.0f);
  tonemap_.set("u_origin", origin);
  tonemap_.set("u_size", glm::ivec2(frame.viewport.width, frame.viewport.height));
  exposure_.bind_uniform(kExposureBinding);
  tonemap_.use();
  glBindTextureUnit(0, hdr_->texture());
  glBindTextureUnit(1, glow_->texture());
  glBindTextureUnit(2, color_map_texture_.id());
  glBindImageTexture(0, target, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  glDispatchCompute(groups_of(frame.viewport.width), groups_of(frame.viewport.height), 1);
  // Whatever comes next (overlay lines, the panel, glReadPixels, a copy, a swap) sees the picture.
  glMemoryBarrier(GL_ALL_BARRIER_BITS);
  if (picture_ && target == picture_->texture()) {
    const Viewport& v = frame.viewport;
    glBlitNamedFramebuffer(picture_->framebuffer(), frame.target_framebuffer, 0, 0, v.width, v.height, v.x, v.y,
                           v.x + v.width, v.y + v.height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  }
}

}  // namespace nbl
