// Barnes-Hut kernel 2 of 6, lock-based: build the octree by top-down insertion (reference 000,
// Part II, "Kernel 2: build octree"). Threads descend without locks, lock only the child slot they
// must split, insert into empty slots with one atomicCAS (the lock-free fast path), build the new
// subtree privately and publish it with one store that also releases the lock. Cell centres are
// recomputed while descending rather than stored.
//
// Correct under independent thread scheduling: a thread that finds a slot locked retries later
// (bounded), every cross-SM read of the tree is volatile, and the subtree is fenced before it is
// published. Beyond the tutorial: the first kShellLevels levels pick the body's shell, not an octant
// (bh_tree.hpp), so a far outlier does not stretch the cube everybody else descends; and at kMaxDepth a
// slot that holds a body takes the next one by a lock-free push onto its chain (one atomicCAS), so k
// coincident bodies cost O(k) and never queue on a lock. Such a cell is never opened: it acts as one
// point mass. Toggles: NBL_BH_THROTTLE (a block-wide barrier after every insertion attempt, so losers
// of a lock do not hammer it) and NBL_BH_COMBINED_FENCE (one fence per published subtree instead of
// one per new cell).
#include "bh_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_THROTTLE) || !defined(NBL_BH_COMBINED_FENCE)
#error "bh_build_insert.cu needs NBL_BH_THROTTLE and NBL_BH_COMBINED_FENCE from the switchboard"
#endif

// The octant of a cell centred at (cx, cy, cz) that holds p; the same numbering the Morton build uses.
__device__ __forceinline__ int octant(float4 p, float cx, float cy, float cz) {
  return (p.x > cx ? 1 : 0) | (p.y > cy ? 2 : 0) | (p.z > cz ? 4 : 0);
}

// Moves a centre to the centre of child `oct` of a cell whose half edge is `half`.
__device__ __forceinline__ void enter_octant(int oct, float half, float& cx, float& cy, float& cz) {
  const float q = 0.5f * half;
  cx += (oct & 1) ? q : -q;
  cy += (oct & 2) ? q : -q;
  cz += (oct & 4) ? q : -q;
}

// The child slot of a cell at `level` centred at (cx, cy, cz) that takes p, a body of shell `shell`:
// a digit of the shell above the shells' cubes, the octant below.
__device__ __forceinline__ int slot_for(float4 p, int shell, int level, float cx, float cy, float cz) {
  return level < kShellLevels ? shell_digit(shell, level + 1) : octant(p, cx, cy, cz);
}

// From a cell at `level` into its child `slot`: the centre and half edge of the child. Cells above the
// shells keep the root centre; the shell's cube (level kShellLevels) is centred there too.
__device__ __forceinline__ void enter_child(const Control* ctl, int slot, int level, int shell, float& cx, float& cy,
                                           float& cz, float& half) {
  if (level + 1 < kShellLevels) return;
  if (level + 1 == kShellLevels) {
    half = 0.5f * ldexpf(ctl->root_size, shell);
    return;
  }
  enter_octant(slot, half, cx, cy, cz);
  half *= 0.5f;
}

// Allocates a cell at `level` centred at (cx, cy, cz) with empty slots; -1 when the pool is exhausted.
__device__ __forceinline__ int new_cell(const Tree& t, int level, float cx, float cy, float cz, float edge) {
  const int cell = atomicSub(&t.ctl->bottom, 1) - 1;
  if (cell < t.n) return -1;
  int* slots = t.child + (cell - t.n) * 8;
  for (int k = 0; k < 8; ++k) slots[k] = kNull;
  t.depth[cell - t.n] = level;
  t.start[cell - t.n] = -1;
  t.edge[cell - t.n] = edge;
  t.node[cell] = make_float4(cx, cy, cz, -1.0f);  // mass < 0: not summarized yet
#if !NBL_BH_COMBINED_FENCE
  __threadfence();
#endif
  return cell;
}

