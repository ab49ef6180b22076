#include "render/splatter.hpp"

#include <chrono>

#include "render/splat_kernel.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

std::size_t pixels(int w, int h) { return static_cast<std::size_t>(w) * static_cast<std::size_t>(h); }

double ms_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

}  // namespace

Splatter::Splatter() = default;
Splatter::~Splatter() = default;

double Splatter::splat_ms() const { return on_device_ && device_ ? device_->last_ms() : host_ms_; }

void Splatter::order_before(void* stream) const {
  if (on_device_ && device_ && stream) device_->order_before(stream);
}

void Splatter::release_target() {
  target_cuda_.reset();
  registered_target_ = 0;
}

void Splatter::forget_density() {
  if (device_) device_->forget_density();
}

void Splatter::draw(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes, GLuint target,
                    GLuint density) {
  on_device_ = bodies.device && ensure_device(target);
  if (on_device_) draw_on_device(bodies, view, palettes, target, density);
  else draw_on_host(bodies, view, palettes, target, density);
}

bool Splatter::ensure_device(GLuint target) {
  if (!device_ && device_tried_) return false;
  try {
    if (!device_) {
      device_tried_ = true;
      device_ = std::make_unique<SplatDevice>();
    }
    if (target != registered_target_) {  // a new framebuffer (the first frame, a resize)
      target_cuda_.reset();
      registered_target_ = 0;
      target_cuda_ = std::make_unique<InteropTexture>(target, "the float framebuffer's texture");
      registered_target_ = target;
      device_->forget_density();
    }
    device_reason_.clear();
    return true;
  } catch (const Error& e) {
    // No CUDA stream, or the texture cannot be shared: the host loop draws the same picture.
    device_reason_ = e.what();
    device_.reset();
    target_cuda_.reset();
    registered_target_ = 0;
    return false;
  }
}

void Splatter::draw_on_device(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes,
                              GLuint, GLuint) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  device_->set_palettes(palettes);
  // The vertices stay in device memory (no hand-off from GL); only the picture crosses: the map waits
  // for GL's earlier use of the texture, the unmap makes GL's next use wait for the splat's stream only.
  // The density stays on the device from one splat to the next.
  void* stream = device_->stream();
  bodies.device->wait_for_write(stream);  // the vertices' write alone, not the step queued after it
  Clock::time_point queued;
  {
    const InteropBuffer::Mapping mapped = target_cuda_->map(stream);
    const auto ready = Clock::now();
    device_->splat(view, bodies.device->device_vertices(), bodies.count, bodies.draw_count, mapped.device_pointer());
    queued = Clock::now();
    handoff_ = {ms_between(start, ready), ms_between(ready, queued), 0};
  }
  handoff_.unmap_ms = ms_between(queued, Clock::now());
}

void Splatter::draw_on_host(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes,
                            GLuint target, GLuint density) {
  const auto start = std::chrono::steady_clock::now();
  if (view.density_valid) {
    host_density_.resize(pixels(view.density_width, view.density_height) * 4);
    glGetTextureImage(density, 0, GL_RGBA, GL_FLOAT, static_cast<GLsizei>(host_density_.size() * sizeof(float)),
                      host_density_.data());
  }
  host_accum_.assign(pixels(view.width, view.height) * 4, 0.0f);
  const float* vertices = bodies.host;
  const GLuint buffer = bodies.device ? bodies.device->buffer() : bodies.buffer;
  if (!vertices && buffer && bodies.count) {
    // On the GPU but CUDA cannot splat (device_unavailable_reason()): read them back, slow but right.
    host_vertices_.resize(5 * bodies.count);
    glGetNamedBufferSubData(buffer, 0, static_cast<GLsizeiptr>(host_vertices_.size() * sizeof(float)),
                            host_vertices_.data());
    vertices = host_vertices_.data();
  }
  if (vertices) {
    const float* positions = vertices;
    const float* keys = vertices + 4 * bodies.count;
    const float* previous = view.density_valid ? host_density_.data() : nullptr;
    for (std::size_t i = 0; i < std::min(bodies.draw_count, bodies.count); ++i) {
      const SplatBody b = splat_body(view, positions + 4 * i, keys[i], static_cast<int>(i), palettes.data(), previous);
      if (!b.visible) continue;
      splat_pixels(view, b, [&](int x, int y, float weight) {
        float* p = host_accum_.data() + 4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(view.width) + x);
        p[0] += b.light[0] * weight;
        p[1] += b.light[1] * weight;
        p[2] += b.light[2] * weight;
        p[3] += b.peak * weight;
      });
    }
  }
  glTextureSubImage2D(target, 0, 0, 0, view.width, view.height, GL_RGBA, GL_FLOAT, host_accum_.data());
  host_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace nbl
