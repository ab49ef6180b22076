// Helpers shared by the Barnes-Hut kernels (reference 000, Part II). Written for independent thread
// scheduling (Volta and later): no kernel assumes a warp runs in lockstep, every exchange between
// lanes goes through a *_sync intrinsic, every wait is bounded (kSpinLimit) and has an exit path.
#pragma once
#include "bh_tree.hpp"
#include "physics/gravity.hpp"

// Compiled only through the switchboard (cuda/barneshut_variant.cpp): it chooses the file, defines one
// NBL_BH_* macro per toggle the file reads, and the compiler options (-ftz) every kernel here assumes.
#ifndef NBL_BH_SWITCHBOARD
#error "Barnes-Hut kernels are compiled through the switchboard (cuda/barneshut_variant.cpp)"
#endif

namespace nbl::bh {

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// Loads that must see other SMs' latest stores (the tree while it is being built or summarized):
// volatile bypasses the non-coherent L1 (reference 000, Part II: "L1 data caches are not coherent").
__device__ __forceinline__ int load_volatile(const int* p) { return *const_cast<const volatile int*>(p); }
__device__ __forceinline__ float load_volatile(const float* p) { return *const_cast<const volatile float*>(p); }
__device__ __forceinline__ void store_volatile(int* p, int v) { *const_cast<volatile int*>(p) = v; }
__device__ __forceinline__ void store_volatile(float* p, float v) { *const_cast<volatile float*>(p) = v; }

// One step of a bounded wait: backs off, counts, and reports the limit (the caller then leaves).
__device__ __forceinline__ bool spin_exhausted(unsigned& spins, Control* ctl) {
  if (++spins >= kSpinLimit) {
    atomicOr(&ctl->error, kErrorSpinLimit);
    return true;
  }
  __nanosleep(spins < 64 ? 32 : 256);
  return false;
}

__device__ __forceinline__ bool tree_failed(const Control* ctl) {
  return load_volatile(&ctl->error) & (kErrorPoolExhausted | kErrorSpinLimit | kErrorNonFinite);
}

__device__ __forceinline__ bool non_finite(const Control* ctl) { return load_volatile(&ctl->error) & kErrorNonFinite; }

// The shell of a position (bh_tree.hpp, kShellLevels): the smallest j whose cube, edge root_size * 2^j
// around the root centre, holds it.
__device__ __forceinline__ int shell_of(float4 p, const Control* ctl) {
  const float half = 0.5f * ctl->root_size;
  const float r = fmaxf(fmaxf(fabsf(p.x - ctl->root_x), fabsf(p.y - ctl->root_y)), fabsf(p.z - ctl->root_z)) / half;
  if (r <= 1.0f) return 0;
  if (!(r < 3.0e38f)) return kMaxShell;
  int e;
  frexpf(r, &e);  // r = f 2^e, f in [0.5, 1): r < 2^e
  return min(e, kMaxShell);
}

// Octal digit of shell j that picks the child slot at `level` (1..kShellLevels), most significant first.
__device__ __forceinline__ int shell_digit(int shell, int level) { return (shell >> (3 * (kShellLevels - level))) & 7; }

// Geometric edge of a cell at `level` in shell `shell`; the cells above the shells are as large as the
// largest shell's cube.
__device__ __forceinline__ float cell_edge(const Control* ctl, int level, int shell) {
  return level < kShellLevels ? ldexpf(ctl->root_size, ctl->max_shell)
                              : ldexpf(ctl->root_size, shell - (level - kShellLevels));
}

// A cell's mass distribution to second order: mass, centre of mass, second moments about it, and the
// sum of squared masses (mass^2 / that = the effective number of bodies).
struct Moments {
  float m, x, y, z;
  float xx, yy, zz, mass2, xy, xz, yz;
};

__device__ __forceinline__ Moments body_moments(float4 p) {
  return Moments{p.w, p.x, p.y, p.z, 0, 0, 0, p.w * p.w, 0, 0, 0};
}

// Both halves as one (parallel axes: each part's moments about its own centre plus its mass at its
// offset). Offsets from the new centre are small next to the coordinates, so float keeps the digits.
__device__ __forceinline__ Moments merge(const Moments& a, const Moments& b) {
  Moments s;
  s.m = a.m + b.m;
  const float f = s.m > 0.0f ? b.m / s.m : 0.5f;
  s.x = a.x + f * (b.x - a.x);
  s.y = a.y + f * (b.y - a.y);
  s.z = a.z + f * (b.z - a.z);
  const float ax = a.x - s.x, ay = a.y - s.y, az = a.z - s.z;
  const float bx = b.x - s.x, by = b.y - s.y, bz = b.z - s.z;
  s.xx = a.xx + b.xx + a.m * ax * ax + b.m * bx * bx;
  s.yy = a.yy + b.yy + a.m * ay * ay + b.m * by * by;
  s.zz = a.zz + b.zz + a.m * az * az + b.m * bz * bz;
  s.xy = a.xy + b.xy + a.m * ax * ay + b.m * bx * by;
  s.xz = a.xz + b.xz + a.m * ax * az + b.m * bx * bz;
  s.yz = a.yz + b.yz + a.m * ay * az + b.m * by * bz;
  s.mass2 = a.mass2 + b.mass2;
  return s;
}

// The squared cell size of the opening criterion: the edge times opening_stretch (physics/gravity.hpp,
// the CPU backend's rule), so rods and sheets, whose monopoles all err the same way, open sooner.
__device__ __forceinline__ float opening_size2(float edge, const Moments& s) {
  const float effective = s.mass2 > 0.0f ? s.m * s.m / s.mass2 : 0.0f;
  const float size = edge * opening_stretch(s.xx, s.yy, s.zz, s.xy, s.xz, s.yz, s.m, effective, edge);
  return size * size;
}

__device__ __forceinline__ float warp_min(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fminf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
__device__ __forceinline__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// Integer max and sum over the full warp: one redux.sync from sm_80 (Ampere) on; Turing (sm_75, still
// in classrooms) has no such instruction and gets the shuffle butterfly.
__device__ __forceinline__ int warp_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
#endif
}
__device__ __forceinline__ int warp_sum(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
#endif
}

// Summed over the block by warp shuffles, then one atomic per warp: statistics cost almost nothing.
__device__ __forceinline__ void add_touched_stats(Control* ctl, int touched, bool valid) {
  unsigned long long sum = valid ? touched : 0;
  int lo = valid ? touched : 0x7fffffff;
  int hi = valid ? touched : 0;
  for (int offset = 16; offset > 0; offset >>= 1) {
    sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
  }
  if (lane_id() == 0) {
    atomicAdd(&ctl->touched_sum, sum);
    atomicMin(&ctl->touched_min, lo);
    atomicMax(&ctl->touched_max, hi);
  }
}

}  // namespace nbl::bh