extern "C" __global__ void __launch_bounds__(kInsertThreads) bh_build_insert(Tree t) {
  Control* ctl = t.ctl;
  if (non_finite(ctl)) return;
  const int n = t.n;
  const int root = ctl->root;
  const float top_half = 0.5f * cell_edge(ctl, 0, 0);
  const int stride = blockDim.x * gridDim.x;

  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool active = i < n;
  bool fresh = true;  // start the current body at the root
  float4 p;
  int cell = root, level = 0, deepest = 0, overflow = 0, shell = 0;
  float cx = 0, cy = 0, cz = 0, half = top_half;
  unsigned spins = 0;

#if NBL_BH_THROTTLE
  while (__syncthreads_or(active)) {
    if (!active) continue;
#else
  while (active) {
#endif
    if (fresh) {
      p = __ldg(&t.node[i]);
      shell = shell_of(p, ctl);
      cell = root;
      level = 0;
      cx = ctl->root_x, cy = ctl->root_y, cz = ctl->root_z;
      half = top_half;
      fresh = false;
      spins = 0;
    }
    // Descend through cells without locks; only the slot that ends the descent matters.
    int oct = slot_for(p, shell, level, cx, cy, cz);
    int* slot = t.child + (cell - n) * 8 + oct;
    int ch = load_volatile(slot);
    while (ch >= n) {
      cell = ch;
      enter_child(ctl, oct, level, shell, cx, cy, cz, half);
      ++level;
      oct = slot_for(p, shell, level, cx, cy, cz);
      slot = t.child + (cell - n) * 8 + oct;
      ch = load_volatile(slot);
    }
    bool done = false;
    if (ch == kNull) {
      done = atomicCAS(slot, kNull, i) == kNull;  // fast path: an empty slot
      if (done) t.body_depth[i] = level;
    } else if (level == kMaxDepth && ch >= 0) {
      // The deepest level: push onto the slot's chain of bodies (published by the CAS, after `next`).
      t.next[i] = ch;
      __threadfence();
      done = atomicCAS(slot, ch, i) == ch;
      if (done) {
        t.body_depth[i] = level;
        overflow += load_volatile(&t.next[ch]) < 0 ? 2 : 1;  // a lone body there now shares the cell
      }
    } else if (ch != kLocked && atomicCAS(slot, ch, kLocked) == ch) {
      // We hold the slot that body `ch` occupies: split it until the two bodies part.
      const float4 other = __ldg(&t.node[ch]);
      const int other_shell = shell_of(other, ctl);
      int top = -1, parent = -1, parent_oct = 0, sub_level = level;
      float sx = cx, sy = cy, sz = cz, sub_half = half;
      int sub_oct = oct;
      bool chained = false, exhausted = false;
      while (true) {
        if (sub_level == kMaxDepth) {
          // No deeper cells: keep both bodies in this slot as a chain (the cell is never opened).
          t.next[i] = ch;
          chained = true;
          break;
        }
        enter_child(ctl, sub_oct, sub_level, shell, sx, sy, sz, sub_half);
        ++sub_level;
        const int c = new_cell(t, sub_level, sx, sy, sz,
                               sub_level <= kShellLevels ? cell_edge(ctl, sub_level, shell) : 2.0f * sub_half);
        if (c < 0) {
          exhausted = true;
          break;
        }
        if (top < 0) top = c;
        else t.child[(parent - n) * 8 + parent_oct] = c;  // private until `top` is published
        const int oct_other = slot_for(other, other_shell, sub_level, sx, sy, sz);
        const int oct_new = slot_for(p, shell, sub_level, sx, sy, sz);
        if (oct_other != oct_new) {
          t.child[(c - n) * 8 + oct_other] = ch;
          t.child[(c - n) * 8 + oct_new] = i;
          t.body_depth[ch] = sub_level;
          t.body_depth[i] = sub_level;
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
      if (chained) {
        // The chain's head goes where `ch` was (in the deepest new cell, or in `slot` itself).
        t.body_depth[i] = sub_level;
        t.body_depth[ch] = sub_level;
        overflow += 2;
        if (top < 0) {
          __threadfence();
          store_volatile(slot, i);
          deepest = max(deepest, sub_level);
          done = true;
        } else {
          t.child[(parent - n) * 8 + parent_oct] = i;
        }
      }
      if (!done) {
        __threadfence();  // the whole subtree is visible before it is published
        store_volatile(slot, top);  // publish, which also releases the lock
        done = true;
      }
      deepest = max(deepest, sub_level);
    } else if (spin_exhausted(spins, ctl)) {
      active = false;  // a slot stayed locked far too long; the host reports it and rebuilds
      continue;
    }
    if (done) {
      deepest = max(deepest, level);
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
