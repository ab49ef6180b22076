// Barnes-Hut kernel 3 of 6, after the lock-based build: summarize every cell's subtree into a mass, a
// centre of mass, a body count (Burtscher's CUDA optimization tutorial, Part II, "Kernel 3: summarize subtrees") and the second
// moments of its mass about the centre of mass (the quadrupole's source, from the children's by
// parallel axes).
// Bottom-up without locks or atomics: cells are scanned from the lowest id upward (children have
// lower ids than their parents), a cell's mass doubles as its "ready" flag (published after a fence,
// behind its centre of mass), and empty child slots are moved to the back so the sort kernel and, with
// bh_early_out, the per-thread and warp walks can stop at the first one. Needs every thread resident at once (the host launches a persistent grid), so
// the lowest unfinished cell always belongs to a running thread: the waits cannot deadlock, and they
// are bounded anyway.
// NBL_BH_WAITFREE: first fold in every child that is already done without waiting, remember which
// were not (a bitmask), and only then wait for those ("wait-free pre-pass").
#include "bh_common.cuh"

using namespace nbl::bh;

#ifndef NBL_BH_WAITFREE
#error "bh_summarize.cu needs NBL_BH_WAITFREE from the switchboard"
#endif

// Mass and mass-weighted position, the positions taken relative to the first one added (a body or a
// child's centre of mass, inside the cell): float sums of offsets the size of the cell keep a small
// cell's digits far from the origin, and k coincident bodies sum to exactly zero offset, so their
// cell's centre of mass is exactly where they are (its spread zero: one point mass).
struct Sum {
  float m = 0, x = 0, y = 0, z = 0;
  float rx = 0, ry = 0, rz = 0;  // the reference: the first position added
  int count = 0;
  __device__ void add(float4 p, int bodies) {
    if (count == 0) rx = p.x, ry = p.y, rz = p.z;
    m += p.w;
    x += (p.x - rx) * p.w;
    y += (p.y - ry) * p.w;
    z += (p.z - rz) * p.w;
    count += bodies;
  }
};

__device__ __forceinline__ void add_body(const Tree& t, int body, Sum& s) { s.add(t.node[body], 1); }

// A child cell that is known to be summarized (its mass was seen >= 0 and a fence followed).
__device__ __forceinline__ void add_cell(const Tree& t, int cell, Sum& s) {
  const float4* node = t.node + cell;
  const float4 p =
      make_float4(load_volatile(&node->x), load_volatile(&node->y), load_volatile(&node->z), load_volatile(&node->w));
  s.add(p, load_volatile(&t.count[cell - t.n]));
}

// Second moments of mass about a point, sum of m d d^T, and the farthest a body lies from it.
struct Second {
  float xx = 0, yy = 0, zz = 0, xy = 0, xz = 0, yz = 0;
  float reach = 0;
  // Mass m whose own bodies lie within `within` of its centre, at offset d.
  __device__ void add(float m, float dx, float dy, float dz, float within) {
    xx += m * dx * dx, yy += m * dy * dy, zz += m * dz * dz;
    xy += m * dx * dy, xz += m * dx * dz, yz += m * dy * dz;
    reach = fmaxf(reach, sqrtf(dx * dx + dy * dy + dz * dz) + within);
  }
};

__device__ __forceinline__ void add_body_second(const Tree& t, int body, float4 com, Second& s) {
  const float4 p = t.node[body];
  s.add(p.w, p.x - com.x, p.y - com.y, p.z - com.z, 0.0f);
}

// A summarized child cell: its own second moments plus its mass at its centre of mass (parallel axes);
// its bodies lie within its reach of its centre of mass.
__device__ __forceinline__ void add_cell_second(const Tree& t, int cell, float4 com, Second& s) {
  const float4* node = t.node + cell;
  const float4 p =
      make_float4(load_volatile(&node->x), load_volatile(&node->y), load_volatile(&node->z), load_volatile(&node->w));
  const float* m2 = reinterpret_cast<const float*>(t.second + (cell - t.n));
  const float* r2 = reinterpret_cast<const float*>(t.second_xz_yz + (cell - t.n));
  s.xx += load_volatile(m2 + 0), s.yy += load_volatile(m2 + 1), s.zz += load_volatile(m2 + 2);
  s.xy += load_volatile(m2 + 3), s.xz += load_volatile(r2 + 0), s.yz += load_volatile(r2 + 1);
  s.add(p.w, p.x - com.x, p.y - com.y, p.z - com.z, load_volatile(&t.reach[cell - t.n]));
}

