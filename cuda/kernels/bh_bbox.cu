// Barnes-Hut kernel 1 of 6: bounding box (Burtscher's CUDA optimization tutorial, Part II, "Kernel 1: bounding box").
// A min/max reduction: coalesced grid-stride loads, warp shuffles, one shared-memory step per block;
// the last block to finish (a ticket counter) combines the blocks' results and sets up the root cube.
// It also catches NaN/inf positions before the tree build can trip over them.
// Beyond the tutorial: the last block also finds the bulk's cube from quantiles of a sample
// of the bodies (bh_tree.hpp, Control::core_*), so one body at x = 1e20 does not make every other body
// share one cell at the deepest level.
#include "bh_common.cuh"

using namespace nbl::bh;

#if !defined(NBL_BH_BUILD) || !defined(NBL_BH_BUILD_INSERTION)
#error "bh_bbox.cu needs NBL_BH_BUILD from the switchboard"
#endif

namespace {

// Sorts the three rows of kBulkSamples floats (one per axis) in shared memory, ascending, all three
// in one bitonic network: a fixed number of passes, one barrier each for all three rows, every thread
// of the block taking part (NaN never swaps, so it cannot stall anything).
__device__ void sort_samples(float (*s)[kBulkSamples]) {
  for (int size = 2; size <= kBulkSamples; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      for (int k = threadIdx.x; k < 3 * (kBulkSamples / 2); k += blockDim.x) {
        float* row = s[k / (kBulkSamples / 2)];
        const int i = k % (kBulkSamples / 2);
        const int lo = 2 * i - (i & (stride - 1)), hi = lo + stride;
        const bool ascending = (lo & size) == 0;
        const float a = row[lo], b = row[hi];
        if ((a > b) == ascending) row[lo] = b, row[hi] = a;
      }
      __syncthreads();
    }
  }
}

// The 0.1% and 99.9% quantiles of each coordinate over a strided sample of the bodies (all of them
// below kBulkSamples), into lo[3] and hi[3] of thread 0. Every thread of the block calls it.
__device__ void bulk_quantiles(const Tree& t, float (*samples)[kBulkSamples], float* lo, float* hi) {
  const int n = t.n;
  const int taken = min(n, kBulkSamples);
  const int skip = max(taken / 1000, taken >= kBulkSamples ? 1 : 0);  // sorted samples left out at each end
  for (int k = threadIdx.x; k < kBulkSamples; k += blockDim.x) {
    float4 p = make_float4(3.0e38f, 3.0e38f, 3.0e38f, 0.0f);  // padding sorts to the end
    if (k < taken) p = t.node[static_cast<long long>(k) * n / taken];
    samples[0][k] = p.x, samples[1][k] = p.y, samples[2][k] = p.z;
  }
  __syncthreads();
  sort_samples(samples);
  if (threadIdx.x == 0)
    for (int axis = 0; axis < 3; ++axis) lo[axis] = samples[axis][skip], hi[axis] = samples[axis][taken - 1 - skip];
  __syncthreads();
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kBoundsThreads) bh_bounding_box(Tree t) {
  constexpr int kWarps = kBoundsThreads / 32;
  __shared__ float s_bounds[6][kWarps];
  __shared__ bool s_last;
  __shared__ float s_samples[3][kBulkSamples];
  float b[6] = {3.0e38f, 3.0e38f, 3.0e38f, -3.0e38f, -3.0e38f, -3.0e38f};
  bool bad = false;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < t.n; i += blockDim.x * gridDim.x) {
    const float4 p = t.node[i];
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z) || !isfinite(p.w)) {
      bad = true;
      continue;
    }
    b[0] = fminf(b[0], p.x);
    b[1] = fminf(b[1], p.y);
    b[2] = fminf(b[2], p.z);
    b[3] = fmaxf(b[3], p.x);
    b[4] = fmaxf(b[4], p.y);
    b[5] = fmaxf(b[5], p.z);
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
  float q_lo[3], q_hi[3];
  bulk_quantiles(t, s_samples, q_lo, q_hi);
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
  // The bulk's cube: kBulkMargin times the widest quantile range about the quantiles' centre (the
  // sample's extreme 0.1% at each end left out), never narrower than floats resolve there.
  float core_half = 0.0f, core[3];
  for (int k = 0; k < 3; ++k) {
    core[k] = 0.5f * (q_lo[k] + q_hi[k]);
    core_half = fmaxf(core_half, 0.5f * kBulkMargin * (q_hi[k] - q_lo[k]));
  }
  core_half = fmaxf(core_half, fmaxf(1e-30f, 1e-6f * fmaxf(fabsf(core[0]), fmaxf(fabsf(core[1]), fabsf(core[2])))));
  const int split = size > kSplitRatio * 2.0f * core_half;
  ctl->split = split;
  ctl->core_x = split ? core[0] : ctl->root_x;
  ctl->core_y = split ? core[1] : ctl->root_y;
  ctl->core_z = split ? core[2] : ctl->root_z;
  ctl->core_size = split ? 2.0f * core_half : size;
#if NBL_BH_BUILD == NBL_BH_BUILD_INSERTION
  // Lock-based build: the root is the highest cell id; cells are handed out below it. Split: the root's
  // slot 0 holds the bulk's cube and slot 1 the whole cube again for the rest, both made here.
  const int root = t.n + t.max_cells - 1;
  ctl->root = root;
  ctl->bottom = split ? root - 2 : root;
  auto make_cell = [&](int cell, int level, float x, float y, float z, float edge) {
    for (int k = 0; k < 8; ++k) t.child[(cell - t.n) * 8 + k] = kNull;
    t.depth[cell - t.n] = level;
    t.start[cell - t.n] = level == 0 ? 0 : -1;
    t.box[cell - t.n] = make_float4(x, y, z, edge);
    t.node[cell] = make_float4(x, y, z, -1.0f);
  };
  make_cell(root, 0, ctl->root_x, ctl->root_y, ctl->root_z, size);
  if (split) {
    if (t.max_cells < 3) {
      atomicOr(&ctl->error, kErrorPoolExhausted);
    } else {
      make_cell(root - 1, 1, ctl->core_x, ctl->core_y, ctl->core_z, ctl->core_size);
      make_cell(root - 2, 1, ctl->root_x, ctl->root_y, ctl->root_z, size);
      t.child[(root - t.n) * 8 + 0] = root - 1;
      t.child[(root - t.n) * 8 + 1] = root - 2;
    }
  }
#endif
  __threadfence();
}
static_assert(nbl::kHasSignature<decltype(bh_bounding_box), decltype(kBoundingBoxKernel)>);
