// Barnes-Hut kernel 5 of 6, per-thread traversal: each thread walks the tree for its own body with
// its own stack, opening cells by its own distance (Burtscher's CUDA optimization tutorial, Part II, "Kernel 5: force
// calculation" before its optimizations). Neighbouring threads take different paths, so warps
// diverge and their loads do not coalesce: the baseline the warp-cooperative walk is measured against.
#include "bh_force_common.cuh"

// NBL_BH_EARLY_OUT: a cell's child slots are read up to its first empty one, which summarize put behind
// every child (the insertion build; the switchboard passes 0 for the Morton build, whose children keep
// their octants' slots).
#ifndef NBL_BH_EARLY_OUT
#error "bh_force_thread.cu needs NBL_BH_EARLY_OUT from the switchboard"
#endif

using namespace nbl::bh;

extern "C" __global__ void __launch_bounds__(NBL_BH_BLOCK_SIZE) bh_force(Tree t) {
  const Control* ctl = t.ctl;
  if (tree_failed(ctl) || walk_stopped(t)) return;  // stopped: the user left this variant
  const int n = t.n;
  const int root = ctl->root;
  const OpeningTest opening(t);
  unsigned long long interactions = 0;
  // Depth-first with every opened cell's children pushed: at most 7 per level plus the root's 8.
  int stack[7 * (kMaxDepth + 1) + 8];
  const int rounded = (n + 31) & ~31;  // whole warps iterate together (the statistics shuffle)
  // This launch's slice of the warps of bodies (Tree::slice): all of them unless the pass is sliced.
  const int first = 32 * slice_first(rounded / 32, t.slice, t.slices),
            last = 32 * slice_last(rounded / 32, t.slice, t.slices);
  for (int k = first + blockIdx.x * blockDim.x + threadIdx.x; k < last; k += blockDim.x * gridDim.x) {
    const bool valid = k < n;
    const int i = valid ? body_for(t, k) : 0;
    const float4 p = t.node[i];
    float ax = 0, ay = 0, az = 0;
    int touched = 0;
    int sp = 0;
    if (valid) stack[sp++] = root;
    while (sp > 0) {
      const int id = stack[--sp];
      ++touched;
      const float4 q = tree_node(t, id);
      if (id < n) {
        if (NBL_BH_SOFTENED || id != i) interact(q, p.x, p.y, p.z, t.eps2, ax, ay, az);
        ++interactions;
        continue;
      }
      const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      const float open_size2 = tree_open_size2(t, id);
      const float dist2 = dx * dx + dy * dy + dz * dz;
      nbl::Acceptance as = opening.judge(open_size2, dist2, q.w);
      if (as == nbl::Acceptance::open && opening.light(t, id, q.w, dist2, p.x, p.y, p.z, 0.0f, 0.0f, 0.0f))
        as = nbl::Acceptance::monopole;
      if (as != nbl::Acceptance::open) {
        interact_cell(t, id, q, as, p.x, p.y, p.z, t.eps2, ax, ay, az);
        ++interactions;
        continue;
      }
      if (bodies_to_visit(open_size2)) {  // a deepest cell: no child cells, its bodies one by one
        const int2 range = body_range(t, id);
        for (int k = range.x; k < range.x + range.y; ++k) {
          const int b = __ldg(&t.sorted[k]);
          if (NBL_BH_SOFTENED || b != i) interact(tree_node(t, b), p.x, p.y, p.z, t.eps2, ax, ay, az);
        }
        interactions += range.y;
        touched += range.y;
        continue;
      }
      for (int j = 0; j < 8; ++j) {
        const int c = tree_child(t, id, j);
#if NBL_BH_EARLY_OUT
        if (c == kNull) break;  // the slots behind an empty one are empty too
        stack[sp++] = c;
#else
        if (c != kNull) stack[sp++] = c;
#endif
      }
    }
    if (valid) t.acc[i] = make_float4(ax, ay, az, 0.0f);
    add_touched_stats(t.ctl, touched, valid);
  }
  for (int offset = 16; offset > 0; offset >>= 1) interactions += __shfl_xor_sync(0xffffffffu, interactions, offset);
  if (lane_id() == 0) atomicAdd(&t.ctl->interactions, interactions);
}
static_assert(nbl::kHasSignature<decltype(bh_force), decltype(kForceKernel)>);
