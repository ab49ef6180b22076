// Barnes-Hut kernel 2 of 6, lock-based: build the octree by top-down insertion (Burtscher's CUDA optimization
// tutorial, Part II, "Kernel 2: build octree"). Threads descend without locks, lock only the child slot they
// must split, insert into empty slots with one atomicCAS (the lock-free fast path), build the new
// subtree privately and publish it with one store that also releases the lock. Cell centres are
// recomputed while descending rather than stored.
//
// Correct under independent thread scheduling: a thread that finds a slot locked retries later
// (bounded), every cross-SM read of the tree is volatile, and the subtree is fenced before it is
// published. Toggles: NBL_BH_THROTTLE (a block-wide barrier after every insertion attempt, so losers
// of a lock do not hammer it) and NBL_BH_COMBINED_FENCE (one fence per published subtree instead of
// one per new cell).
#include "bh_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_THROTTLE) || !defined(NBL_BH_COMBINED_FENCE)
#error "bh_build_insert.cu needs NBL_BH_THROTTLE and NBL_BH_COMBINED_FENCE from the switchboard"
#endif

// The slot body `id` at p takes in a cell at `level`. Above kMaxDepth, its octant. From kMaxDepth on,
// space is no longer split: bodies that reach it are closer than the deepest cells resolve (coincident,
// mostly), and they part by the octal digits of their ids instead, lowest first. Two bodies always
// part within 11 more levels, k such bodies form a balanced subtree of about log8(k) levels, and the
// later kernels see an ordinary tree: summarize, sort and groups stay O(k) for them (a chain of k
// bodies in one slot cost each of them a pointer chase k long).
__device__ __forceinline__ int child_slot(float4 p, int id, int level, float cx, float cy, float cz) {
  return level < kMaxDepth ? octant(p, cx, cy, cz) : (id >> (3 * (level - kMaxDepth))) & 7;
}

// Moves a centre to the centre of child `oct` of a cell whose half edge is `half`.
__device__ __forceinline__ void enter_octant(int oct, float half, float& cx, float& cy, float& cz) {
  const float q = 0.5f * half;
  cx += (oct & 1) ? q : -q;
  cy += (oct & 2) ? q : -q;
  cz += (oct & 4) ? q : -q;
}

// Allocates a cell at `level` centred at (cx, cy, cz) with edge `edge` and empty slots; -1 when the
// pool is exhausted.
__device__ __forceinline__ int new_cell(const Tree& t, int level, float cx, float cy, float cz, float edge) {
  const int cell = atomicSub(&t.ctl->bottom, 1) - 1;
  if (cell < t.n) return -1;
  int* slots = t.child + (cell - t.n) * 8;
  for (int k = 0; k < 8; ++k) slots[k] = kNull;
  t.depth[cell - t.n] = level;
  t.start[cell - t.n] = -1;
  t.box[cell - t.n] = make_float4(cx, cy, cz, edge);
  t.node[cell] = make_float4(cx, cy, cz, -1.0f);  // mass < 0: not summarized yet
#if !NBL_BH_COMBINED_FENCE
  __threadfence();
#endif
  return cell;
}

