// The splatting renderer (render switch "splat", docs/window.md "The picture"): instead of drawing a
// point sprite per body, a compute pass adds each body's Gaussian into the float framebuffer
// (render/splat_model.hpp: the same sizes, colours and light as shaders/bodies.vert and .frag). With the
// vertices on the GPU (the interop path) a CUDA kernel does it with atomics into device memory and CUDA
// copies the result into the framebuffer's texture, registered with it (render/splat_kernel.hpp); with the
// vertices on the host (CPU backends, Mesa) the same code runs on the host and GL uploads the result.
// SceneRenderer calls it in place of the sprites.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "render/body_vertices.hpp"
#include "render/gl_objects.hpp"
#include "render/interop_buffer.hpp"
#include "render/splat_model.hpp"

namespace nbl {

class SplatDevice;

// Where the bodies are: a host copy, or device memory (the GPU backends', BodyVertices' interop path).
struct SplatBodies {
  std::size_t count = 0;                 // the vertices' bodies (their layout)
  std::size_t draw_count = 0;            // the first this many are splatted
  const float* host = nullptr;           // sim/render_vertices.hpp layout, or null
  const BodyVertices* device = nullptr;  // the device vertices, when the backend writes them through CUDA
  GLuint buffer = 0;                     // a GL buffer of the host copy (read back when there is no host array)
};

class Splatter {
 public:
  Splatter();
  ~Splatter();

  // Replaces the contents of `target` (an RGBA32F texture of view.width x view.height) with the bodies'
  // light and bodies per pixel. `density`: the quarter-size RGBA texture of the previous frame (read when
  // view.density_valid; the CUDA path keeps its own copy of it). palettes: layer-major RGB rows
  // (view.palette_count x view.color_texels).
  void draw(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes, GLuint target,
            GLuint density);

  // Whether CUDA can splat into `target` (the float framebuffer's texture): a stream, and the texture
  // registered with CUDA. Tried once; the answer stays (the renderer's automatic choice asks each frame).
  bool device_ready(GLuint target) { return ensure_device(target); }
  // "CUDA" or "host": where the last frame's splat ran; and why not CUDA when it could have been.
  const char* where() const { return on_device_ ? "CUDA" : "host"; }
  const std::string& device_unavailable_reason() const { return device_reason_; }
  // Milliseconds of the splat itself: the kernel's (CUDA events, the last finished frame's) or the host
  // loop's (wall clock).
  double splat_ms() const;
  // The last CUDA splat's CPU side, milliseconds: mapping the framebuffer's texture for CUDA (a
  // synchronisation with GL), queueing the splat's kernels and copy, and handing the texture back.
  struct Handoff {
    double map_ms = 0, queue_ms = 0, unmap_ms = 0;
  };
  const Handoff& handoff() const { return handoff_; }
  // Makes `stream` (a cudaStream_t) wait on the GPU for the last CUDA splat's reads of the vertices.
  void order_before(void* stream) const;
  // The last frame was not splatted (or the framebuffer changed size): its density is not the CUDA
  // path's copy, which must not size the next splat.
  void forget_density();
  // The framebuffer's texture is about to be deleted: unregister it from CUDA first (GL may hand its
  // name to the next texture, so the name alone cannot tell a new one apart).
  void release_target();

 private:
  void draw_on_device(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes,
                      GLuint target, GLuint density);
  void draw_on_host(const SplatBodies& bodies, const SplatView& view, const std::vector<float>& palettes, GLuint target,
                    GLuint density);
  bool ensure_device(GLuint target);

  std::unique_ptr<SplatDevice> device_;
  bool device_tried_ = false;
  std::string device_reason_;
  // The framebuffer's texture as CUDA writes it.
  std::unique_ptr<InteropTexture> target_cuda_;
  GLuint registered_target_ = 0;
  std::vector<float> host_accum_, host_density_, host_vertices_;
  bool on_device_ = false;
  double host_ms_ = 0;
  Handoff handoff_;
};

}  // namespace nbl
