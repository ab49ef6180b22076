// Helpers shared by the Barnes-Hut kernels (Burtscher's CUDA optimization tutorial, Part II). Written for independent thread
// scheduling (Volta and later): no kernel assumes a warp runs in lockstep, every exchange between
// lanes goes through a *_sync intrinsic, every wait is bounded (kSpinLimit) and has an exit path.
#pragma once
#include "bh_tree.hpp"
#include "physics/gravity.hpp"

// Compiled only through the switchboard (cuda/barneshut/variant.cpp): it chooses the file, defines one
// NBL_BH_* macro per toggle the file reads, and the compiler options (-ftz) every kernel here assumes.
#ifndef NBL_BH_SWITCHBOARD
#error "Barnes-Hut kernels are compiled through the switchboard (cuda/barneshut/variant.cpp)"
#endif

namespace nbl::bh {

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// Loads that must see other SMs' latest stores (the tree while it is being built or summarized):
// volatile bypasses the non-coherent L1 (the tutorial, Part II: "L1 data caches are not coherent").
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

// The bounding box met a NaN or inf (kErrorNonFinite): the keys, ids and tree links after it were never
// written this step, so every later kernel leaves at once instead of indexing with them.
__device__ __forceinline__ bool bodies_not_finite(const Control* ctl) {
  return load_volatile(&ctl->error) & kErrorNonFinite;
}

__device__ __forceinline__ bool tree_failed(const Control* ctl) {
  return load_volatile(&ctl->error) & (kErrorPoolExhausted | kErrorSpinLimit | kErrorNonFinite);
}

// The octant of a cube centred at (cx, cy, cz) that holds p: one bit per axis, set on the upper half
// (the Morton build's key digits number octants the same way).
__device__ __forceinline__ int octant(float4 p, float cx, float cy, float cz) {
  return (p.x > cx ? 1 : 0) | (p.y > cy ? 2 : 0) | (p.z > cz ? 4 : 0);
}

// Edge length of a cell at `level` below a root of edge `root_size`.
__device__ __forceinline__ float cell_size_at(float root_size, int level) { return ldexpf(root_size, -level); }

// The squared size a summarized cell counts as in the opening criterion (Tree::open_size2): its edge,
// stretched when its mass lies along a line or in a plane (from its second moments about the centre
// of mass), and at least its reach (physics/gravity.hpp, opening_stretch and opening_size, the rules
// the CPU backend uses too). The effective number of bodies is taken as the count (exact for equal
// masses; unequal ones stretch a little more).
// A cell at the deepest level is never opened into child cells. When its bodies are unresolved, closer
// together (RMS about their centre of mass) than a thousandth of the softening length, or all at one
// position, it is never opened at all (-1): one point mass, k coincident bodies cost O(k). Otherwise
// it is always opened (+inf) and its bodies are visited one by one, as a clump far smaller than the
// root cube but wider than the softening needs. Distinct float positions are always resolved: the
// walks take differences of nearby floats exactly, and merging two bodies a few units of float
// rounding apart (which an earlier rule did) dropped their strong mutual pull.
__device__ __forceinline__ float opening_size2(int level, float edge, float mass, int count, float sxx, float syy,
                                               float szz, float sxy, float sxz, float syz, float reach, float eps2) {
  if (level >= kMaxDepth) return sxx + syy + szz <= mass * (1e-6f * eps2) ? -1.0f : __int_as_float(0x7f800000);
  const float stretched =
      edge * nbl::opening_stretch(sxx, syy, szz, sxy, sxz, syz, mass, static_cast<float>(count), edge);
  const float size = nbl::opening_size(stretched, reach);
  // A cube wider than 1.8e19 squares past float's range: kept finite, so +inf stays the deepest cells'
  // mark (such a cell is then far only from cells whose distance squares to inf too).
  return fminf(size * size, 3.0e38f);
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
