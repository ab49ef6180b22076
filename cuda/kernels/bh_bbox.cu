// Barnes-Hut kernel 1 of 6: bounding box (reference 000, Part II, "Kernel 1: bounding box").
// A min/max reduction: coalesced grid-stride loads, warp shuffles, one shared-memory step per block;
// the last block to finish (a ticket counter) combines the blocks' results and sets up the root cube.
// It also catches NaN/inf positions before the tree build can trip over them.
#include "bh_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_BUILD) || !defined(NBL_BH_BUILD_INSERTION)
#error "bh_bbox.cu needs NBL_BH_BUILD from the switchboard"
#endif

extern "C" __global__ void __launch_bounds__(kBoundsThreads) bh_bounding_box(Tree t) {
  constexpr int kWarps = kBoundsThreads / 32;
  __shared__ float s_bounds[6][kWarps];
  __shared__ bool s_last;
  float b[6] = {3.0e38f, 3.0e38f, 3.0e38f, -3.0e38f, -3.0e38f, -3.0e38f};
  bool bad = false;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    const float4 p = t.node[i];
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || !isfinite(p.w)) {
      bad = true;
      continue;
    }
    b[0] = fminf(b[0], p.x); b[1] = fminf(b[1], p.y); b[2] = fminf(b[2], p.z);
    b[3] = fmaxf(b[3], p.x); b[4] = fmaxf(b[4], p.y); b[5] = fmaxf(b[5], p.z);
  }
  for (int k = 0; k < 3; ++k) b[k] = warp_min(b[k]);
  for (int k = 3; k < 6; ++k) b[k] = warp_max(b[k]);
  const int warp = threadIdx.x >> 5;
  if (lane_id() == 0)
    for (int k = 0; k < 6; ++k) s_bounds[k][warp] = b[k];
  if (__syncthreads_or(bad) && threadIdx.x == 0) atomicOr(&t.ctl->error, kErrorNonFinite);
  if (warp == 0) {
    for (int k = 0; k < 6; ++k) {
      float v = lane_id() < kWarps ? s_bounds[k][lane_id()] : b[k];
      b[k] = k < 3 ? warp_min(v) : warp_max(v);
    }
    if (lane_id() == 0) {
      for (int k = 0; k < 6; ++k) t.block_bounds[blockIdx.x * 6 + k] = b[k];
      __threadfence();  // our partial result is visible before we take a ticket
      s_last = atomicAdd(&t.ctl->blocks_done, 1u) == gridDim.x - 1;
    }
  }
  __syncthreads();
  if (!s_last) return;

  // The last block: combine every block's partial result.
  for (int k = 0; k < 6; ++k) b[k] = k < 3 ? 3.0e38f : -3.0e38f;
  for (int blk = threadIdx.x; blk < gridDim.x; blk += blockDim.x)
    for (int k = 0; k < 6; ++k) {
      const float v = load_volatile(&t.block_bounds[blk * 6 + k]);
      b[k] = k < 3 ? fminf(b[k], v) : fmaxf(b[k], v);
    }
  for (int k = 0; k < 3; ++k) b[k] = warp_min(b[k]);
  for (int k = 3; k < 6; ++k) b[k] = warp_max(b[k]);
  if (lane_id() == 0)
    for (int k = 0; k < 6; ++k) s_bounds[k][warp] = b[k];
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int k = 0; k < 6; ++k) {
    b[k] = s_bounds[k][0];
    for (int w = 1; w < kWarps; ++w) b[k] = k < 3 ? fminf(b[k], s_bounds[k][w]) : fmaxf(b[k], s_bounds[k][w]);
  }
  Control* ctl = t.ctl;
  const float extent = fmaxf(fmaxf(b[3] - b[0], b[4] - b[1]), b[5] - b[2]);
  // A cube slightly larger than the bodies' extent, never of size zero (one body, or all coincident).
  const float size = fmaxf(extent * 1.0001f, fmaxf(1e-6f, 1e-6f * fmaxf(fabsf(b[0]), fabsf(b[3]))));
  ctl->root_x = 0.5f * (b[0] + b[3]);
  ctl->root_y = 0.5f * (b[1] + b[4]);
  ctl->root_z = 0.5f * (b[2] + b[5]);
  ctl->root_size = size;
  ctl->touched_min = 0x7fffffff;
  ctl->blocks_done = 0;
#if NBL_BH_BUILD == NBL_BH_BUILD_INSERTION
  // Lock-based build: the root is the highest cell id; cells are handed out below it.
  const int root = t.n + t.max_cells - 1;
  ctl->root = root;
  ctl->bottom = root;
  for (int k = 0; k < 8; ++k) t.child[(root - t.n) * 8 + k] = kNull;
  t.depth[root - t.n] = 0;
  t.start[root - t.n] = 0;
  t.node[root] = make_float4(ctl->root_x, ctl->root_y, ctl->root_z, -1.0f);
#endif
  __threadfence();
}
static_assert(nbl::kHasSignature<decltype(bh_bounding_box), decltype(kBoundingBoxKernel)>);
