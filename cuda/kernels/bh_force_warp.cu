// Barnes-Hut kernel 5 of 6, warp-cooperative traversal (Burtscher's CUDA optimization tutorial, Part II, "Kernel 5: force
// calculation"): the 32 threads of a warp walk ONE path, the union of the paths their bodies need.
// A cell is approximated only when it is far enough for every lane (__all_sync); otherwise the whole
// warp opens it. Every lane reads the same node at the same time (one load serves the warp), the warp
// never diverges, and lane 0 keeps the iteration stack for the warp in shared memory. Sorting makes
// the union small. Written for independent thread scheduling: the stack is shared through
// __syncwarp(), never through lockstep assumptions.
#include "bh_force_common.cuh"

// NBL_BH_VOTE: the lanes agree with one vote instruction (__all_sync; the tutorial's "thread voting"), or
// without it through shared memory, each lane writing its verdict and reading all 32: the same union walk
// ("sync'ed execution") either way. NBL_BH_EARLY_OUT: a cell's slots are read up to its first empty one
// (bh_force_thread.cu says when that is valid).
#if !defined(NBL_BH_VOTE) || !defined(NBL_BH_EARLY_OUT)
#error "bh_force_warp.cu needs NBL_BH_VOTE and NBL_BH_EARLY_OUT from the switchboard"
#endif

using namespace nbl::bh;

extern "C" __global__ void __launch_bounds__(NBL_BH_BLOCK_SIZE) bh_force(Tree t) {
  constexpr int kWarps = NBL_BH_BLOCK_SIZE / 32;
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ int s_cell[kWarps][kMaxDepth + 1];  // the cell being scanned at each depth
  __shared__ int s_slot[kWarps][kMaxDepth + 1];  // the next child slot to visit at each depth
#if !NBL_BH_VOTE
  __shared__ int s_far[kWarps][32];  // each lane's verdict on the current cell
#endif
  const Control* ctl = t.ctl;
  if (tree_failed(ctl) || walk_stopped(t)) return;  // stopped: the user left this variant
  const int n = t.n;
  const int root = ctl->root;
  const OpeningTest opening(t);
  const int warp = threadIdx.x >> 5;
  const unsigned lane = lane_id();
  unsigned long long interactions = 0;
  // This launch's slice of the warps of bodies (Tree::slice): all of them unless the pass is sliced.
  const int warps = (n + 31) / 32;
  const int first = 32 * slice_first(warps, t.slice, t.slices),
            last = min(n, 32 * slice_last(warps, t.slice, t.slices));
  for (int base = first + (blockIdx.x * kWarps + warp) * 32; base < last; base += gridDim.x * kWarps * 32) {
    const int k = base + static_cast<int>(lane);
    const bool valid = k < n;
    const int i = body_for(t, valid ? k : base);
    const float4 p = t.node[i];
    float ax = 0, ay = 0, az = 0;
    int touched = 0, warp_interactions = 0;
    if (lane == 0) {
      s_cell[warp][0] = root;
      s_slot[warp][0] = 0;
    }
    __syncwarp();
    int depth = 0;  // the same in every lane: every decision below is warp-uniform
    while (depth >= 0) {
      const int slot = s_slot[warp][depth];
      if (slot >= 8) {
        --depth;
        continue;
      }
      const int id = tree_child(t, s_cell[warp][depth], slot);
      __syncwarp();
      if (lane == 0) s_slot[warp][depth] = slot + 1;
      __syncwarp();
      if (id == kNull) {
#if NBL_BH_EARLY_OUT
        --depth;  // the slots behind an empty one are empty too: this cell is done
#endif
        continue;
      }
      ++touched;
      const float4 q = tree_node(t, id);
      bool approximate = id < n;
      float open_size2 = 0.0f;
      nbl::Acceptance as = nbl::Acceptance::monopole;
      if (!approximate) {
        const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        const float dist2 = dx * dx + dy * dy + dz * dz;
        open_size2 = tree_open_size2(t, id);
        as = opening.judge(open_size2, dist2, q.w);
        if (as == nbl::Acceptance::open && opening.light(t, id, q.w, dist2, p.x, p.y, p.z, 0.0f, 0.0f, 0.0f))
          as = nbl::Acceptance::monopole;
        const bool far = !valid || as != nbl::Acceptance::open;
#if NBL_BH_VOTE
        approximate = __all_sync(kAll, far);
#else
        s_far[warp][lane] = far ? 1 : 0;
        __syncwarp();
        int every = 1;
        for (int l = 0; l < 32; ++l) every &= s_far[warp][l];
        __syncwarp();  // every lane has read the verdicts before the next cell's overwrite them
        approximate = every != 0;
#endif
      }
      if (!approximate && bodies_to_visit(open_size2)) {  // a deepest cell: every lane visits its bodies
        const int2 range = body_range(t, id);
        for (int k = range.x; k < range.x + range.y; ++k) {
          const int b = __ldg(&t.sorted[k]);
          if (valid && (NBL_BH_SOFTENED || b != i)) interact(tree_node(t, b), p.x, p.y, p.z, t.eps2, ax, ay, az);
        }
        warp_interactions += range.y;
        touched += range.y;
      } else if (approximate) {
        if (id < n) {
          if (valid && (NBL_BH_SOFTENED || id != i)) interact(q, p.x, p.y, p.z, t.eps2, ax, ay, az);
        } else if (valid) {
          interact_cell(t, id, q, as, p.x, p.y, p.z, t.eps2, ax, ay, az);
        }
        ++warp_interactions;
      } else {
        ++depth;
        if (lane == 0) {
          s_cell[warp][depth] = id;
          s_slot[warp][depth] = 0;
        }
        __syncwarp();
      }
    }
    if (valid) t.acc[i] = make_float4(ax, ay, az, 0.0f);
    interactions += valid ? warp_interactions : 0;
    add_touched_stats(t.ctl, touched, valid);
  }
  for (int offset = 16; offset > 0; offset >>= 1) interactions += __shfl_xor_sync(kAll, interactions, offset);
  if (lane == 0) atomicAdd(&t.ctl->interactions, interactions);
}
static_assert(nbl::kHasSignature<decltype(bh_force), decltype(kForceKernel)>);
