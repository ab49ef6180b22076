// Marks functions that compile for both the host (g++, the CPU backends, the reference) and the device
// (nvcc and NVRTC kernels). Every physics header includes this and nothing from the standard library,
// so NVRTC can compile kernels that include the physics headers without a host toolchain.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define NBL_HD __host__ __device__
#else
#define NBL_HD
#endif

namespace nbl {

// Square root and reciprocal square root for float and double without <cmath>: NVRTC has no standard
// headers, but it has the CUDA math builtins; host code gets them from the compiler builtins.
NBL_HD inline float nbl_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return sqrtf(x);
#else
  return __builtin_sqrtf(x);
#endif
}
NBL_HD inline double nbl_sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return sqrt(x);
#else
  return __builtin_sqrt(x);
#endif
}

// rsqrtf is the fast, slightly imprecise hardware instruction (MUFU.RSQ, ~2 ulp). On the host there is
// no such instruction; the exact value stands in for it.
NBL_HD inline float nbl_rsqrt_fast(float x) {
#if defined(__CUDA_ARCH__)
  return rsqrtf(x);
#else
  return 1.0f / __builtin_sqrtf(x);
#endif
}
NBL_HD inline double nbl_rsqrt_fast(double x) {
#if defined(__CUDA_ARCH__)
  return rsqrt(x);
#else
  return 1.0 / __builtin_sqrt(x);
#endif
}

}  // namespace nbl
