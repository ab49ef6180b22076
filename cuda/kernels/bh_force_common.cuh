// What the three force-kernel variants share: how tree data is read, the opening test per level and
// the interaction itself (physics/gravity.hpp, the one force law).
#pragma once
#include "bh_common.cuh"

// One macro per toggle from the switchboard, plus NBL_BH_SOFTENED (softening > 0: a body's
// interaction with itself is exactly zero, so no test is needed).
#if !defined(NBL_BH_RSQRT) || !defined(NBL_BH_AVOID_VOLATILE) || !defined(NBL_BH_SORT) || \
    !defined(NBL_BH_SOFTENED) || !defined(NBL_BH_BLOCK_SIZE) || !defined(NBL_BH_MOMENTS) ||      \
    !defined(NBL_BH_MOMENTS_QUADRUPOLE)
#error "the force kernels need NBL_BH_RSQRT, _AVOID_VOLATILE, _SORT, _SOFTENED, _BLOCK_SIZE and _MOMENTS from the switchboard"
#endif

// bh_moments: a far cell acts through its monopole (mass at the centre of mass) or also through its
// quadrupole (physics/gravity.hpp, accumulate_quadrupole): every far cell, or with `adaptive` only the
// cells a monopole test at kMonopoleShare * theta would open, those closest to the opening limit where a
// monopole's error is largest (it grows as (size / distance)^2).
#define NBL_BH_ADAPTIVE (NBL_BH_MOMENTS == NBL_BH_MOMENTS_ADAPTIVE)
#define NBL_BH_QUADRUPOLE (NBL_BH_MOMENTS == NBL_BH_MOMENTS_QUADRUPOLE || NBL_BH_ADAPTIVE)

namespace nbl::bh {

// Adaptive moments: physics/gravity.hpp, kAdaptiveMonopoleShare.
constexpr float kMonopoleShare = nbl::kAdaptiveMonopoleShare;

// The tree no longer changes while forces are computed, so ordinary cached loads are safe
// (reference 000, Part II: "Minimize volatile accesses"); with the toggle off every read is volatile,
// as a kernel that must not trust its caches would do.
#if NBL_BH_AVOID_VOLATILE
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) { return __ldg(&t.node[id]); }
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) { return __ldg(&t.child[(cell - t.n) * 8 + slot]); }
__device__ __forceinline__ float tree_open_size2(const Tree& t, int cell) { return __ldg(&t.open_size2[cell - t.n]); }
#else
__device__ __forceinline__ float4 tree_node(const Tree& t, int id) {
  const volatile float4* p = t.node + id;
  return make_float4(p->x, p->y, p->z, p->w);
}
__device__ __forceinline__ int tree_child(const Tree& t, int cell, int slot) {
  return load_volatile(&t.child[(cell - t.n) * 8 + slot]);
}
__device__ __forceinline__ float tree_open_size2(const Tree& t, int cell) {
  return load_volatile(&t.open_size2[cell - t.n]);
}
#endif

// Which body the k-th thread computes: tree order when sorted (NBL_BH_SORT), memory order otherwise.
__device__ __forceinline__ int body_for(const Tree& t, int k) {
#if NBL_BH_SORT
  return __ldg(&t.sorted[k]);
#else
  return k;
#endif
}

// The opening test per cell, one multiply and one compare: far when size^2 < theta^2 * distance^2
// (physics/gravity.hpp, cell_is_far), with the size summarize wrote for the cell (Tree::open_size2: its
// edge, stretched for rods and sheets). A cell at kMaxDepth whose bodies are unresolved (bh_common.cuh,
// opening_size2: coincident, or spread over far less than the softening length) has size2 = -1 and is
// far from everything: it acts as one point mass at their centre of mass, so k coincident bodies cost
// O(k), not O(k^2), and their pulls on each other, softened at such distances, are negligible.
__device__ __forceinline__ bool is_far(float open_size2, float theta2, float dist2) {
  return open_size2 < theta2 * dist2;
}

// A deepest cell whose bodies are resolved apart (open_size2 = +inf: never far) is opened by visiting
// its bodies: it has no child cells.
__device__ __forceinline__ bool bodies_to_visit(float open_size2) { return open_size2 == __int_as_float(0x7f800000); }

// Its bodies: the range [start, start + count) of the tree order.
__device__ __forceinline__ int2 body_range(const Tree& t, int cell) {
  return make_int2(__ldg(&t.start[cell - t.n]), __ldg(&t.count[cell - t.n]));
}

// A cell's quadrupole from the second moments summarize wrote (bh_tree.hpp, Tree::second).
__device__ __forceinline__ nbl::Quadrupole cell_quadrupole(const Tree& t, int cell) {
  const float4 s = __ldg(&t.second[cell - t.n]);
  const float2 r = __ldg(&t.second_xz_yz[cell - t.n]);
  return quadrupole_from_second_moments(s.x, s.y, s.z, s.w, r.x, r.y);
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

// A cell with its quadrupole. Without softening, a cell at the body's own position (a deepest cell it
// belongs to) adds nothing rather than 0 * inf, as interact() does for a body meeting itself.
__device__ __forceinline__ void interact_quadrupole(float4 cell, const nbl::Quadrupole& q, float px, float py,
                                                    float pz, float eps2, float& ax, float& ay, float& az) {
  const float dx = cell.x - px, dy = cell.y - py, dz = cell.z - pz;
#if !NBL_BH_SOFTENED
  if (!(dx * dx + (dy * dy + dz * dz) > 0.0f)) return;
#endif
  accumulate_quadrupole<NBL_BH_RSQRT != 0>(dx, dy, dz, cell.w, q.xx, q.yy, q.xy, q.xz, q.yz, q.trace, eps2, ax, ay, az);
}

// What a cell the walk accepts adds to a body: its monopole, or with NBL_BH_QUADRUPOLE its quadrupole too
// (adaptive: only when a monopole test at kMonopoleShare * theta, squared in `monopole_theta2`, would not
// accept it at squared distance `dist2`).
__device__ __forceinline__ void interact_cell(const Tree& t, int cell, float4 node, float open_size2, float dist2,
                                              float monopole_theta2, float px, float py, float pz, float eps2,
                                              float& ax, float& ay, float& az) {
#if NBL_BH_ADAPTIVE
  if (is_far(open_size2, monopole_theta2, dist2)) {
    interact(node, px, py, pz, eps2, ax, ay, az);
    return;
  }
#endif
#if NBL_BH_QUADRUPOLE
  interact_quadrupole(node, cell_quadrupole(t, cell), px, py, pz, eps2, ax, ay, az);
#else
  interact(node, px, py, pz, eps2, ax, ay, az);
#endif
}

}  // namespace nbl::bh
