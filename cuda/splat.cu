#include "cuda/splat.hpp"

#include <cuda_runtime_api.h>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"

namespace nbl {

namespace {

constexpr int kThreads = 256;

__device__ inline void add_pixel(float4* accum, int index, float4 v) {
#if __CUDA_ARCH__ >= 900
  atomicAdd(accum + index, v);  // one vector atomic per pixel (Hopper's float4 atomicAdd on global memory)
#else
  float* p = reinterpret_cast<float*>(accum + index);
  atomicAdd(p + 0, v.x);
  atomicAdd(p + 1, v.y);
  atomicAdd(p + 2, v.z);
  atomicAdd(p + 3, v.w);
#endif
}

// One body per thread: bodies.vert's sizing and colour, then bodies.frag's Gaussian over its pixels.
__global__ void splat_bodies(SplatView view, const float4* __restrict__ positions, const float* __restrict__ keys,
                             int n, const float* __restrict__ density, const float* __restrict__ palettes,
                             float4* accum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 p = positions[i];
  const float position_mass[4] = {p.x, p.y, p.z, p.w};
  const SplatBody b = splat_body(view, position_mass, keys[i], i, palettes, density);
  if (!b.visible) return;
  splat_pixels(view, b, [&](int x, int y, float weight) {
    add_pixel(accum, y * view.width + x,
              make_float4(b.light[0] * weight, b.light[1] * weight, b.light[2] * weight, b.peak * weight));
  });
}

}  // namespace

struct SplatDevice::State {
  CudaStream stream;
  CudaEvent ready, start, stop;
  DeviceBuffer<float> palettes;
  std::vector<float> uploaded;
  bool timed = false;  // start/stop hold a splat not yet read
  double last_ms = 0;
};

SplatDevice::SplatDevice() : state_(std::make_unique<State>()) {}
SplatDevice::~SplatDevice() = default;

void* SplatDevice::stream() const { return state_->stream.get(); }

void SplatDevice::order_before(void* stream) const {
  NBL_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), state_->stop.get(), 0));
}

void SplatDevice::set_palettes(const std::vector<float>& rgb) {
  if (rgb == state_->uploaded) return;
  state_->palettes.resize(rgb.size());
  state_->palettes.upload(rgb.data(), rgb.size(), state_->stream.get());
  state_->uploaded = rgb;
}

void SplatDevice::splat(const SplatView& view, const float* vertices, std::size_t n, const float* density,
                        float* accum, void* after_stream) {
  State& s = *state_;
  cudaStream_t stream = s.stream.get();
  last_ms();  // keep the previous figure before the events are reused
  if (after_stream) {
    s.ready.record(static_cast<cudaStream_t>(after_stream));
    NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, s.ready.get(), 0));
  }
  s.start.record(stream);
  const std::size_t pixels = static_cast<std::size_t>(view.width) * static_cast<std::size_t>(view.height);
  NBL_CUDA_CHECK(cudaMemsetAsync(accum, 0, pixels * sizeof(float4), stream));
  if (n > 0) {
    const auto* positions = reinterpret_cast<const float4*>(vertices);
    const float* keys = vertices + 4 * n;
    const unsigned blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
    splat_bodies<<<blocks, kThreads, 0, stream>>>(
        view, positions, keys, static_cast<int>(n), view.density_valid ? density : nullptr, s.palettes.data(),
        reinterpret_cast<float4*>(accum));
    NBL_CUDA_CHECK(cudaGetLastError());
  }
  s.stop.record(stream);
  s.timed = true;
}

double SplatDevice::last_ms() const {
  State& s = *state_;
  if (!s.timed) return s.last_ms;
  const cudaError_t status = cudaEventQuery(s.stop.get());
  if (status == cudaErrorNotReady) {
    cudaGetLastError();  // not an error: the splat is still running
    return s.last_ms;
  }
  NBL_CUDA_CHECK(status);
  {
    float ms = 0;
    NBL_CUDA_CHECK(cudaEventElapsedTime(&ms, s.start.get(), s.stop.get()));
    s.last_ms = ms;
    s.timed = false;
  }
  return s.last_ms;
}

}  // namespace nbl
