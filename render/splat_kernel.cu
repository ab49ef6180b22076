#include "render/splat_kernel.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>

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

// shaders/downsample.frag's alpha, one thread per quarter texel: the next frame's density.
__global__ void quarter_density_kernel(const float4* __restrict__ accum, int width, int height, int qw, int qh,
                                       float* density) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= qw * qh) return;
  density[i] = quarter_density(reinterpret_cast<const float*>(accum), width, height, qw, qh, i % qw, i / qw);
}

}  // namespace

struct SplatDevice::State {
  CudaStream stream{CudaStream::Priority::display};  // a frame waits for the splat: first in line for the SMs
  CudaEvent start, stop;
  DeviceBuffer<float> palettes;
  DeviceBuffer<float4> accum;
  DeviceBuffer<float> density;
  int density_width = 0, density_height = 0;
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

void SplatDevice::splat(const SplatView& view_in, const float* vertices, std::size_t n, std::size_t drawn,
                        void* target_array) {
  State& s = *state_;
  cudaStream_t stream = s.stream.get();
  last_ms();  // keep the previous figure before the events are reused
  SplatView view = view_in;
  view.density_stride = 1;
  view.density_valid = view.density_valid && density_ready_ && s.density_width == view.density_width &&
                       s.density_height == view.density_height;
  s.start.record(stream);
  const std::size_t pixels = static_cast<std::size_t>(view.width) * static_cast<std::size_t>(view.height);
  s.accum.resize(pixels);
  NBL_CUDA_CHECK(cudaMemsetAsync(s.accum.data(), 0, pixels * sizeof(float4), stream));
  drawn = std::min(drawn, n);
  if (drawn > 0) {
    const auto* positions = reinterpret_cast<const float4*>(vertices);
    const float* keys = vertices + 4 * n;
    const unsigned blocks = static_cast<unsigned>((drawn + kThreads - 1) / kThreads);
    splat_bodies<<<blocks, kThreads, 0, stream>>>(view, positions, keys, static_cast<int>(drawn),
                                                  view.density_valid ? s.density.data() : nullptr, s.palettes.data(),
                                                  s.accum.data());
    NBL_CUDA_CHECK(cudaPeekAtLastError());
  }
  // The density for the next frame (the kernel above read the previous one first: same stream).
  const int qw = view.density_width, qh = view.density_height;
  if (qw > 0 && qh > 0) {
    s.density.resize(static_cast<std::size_t>(qw) * static_cast<std::size_t>(qh));
    const unsigned blocks = static_cast<unsigned>((qw * qh + kThreads - 1) / kThreads);
    quarter_density_kernel<<<blocks, kThreads, 0, stream>>>(s.accum.data(), view.width, view.height, qw, qh,
                                                            s.density.data());
    NBL_CUDA_CHECK(cudaPeekAtLastError());
    s.density_width = qw;
    s.density_height = qh;
    density_ready_ = true;
  }
  const std::size_t row = static_cast<std::size_t>(view.width) * sizeof(float4);
  NBL_CUDA_CHECK(cudaMemcpy2DToArrayAsync(static_cast<cudaArray_t>(target_array), 0, 0, s.accum.data(), row, row,
                                          static_cast<std::size_t>(view.height), cudaMemcpyDeviceToDevice, stream));
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