extern "C" __global__ void __launch_bounds__(kInsertThreads) bh_build_insert(Tree t) {
  Control* ctl = t.ctl;
  if (bodies_not_finite(ctl)) return;
  const int n = t.n;
  const int root = ctl->root;
  const float root_half = 0.5f * ctl->root_size;
  const int stride = blockDim.x * gridDim.x;
  // Split root (bh_tree.hpp, Control::split): a body starts in the bulk's cube (the root's slot 0) when
  // it lies inside it, else in the whole cube again (slot 1), one level down; both cells exist already.
  const bool split = ctl->split;
  const float core_x = ctl->core_x, core_y = ctl->core_y, core_z = ctl->core_z, core_half = 0.5f * ctl->core_size;

  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = i < n;
  bool fresh = true;  // start the current body at the root
  float4 p;
  int cell = root, level = 0, deepest = 0, overflow = 0;
  float cx = 0, cy = 0, cz = 0, half = root_half;
  unsigned spins = 0;

#if NBL_BH_THROTTLE
  while (__syncthreads_or(active)) {
    if (!active) continue;
#else
  while (active) {
#endif
    if (fresh) {
      p = __ldg(&t.node[i]);
      cell = root;
      level = 0;
      cx = ctl->root_x, cy = ctl->root_y, cz = ctl->root_z;
      half = root_half;
      if (split) {
        const bool bulk =
            fabsf(p.x - core_x) < core_half && fabsf(p.y - core_y) < core_half && fabsf(p.z - core_z) < core_half;
        cell = root - (bulk ? 1 : 2);
        level = 1;
        if (bulk) cx = core_x, cy = core_y, cz = core_z, half = core_half;
        else atomicAdd(&ctl->outer_bodies, 1);
      }
      fresh = false;
      spins = 0;
    }
    // Descend through cells without locks; only the slot that ends the descent matters. Below
    // kMaxDepth the cells keep the deepest cube (child_slot).
    int oct = child_slot(p, i, level, cx, cy, cz);
    int* slot = t.child + (cell - n) * 8 + oct;
    int ch = load_volatile(slot);
    while (ch >= n) {
      cell = ch;
      if (level < kMaxDepth) {
        enter_octant(oct, half, cx, cy, cz);
        half *= 0.5f;
      }
      ++level;
      oct = child_slot(p, i, level, cx, cy, cz);
      slot = t.child + (cell - n) * 8 + oct;
      ch = load_volatile(slot);
    }
    bool done = false;
    if (ch == kNull) {
      done = atomicCAS(slot, kNull, i) == kNull;  // fast path: an empty slot
      if (done) {
        t.body_depth[i] = min(level, kMaxDepth);
        overflow += level >= kMaxDepth;  // a cell that deep exists only for bodies it cannot part
      }
    } else if (ch != kLocked && atomicCAS(slot, ch, kLocked) == ch) {
      // We hold the slot that body `ch` occupies: split it until the two bodies part.
      const float4 other = __ldg(&t.node[ch]);
      int top = -1, parent = -1, parent_oct = 0, sub_level = level;
      float sx = cx, sy = cy, sz = cz, sub_half = half;
      int sub_oct = oct;
      bool exhausted = false;
      while (true) {
        if (sub_level < kMaxDepth) {
          enter_octant(sub_oct, sub_half, sx, sy, sz);
          sub_half *= 0.5f;
        }
        ++sub_level;
        const int c = new_cell(t, sub_level, sx, sy, sz, 2.0f * sub_half);
        if (c < 0) {
          exhausted = true;
          break;
        }
        if (top < 0) top = c;
        else t.child[(parent - n) * 8 + parent_oct] = c;  // private until `top` is published
        const int oct_other = child_slot(other, ch, sub_level, sx, sy, sz);
        const int oct_new = child_slot(p, i, sub_level, sx, sy, sz);
        if (oct_other != oct_new) {
          t.child[(c - n) * 8 + oct_other] = ch;
          t.child[(c - n) * 8 + oct_new] = i;
          t.body_depth[ch] = min(sub_level, kMaxDepth);
          t.body_depth[i] = min(sub_level, kMaxDepth);
          overflow +=
              (sub_level >= kMaxDepth) + (sub_level >= kMaxDepth && level < kMaxDepth);  // i, and ch if new there
          break;
        }
        parent = c;
        parent_oct = oct_other;
        sub_oct = oct_other;
      }
      if (exhausted) {
        atomicOr(&ctl->error, kErrorPoolExhausted);
        __threadfence();
        store_volatile(slot, ch);  // give the slot back as it was; the host grows the pool and rebuilds
        active = false;
        continue;
      }
      __threadfence();            // the whole subtree is visible before it is published
      store_volatile(slot, top);  // publish, which also releases the lock
      done = true;
      deepest = max(deepest, min(sub_level, kMaxDepth));
    } else if (spin_exhausted(spins, ctl)) {
      active = false;  // a slot stayed locked far too long; the host reports it and rebuilds
      continue;
    }
    if (done) {
      deepest = max(deepest, min(level, kMaxDepth));
      i += stride;
      active = i < n;
      fresh = true;
    }
    if (tree_failed(ctl)) active = false;
  }

  // One atomic per warp for the statistics.
  deepest = warp_max(deepest);
  overflow = warp_sum(overflow);
  if (lane_id() == 0) {
    atomicMax(&ctl->max_depth, deepest);
    if (overflow) atomicAdd(&ctl->overflow_bodies, overflow);
  }
}
static_assert(nbl::kHasSignature<decltype(bh_build_insert), decltype(kInsertKernel)>);