extern "C" __global__ void __launch_bounds__(kSummarizeThreads) bh_summarize(Tree t) {
  Control* ctl = t.ctl;
  if (tree_failed(ctl)) return;
  const int n = t.n;
  const int bottom = ctl->bottom;
  const int root = ctl->root;
  const int stride = blockDim.x * gridDim.x;
  int used_slots = 0;
  // Start at a warp-aligned id below `bottom` so the warps' loads of child slots coalesce.
  for (int k = (bottom & ~31) + blockIdx.x * blockDim.x + threadIdx.x; k <= root; k += stride) {
    if (k < bottom) continue;
    int* slots = t.child + (k - n) * 8;
    int children[8];
    for (int j = 0; j < 8; ++j) children[j] = slots[j];
    Sum s;
    bool failed = false;
#if NBL_BH_WAITFREE
    unsigned missing = 0;
    for (int j = 0; j < 8; ++j) {
      const int c = children[j];
      if (c == kNull) continue;
      if (c < n) add_body(t, c, s);
      else if (load_volatile(&t.node[c].w) >= 0.0f) missing |= 0x100u << j;  // ready: fold in after the fence
      else missing |= 1u << j;
    }
    __threadfence();
    for (int j = 0; j < 8; ++j)
      if (missing & (0x100u << j)) add_cell(t, children[j], s);
    missing &= 0xffu;
    unsigned spins = 0;
    while (missing && !failed) {
      for (int j = 0; j < 8; ++j) {
        if ((missing & (1u << j)) && load_volatile(&t.node[children[j]].w) >= 0.0f) {
          __threadfence();
          add_cell(t, children[j], s);
          missing &= ~(1u << j);
        }
      }
      if (missing) failed = spin_exhausted(spins, ctl);
    }
#else
    for (int j = 0; j < 8 && !failed; ++j) {
      const int c = children[j];
      if (c == kNull) continue;
      if (c < n) {
        add_body(t, c, s);
        continue;
      }
      unsigned spins = 0;
      while (load_volatile(&t.node[c].w) < 0.0f && !failed) failed = spin_exhausted(spins, ctl);
      __threadfence();
      add_cell(t, c, s);
    }
#endif
    if (failed) return;
    // Move empty slots to the back: the sort kernel stops at the first one, and so do the per-thread and
    // warp walks with bh_early_out (the tutorial's "move nulls to back" and "early out").
    int used = 0;
    for (int j = 0; j < 8; ++j)
      if (children[j] != kNull) slots[used++] = children[j];
    for (int j = used; j < 8; ++j) slots[j] = kNull;
    used_slots += used;
    t.count[k - n] = s.count;
    float4 com = t.node[k];  // the cell's geometric centre, kept when it holds no mass
    if (s.m > 0.0f) {
      const float inv = 1.0f / s.m;
      com.x = s.rx + s.x * inv, com.y = s.ry + s.y * inv, com.z = s.rz + s.z * inv;
    }
    // Second moments about the centre of mass: every child is summarized by now (and fenced).
    Second second;
    for (int j = 0; j < used; ++j) {
      const int c = slots[j];
      if (c < n) add_body_second(t, c, com, second);
      else add_cell_second(t, c, com, second);
    }
    t.second[k - n] = make_float4(second.xx, second.yy, second.zz, second.xy);
    t.second_xz_yz[k - n] = make_float2(second.xz, second.yz);
    t.reach[k - n] = second.reach;
    t.open_size2[k - n] = opening_size2(t.depth[k - n], t.box[k - n].w, s.m, s.count, second.xx, second.yy, second.zz,
                                        second.xy, second.xz, second.yz, second.reach, t.eps2);
    float4* node = t.node + k;
    store_volatile(&node->x, com.x);
    store_volatile(&node->y, com.y);
    store_volatile(&node->z, com.z);
    __threadfence();  // the centre of mass is visible before the mass says "ready"
    store_volatile(&node->w, s.m);
  }
  unsigned long long total = used_slots;
  for (int offset = 16; offset > 0; offset >>= 1) total += __shfl_xor_sync(0xffffffffu, total, offset);
  if (lane_id() == 0 && total) atomicAdd(&ctl->child_slots_used, total);
}
static_assert(nbl::kHasSignature<decltype(bh_summarize), decltype(kSummarizeKernel)>);
