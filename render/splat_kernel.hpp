// The splatting renderer's device half (render/splatter.hpp owns the GL side): one thread per body adds
// the body's Gaussian into a float RGBA buffer in device memory with atomics, as render/splat_model.hpp
// defines it; a second kernel takes the quarter-size density the next frame sizes its bodies by; the
// buffer is then copied into the GL framebuffer's texture (a CUDA array through interop), a copy on the
// device. It runs on a stream of its own, after the stream that wrote the vertices, so a simulation step
// on another stream can run beside it. This header names no CUDA type.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "render/splat_model.hpp"

namespace nbl {

class SplatDevice {
 public:
  SplatDevice();  // throws Error when CUDA cannot make a stream
  ~SplatDevice();
  SplatDevice(const SplatDevice&) = delete;
  SplatDevice& operator=(const SplatDevice&) = delete;

  // The colour maps, layer-major rows of texels x RGB; uploaded when they change.
  void set_palettes(const std::vector<float>& rgb);

  // Adds every body into a cleared view.width x view.height buffer and copies it into `target_array` (a
  // cudaArray_t of RGBA32F, the same size), in the order of stream() (the caller makes it wait for the
  // vertices' write: BodyVertices::wait_for_write). vertices: n float4 (x, y, z, mass) then n colour
  // keys (sim/render_vertices.hpp), a device pointer. Bodies are sized by the density this object took
  // from its previous splat when view.density_valid and that density has the view's quarter size.
  // vertices: n bodies (sim/render_vertices.hpp layout), of which the first `drawn` are splatted.
  void splat(const SplatView& view, const float* vertices, std::size_t n, std::size_t drawn, void* target_array);
  void forget_density() { density_ready_ = false; }  // the next splat sizes bodies as lone stars

  // Makes `stream`'s later work wait for the last splat's reads (the vertex buffer is rewritten next).
  void order_before(void* stream) const;
  void* stream() const;  // a cudaStream_t: interop maps and unmaps for the splat go on it
  // Device milliseconds of the last splat whose events have completed (clear, splat, density, copy);
  // 0 before one.
  double last_ms() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool density_ready_ = false;
};

}  // namespace nbl
