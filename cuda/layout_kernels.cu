// Layout conversions for DeviceBodies::convert (cuda/device_bodies.hpp): float4 is the pivot, every other layout converts to
// and from it. One thread per body, coalesced on the float4 side.
#include "cuda/layout_kernels.hpp"

#include "cuda/check.hpp"

namespace nbl::layout_kernels {

namespace {

constexpr int kThreads = 256;

int blocks(std::size_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

__global__ void aos_to_float4_kernel(const allpairs::BodyRecord* aos, float4* p, float4* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const allpairs::BodyRecord r = aos[i];
  p[i] = make_float4(r.x, r.y, r.z, r.mass);
  v[i] = make_float4(r.vx, r.vy, r.vz, 0.0f);
}

__global__ void float4_to_aos_kernel(const float4* p, const float4* v, allpairs::BodyRecord* aos, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 a = p[i], b = v[i];
  aos[i] = {a.w, a.x, a.y, a.z, b.x, b.y, b.z};
}

__global__ void soa_to_float4_kernel(allpairs::SoaBodies s, float4* p, float4* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  p[i] = make_float4(s.x[i], s.y[i], s.z[i], s.mass[i]);
  v[i] = make_float4(s.vx[i], s.vy[i], s.vz[i], 0.0f);
}

__global__ void float4_to_soa_kernel(const float4* p, const float4* v, allpairs::SoaBodies s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 a = p[i], b = v[i];
  s.x[i] = a.x, s.y[i] = a.y, s.z[i] = a.z, s.mass[i] = a.w;
  s.vx[i] = b.x, s.vy[i] = b.y, s.vz[i] = b.z;
}

}  // namespace

void load() {
  cudaFuncAttributes a{};
  for (const void* k :
       {reinterpret_cast<const void*>(aos_to_float4_kernel), reinterpret_cast<const void*>(float4_to_aos_kernel),
        reinterpret_cast<const void*>(soa_to_float4_kernel), reinterpret_cast<const void*>(float4_to_soa_kernel)})
    if (cudaFuncGetAttributes(&a, k) != cudaSuccess) cudaGetLastError();  // best effort: the launch says what is wrong
}

void aos_to_float4(const allpairs::BodyRecord* aos, float4* pos_mass, float4* vel, std::size_t n, cudaStream_t s) {
  if (!n) return;
  aos_to_float4_kernel<<<blocks(n), kThreads, 0, s>>>(aos, pos_mass, vel, static_cast<int>(n));
  NBL_CUDA_CHECK_LAUNCH();
}
void float4_to_aos(const float4* pos_mass, const float4* vel, allpairs::BodyRecord* aos, std::size_t n,
                   cudaStream_t s) {
  if (!n) return;
  float4_to_aos_kernel<<<blocks(n), kThreads, 0, s>>>(pos_mass, vel, aos, static_cast<int>(n));
  NBL_CUDA_CHECK_LAUNCH();
}
void soa_to_float4(allpairs::SoaBodies soa, float4* pos_mass, float4* vel, std::size_t n, cudaStream_t s) {
  if (!n) return;
  soa_to_float4_kernel<<<blocks(n), kThreads, 0, s>>>(soa, pos_mass, vel, static_cast<int>(n));
  NBL_CUDA_CHECK_LAUNCH();
}
void float4_to_soa(const float4* pos_mass, const float4* vel, allpairs::SoaBodies soa, std::size_t n, cudaStream_t s) {
  if (!n) return;
  float4_to_soa_kernel<<<blocks(n), kThreads, 0, s>>>(pos_mass, vel, soa, static_cast<int>(n));
  NBL_CUDA_CHECK_LAUNCH();
}

}  // namespace nbl::layout_kernels
