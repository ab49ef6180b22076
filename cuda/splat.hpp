// The splatting renderer's device half (render/splatter.hpp owns the GL side): one thread per body adds
// the body's Gaussian into a float RGBA framebuffer in device memory with atomics, as
// render/splat_model.hpp defines it. It runs on a stream of its own, after the stream that wrote the
// vertices, so a simulation step on another stream can run beside it. This header names no CUDA type.
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

  // Clears `accum` (view.width x view.height float4) and adds every body into it, in stream order after
  // the work enqueued so far on `after_stream` (the vertices' writer; null: none). vertices: n float4
  // (x, y, z, mass) then n colour keys (sim/render_vertices.hpp). density: the quarter copy's RGBA
  // floats, or null. All pointers are device pointers.
  void splat(const SplatView& view, const float* vertices, std::size_t n, const float* density, float* accum,
             void* after_stream);

  // Makes `stream`'s later work wait for the last splat's reads (the vertex buffer is rewritten next).
  void order_before(void* stream) const;
  void* stream() const;  // a cudaStream_t: interop maps and unmaps for the splat go on it
  // Device milliseconds of the last splat whose events have completed (clear + kernel); 0 before one.
  double last_ms() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace nbl
