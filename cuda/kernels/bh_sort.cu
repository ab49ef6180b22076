// Barnes-Hut kernel 4 of 6, after the lock-based build: sort the bodies into tree order (Burtscher's
// CUDA optimization tutorial, Part II, "Kernel 4: sort bodies"). Top-down: cells are scanned from the root downward; a cell
// waits until its parent has given it a start position (a bounded wait; the field doubles as the
// flag), then hands consecutive ranges to its children using the body counts from kernel 3. Bodies
// that are close in the tree end up close in `sorted`, so a warp's 32 bodies walk nearly the same
// path in the force kernel.
// NBL_BH_SORT_THROTTLE (the tutorial's "throttle warps with optional barrier"): every thread of a block
// tries its cell once a round and a block-wide barrier ends the round, so threads whose cells are not
// ready yet retry in step with the ones that are, instead of spinning ahead of them.
#include "bh_common.cuh"

#ifndef NBL_BH_SORT_THROTTLE
#error "bh_sort.cu needs NBL_BH_SORT_THROTTLE from the switchboard"
#endif

using namespace nbl::bh;

// Cell k's start is known: its children get consecutive ranges from it, bodies their place in `sorted`.
__device__ __forceinline__ void hand_out(const Tree& t, int k, int start) {
  const int n = t.n;
  const int* slots = t.child + (k - n) * 8;
  for (int j = 0; j < 8; ++j) {
    const int c = slots[j];
    if (c == kNull) break;  // kernel 3 moved empty slots to the back
    if (c >= n) {
      store_volatile(&t.start[c - n], start);
      start += t.count[c - n];
    } else {
      t.sorted[start++] = c;
    }
  }
}

extern "C" __global__ void __launch_bounds__(kSortThreads) bh_sort(Tree t) {
  Control* ctl = t.ctl;
  const int n = t.n;
  const int stride = blockDim.x * gridDim.x;
  int k = ctl->root - (blockIdx.x * blockDim.x + threadIdx.x);
#if NBL_BH_SORT_THROTTLE
  // The whole block leaves or none of it: the barriers below count every thread.
  if (__syncthreads_or(tree_failed(ctl))) return;
  const int bottom = ctl->bottom;
  bool active = k >= bottom;
  unsigned spins = 0;
  while (__syncthreads_or(active)) {  // a barrier per round that also says whether anyone has a cell left
    if (!active) continue;
    const int start = load_volatile(&t.start[k - n]);
    if (start < 0) {  // the parent has not handed it out yet: again next round
      if (spin_exhausted(spins, ctl)) active = false;
      continue;
    }
    hand_out(t, k, start);
    spins = 0;
    k -= stride;
    active = k >= bottom;
  }
#else
  if (tree_failed(ctl)) return;
  const int bottom = ctl->bottom;
  for (; k >= bottom; k -= stride) {
    int start;
    unsigned spins = 0;
    while ((start = load_volatile(&t.start[k - n])) < 0)
      if (spin_exhausted(spins, ctl)) return;
    hand_out(t, k, start);
  }
#endif
}
static_assert(nbl::kHasSignature<decltype(bh_sort), decltype(kSortKernel)>);
