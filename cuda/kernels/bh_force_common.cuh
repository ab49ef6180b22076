// What the three force-kernel variants share: how tree data is read, the opening test per level and
// the interaction itself (physics/gravity.hpp, the one force law).
#pragma once
#include "bh_common.cuh"

// One macro per toggle from the switchboard, plus NBL_BH_SOFTENED (softening > 0: a body's
// interaction with itself is exactly zero, so no test is needed).
#if !defined(NBL_BH_RSQRT) || !defined(NBL_BH_AVOID_VOLATILE) || !defined(NBL_BH_SORT) || \
    !defined(NBL_BH_SOFTENED) || !defined(NBL_BH_BLOCK_SIZE)
#error "the force kernels need NBL_BH_RSQRT, _AVOID_VOLATILE, _SORT, _SOFTENED and _BLOCK_SIZE from the switchboard"
#endif

namespace nbl::bh {

// The tree no longer changes while forces are computed, so ordinary cached loads are safe
// (reference 000, Part II: "Minimize volatile accesses"); with the toggle off every read is volatile,
// as a kernel that must not trust its caches would do.
#if NBL_BH_AVOID_VOLATILE
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) { return __ldg(&t.node[id]); }
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) { return __ldg(&t.child[(cell - t.n) * 8 + slot]); }
__device__ __forceinline__ int tree_depth(const Tree& t, int cell) { return __ldg(&t.depth[cell - t.n]); }
#else
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) {
  const volatile float4* p = t.node + id;
  return make_float4(p->x, p->y, p->z, p->w);
}
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) {
  return load_volatile(&t.child[(cell - t.n) * 8 + slot]);
}
__device__ __forceinline__ int tree_depth(const Tree& t, int cell) { return load_volatile(&t.depth[cell - t.n]); }
#endif

// Which body the k-th thread computes: tree order when sorted (NBL_BH_SORT), memory order otherwise.
__device__ __forceinline__ int body_for(const Tree& t, int k) {
#if NBL_BH_SORT
  return __ldg(&t.sorted[k]);
#else
  return k;
#endif
}

// Squared edge length of a cell at each level, so the opening test per node is one multiply and one
// compare: far when size^2 < theta^2 * distance^2 (physics/gravity.hpp, cell_is_far).
__device__ __forceinline__ void fill_level_sizes(float* size2, const Control* ctl) {
  for (int level = threadIdx.x; level <= kMaxDepth; level += blockDim.x) {
    const float s = cell_size_at(ctl->root_size, level);
    size2[level] = s * s;
  }
}

__device__ __forceinline__ bool is_far(const float* size2, int level, float theta2, float dist2) {
  return size2[level] < theta2 * dist2;
}

// A cell at kMaxDepth that must be opened has no child cells: its bodies are visited directly, as the
// range [start, start + count) of the tree order.
__device__ __forceinline__ int2 body_range(const Tree& t, int cell) {
  return make_int2(__ldg(&t.start[cell - t.n]), __ldg(&t.count[cell - t.n]));
}

__device__ __forceinline__ void interact(float4 other, float px, float py, float pz, float eps2, float& ax,
                                         float& ay, float& az) {
  const float dx = other.x - px, dy = other.y - py, dz = other.z - pz;
#if NBL_BH_SOFTENED
  accumulate_acceleration<NBL_BH_RSQRT != 0, true>(dx, dy, dz, other.w, eps2, ax, ay, az);
#else
  // Without softening a body meeting itself (distance 0) must add nothing rather than 0 * inf.
  const float dist2 = dx * dx + (dy * dy + dz * dz);
  if (dist2 > 0.0f) accumulate_acceleration<NBL_BH_RSQRT != 0, true>(dx, dy, dz, other.w, 0.0f, ax, ay, az);
#endif
}

}  // namespace nbl::bh
