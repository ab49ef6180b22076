#include "render/scene_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

#include "sim/render_vertices.hpp"

namespace nbl {

namespace {

constexpr float kGlowStrength = 0.6f;
constexpr int kGlowDivisor = 4;  // glow resolution: a quarter of the viewport in each direction

}  // namespace

float SceneRenderer::sprite_px(std::size_t body_count, float point_size, int viewport_height) {
  const double density = 65536.0 / static_cast<double>(std::max<std::size_t>(body_count, 1));
  const double px = 2.6 * std::clamp(std::pow(density, 0.25), 0.55, 3.0);
  return static_cast<float>(px * point_size * std::max(viewport_height, 1) / 1080.0);
}

float SceneRenderer::body_intensity(std::size_t body_count) {
  const double density = 65536.0 / static_cast<double>(std::max<std::size_t>(body_count, 1));
  return static_cast<float>(0.4 * std::clamp(std::pow(density, 0.6), 0.02, 6.0));
}

SceneRenderer::SceneRenderer() : color_maps_(load_color_maps()) {
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureStorage1D(color_map_texture_.id(), 1, GL_RGB16F, kColorMapTexels);

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
  hdr_ = std::make_unique<GlRenderTarget>(viewport.width, viewport.height, GL_RGBA16F);
  const int gw = std::max(1, viewport.width / kGlowDivisor), gh = std::max(1, viewport.height / kGlowDivisor);
  glow_ = std::make_unique<GlRenderTarget>(gw, gh, GL_RGBA16F);
  glow_scratch_ = std::make_unique<GlRenderTarget>(gw, gh, GL_RGBA16F);
}

void SceneRenderer::bind_bodies(GLuint vertex_buffer, std::size_t body_count) {
  if (vertex_buffer == bound_buffer_ && body_count == bound_count_) return;
  // The colour keys follow all n positions, so their offset moves with n.
  glVertexArrayVertexBuffer(body_layout_.id(), 0, vertex_buffer, 0, kVertexPositionBytes);
  glVertexArrayVertexBuffer(body_layout_.id(), 1, vertex_buffer, static_cast<GLintptr>(vertex_color_key_offset(body_count)),
                            kVertexColorKeyBytes);
  bound_buffer_ = vertex_buffer;
  bound_count_ = body_count;
}

void SceneRenderer::select_color_map(ColorMode mode) {
  if (color_map_mode_ == mode) return;
  const ColorMap& map = color_maps_[mode];
  glTextureSubImage1D(color_map_texture_.id(), 0, 0, kColorMapTexels, GL_RGB, GL_FLOAT, map.texels.data());
  const GLint filter = map.discrete ? GL_NEAREST : GL_LINEAR;
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_MIN_FILTER, filter);
  glTextureParameteri(color_map_texture_.id(), GL_TEXTURE_MAG_FILTER, filter);
  color_map_mode_ = mode;
}

void SceneRenderer::draw(const SceneFrame& frame) {
  timer_.begin();
  ensure_targets(frame.viewport);
  const glm::mat4 view_projection = frame.camera->projection(frame.viewport.aspect()) * frame.camera->view();

  glBindFramebuffer(GL_FRAMEBUFFER, hdr_->framebuffer());
  glViewport(0, 0, hdr_->width(), hdr_->height());
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glDisable(GL_CULL_FACE);
  const float clear[4] = {0, 0, 0, 0};
  glClearNamedFramebufferfv(hdr_->framebuffer(), GL_COLOR, 0, clear);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);

  if (frame.body_count > 0 && frame.vertex_buffer) draw_bodies(frame, view_projection);
  glDisable(GL_BLEND);
  draw_glow();  // from the bodies alone: lines stay crisp
  if (!frame.lines.empty()) {
    glBindFramebuffer(GL_FRAMEBUFFER, hdr_->framebuffer());
    glViewport(0, 0, hdr_->width(), hdr_->height());
    glEnable(GL_BLEND);
    draw_lines(frame.lines, view_projection);
    glDisable(GL_BLEND);
  }
  tone_map(frame);
  timer_.end();
}

void SceneRenderer::draw_bodies(const SceneFrame& frame, const glm::mat4& view_projection) {
  bind_bodies(frame.vertex_buffer, frame.body_count);
  select_color_map(frame.view.color_mode);
  const glm::vec4 target_clip = view_projection * glm::vec4(frame.camera->target(), 1.0f);
  bodies_.set("u_view_projection", view_projection);
  bodies_.set("u_point_px", sprite_px(frame.body_count, frame.view.point_size, frame.viewport.height));
  bodies_.set("u_target_depth", std::max(target_clip.w, 1e-6f));
  bodies_.set("u_mean_mass", 1.0f / static_cast<float>(frame.body_count));  // N-body units: total mass 1
  bodies_.set("u_intensity", body_intensity(frame.body_count));
  glBlendFunc(GL_ONE, GL_ONE);
  glEnable(GL_PROGRAM_POINT_SIZE);
  glBindTextureUnit(0, color_map_texture_.id());
  bodies_.use();
  glBindVertexArray(body_layout_.id());
  glDrawArrays(GL_POINTS, 0, static_cast<GLsizei>(frame.body_count));
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

void SceneRenderer::draw_glow() {
  glBindVertexArray(empty_layout_.id());
  glViewport(0, 0, glow_->width(), glow_->height());
  glBindFramebuffer(GL_FRAMEBUFFER, glow_->framebuffer());
  downsample_.set("u_source_texel", glm::vec2(1.0f / hdr_->width(), 1.0f / hdr_->height()));
  downsample_.use();
  glBindTextureUnit(0, hdr_->texture());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  // Two rounds of horizontal + vertical blur: a wide, soft halo around dense regions.
  blur_.use();
  for (int round = 0; round < 2; ++round) {
    glBindFramebuffer(GL_FRAMEBUFFER, glow_scratch_->framebuffer());
    blur_.set("u_step", glm::vec2(1.0f / glow_->width(), 0.0f));
    glBindTextureUnit(0, glow_->texture());
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindFramebuffer(GL_FRAMEBUFFER, glow_->framebuffer());
    blur_.set("u_step", glm::vec2(0.0f, 1.0f / glow_->height()));
    glBindTextureUnit(0, glow_scratch_->texture());
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
}

void SceneRenderer::tone_map(const SceneFrame& frame) {
  glBindFramebuffer(GL_FRAMEBUFFER, frame.target_framebuffer);
  glViewport(frame.viewport.x, frame.viewport.y, frame.viewport.width, frame.viewport.height);
  tonemap_.set("u_exposure", frame.view.exposure);
  tonemap_.set("u_glow_strength", kGlowStrength);
  tonemap_.use();
  glBindTextureUnit(0, hdr_->texture());
  glBindTextureUnit(1, glow_->texture());
  glBindVertexArray(empty_layout_.id());
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

}  // namespace nbl
