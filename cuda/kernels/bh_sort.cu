// Barnes-Hut kernel 4 of 6, after the lock-based build: sort the bodies into tree order (Burtscher's
// CUDA optimization tutorial, Part II, "Kernel 4: sort bodies"). Top-down: cells are scanned from the root downward; a cell
// waits until its parent has given it a start position (a bounded wait; the field doubles as the
// flag), then hands consecutive ranges to its children using the body counts from kernel 3. Bodies
// that are close in the tree end up close in `sorted`, so a warp's 32 bodies walk nearly the same
// path in the force kernel.
#include "bh_common.cuh"

using namespace nbl::bh;

extern "C" __global__ void __launch_bounds__(kSortThreads) bh_sort(Tree t) {
  Control* ctl = t.ctl;
  if (tree_failed(ctl)) return;
  const int n = t.n;
  const int bottom = ctl->bottom;
  const int stride = blockDim.x * gridDim.x;
  for (int k = ctl->root - (blockIdx.x * blockDim.x + threadIdx.x); k >= bottom; k -= stride) {
    int start;
    unsigned spins = 0;
    while ((start = load_volatile(&t.start[k - n])) < 0)
      if (spin_exhausted(spins, ctl)) return;
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
}
static_assert(nbl::kHasSignature<decltype(bh_sort), decltype(kSortKernel)>);
