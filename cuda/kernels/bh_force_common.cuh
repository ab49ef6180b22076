// What the three force-kernel variants share: how tree data is read, the opening test per cell, what a
// cell at the deepest level pulls with, and
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
__device__ __forceinline__ float tree_open2(const Tree& t, int cell) { return __ldg(&t.open2[cell - t.n]); }
#else
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) {
  const volatile float4* p = t.node + id;
  return make_float4(p->x, p->y, p->z, p->w);
}
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) {
  return load_volatile(&t.child[(cell - t.n) * 8 + slot]);
}
__device__ __forceinline__ int tree_depth(const Tree& t, int cell) { return load_volatile(&t.depth[cell - t.n]); }
__device__ __forceinline__ float tree_open2(const Tree& t, int cell) { return load_volatile(&t.open2[cell - t.n]); }
#endif

// Which body the k-th thread computes: tree order when sorted (NBL_BH_SORT), memory order otherwise.
__device__ __forceinline__ int body_for(const Tree& t, int k) {
#if NBL_BH_SORT
  return __ldg(&t.sorted[k]);
#else
  return k;
#endif
}

// The opening test (physics/gravity.hpp, cell_is_far) with the cell's own squared size, which the
// summarize step stretched for rods and sheets: far when size^2 < theta^2 * distance^2.
__device__ __forceinline__ bool is_far(float open2, float theta2, float dist2) { return open2 < theta2 * dist2; }

// A cell at kMaxDepth is never opened (bh_tree.hpp): what it pulls with on body i at p. On a body
// outside it, its mass at its centre of mass; on one of its own bodies (told by the body's position in
// tree order), the rest of its mass at the rest's centre of mass, com + m/(M - m) (com - p), written so
// that close positions keep their digits. Such cells are rare: everything is loaded here, on demand.
__device__ __forceinline__ float4 deepest_cell_pull(const Tree& t, int cell, float4 p, int i) {
  const float4 q = tree_node(t, cell);
  const int first = __ldg(&t.start[cell - t.n]), count = __ldg(&t.count[cell - t.n]);
  const int position = __ldg(&t.position[i]);
  if (position < first || position >= first + count) return q;
  const float rest = q.w - p.w;
  if (!(rest > 0.0f)) return make_float4(q.x, q.y, q.z, 0.0f);
  const float f = p.w / rest;
  return make_float4(q.x + f * (q.x - p.x), q.y + f * (q.y - p.y), q.z + f * (q.z - p.z), rest);
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
