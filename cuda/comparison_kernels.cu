#include "cuda/comparison_kernels.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/check.hpp"

namespace nbl::comparison {

namespace {

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;

__device__ double component(const void* base, bool fp64, long long at) {
  return fp64 ? static_cast<const double*>(base)[at] : static_cast<double>(static_cast<const float*>(base)[at]);
}

__global__ void difference_kernel(AccelerationView a, AccelerationView b, long long n, float* per_body,
                                  double* partials) {
  __shared__ double s_d2[kThreads], s_a2[kThreads], s_max[kThreads];
  double d2 = 0, a2 = 0, dmax = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(blockDim.x) * gridDim.x) {
    const double ax = component(a.x, a.fp64, i * a.stride), ay = component(a.y, a.fp64, i * a.stride),
                 az = component(a.z, a.fp64, i * a.stride);
    const double dx = component(b.x, b.fp64, i * b.stride) - ax, dy = component(b.y, b.fp64, i * b.stride) - ay,
                 dz = component(b.z, b.fp64, i * b.stride) - az;
    const double d = sqrt(dx * dx + dy * dy + dz * dz);
    d2 += d * d;
    a2 += ax * ax + ay * ay + az * az;
    dmax = isfinite(d) ? fmax(dmax, d) : d;  // NaN/inf propagates to the host
    if (per_body) per_body[i] = static_cast<float>(d);
  }
  s_d2[threadIdx.x] = d2, s_a2[threadIdx.x] = a2, s_max[threadIdx.x] = dmax;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      s_d2[threadIdx.x] += s_d2[threadIdx.x + half];
      s_a2[threadIdx.x] += s_a2[threadIdx.x + half];
      const double other = s_max[threadIdx.x + half];
      s_max[threadIdx.x] = isfinite(other) ? fmax(s_max[threadIdx.x], other) : other;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partials[3 * blockIdx.x] = s_d2[0];
    partials[3 * blockIdx.x + 1] = s_a2[0];
    partials[3 * blockIdx.x + 2] = s_max[0];
  }
}

__global__ void keys_kernel(const float* per_body, float* keys, long long n, float scale) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float r = per_body[i] / scale;
  keys[i] = r > 0 ? fminf(fmaxf((log10f(r) + 8.0f) / 7.0f, 0.0f), 1.0f) : 0.0f;
}

}  // namespace

DifferenceSums DifferencePass::run(AccelerationView a, AccelerationView b, std::size_t n, float* per_body,
                                   cudaStream_t stream) {
  DifferenceSums sums;
  if (n == 0) return sums;
  const int blocks = static_cast<int>(std::min<std::size_t>((n + kThreads - 1) / kThreads, kMaxBlocks));
  partials_.resize(3 * static_cast<std::size_t>(kMaxBlocks));
  host_.resize(3 * static_cast<std::size_t>(kMaxBlocks));
  difference_kernel<<<blocks, kThreads, 0, stream>>>(a, b, static_cast<long long>(n), per_body, partials_.data());
  NBL_CUDA_CHECK_LAUNCH();
  NBL_CUDA_CHECK(
      cudaMemcpyAsync(host_.data(), partials_.data(), 3 * sizeof(double) * blocks, cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  const double* host = host_.data();
  for (int k = 0; k < blocks; ++k) {
    sums.difference2 += host[3 * k];
    sums.reference2 += host[3 * k + 1];
    const double m = host[3 * k + 2];
    sums.max_difference = std::isfinite(m) ? std::max(sums.max_difference, m) : m;
  }
  return sums;
}

void write_difference_keys(const float* per_body, float* keys, std::size_t n, float scale, cudaStream_t stream) {
  if (n == 0) return;
  keys_kernel<<<static_cast<int>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      per_body, keys, static_cast<long long>(n), scale);
  NBL_CUDA_CHECK_LAUNCH();
}

}  // namespace nbl::comparison
