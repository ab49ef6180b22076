// Barnes-Hut kernel 1 of 6: bounding box (reference 000, Part II, "Kernel 1: bounding box").
// A min/max reduction: coalesced grid-stride loads, warp shuffles, one shared-memory step per block;
// the last block to finish (a ticket counter) combines the blocks' results and sets up the root cube.
// It also catches NaN/inf positions before the tree build can trip over them (every later kernel checks
// the flag). Beyond the tutorial, the root cube is robust (bh_tree.hpp, shells): the last block sorts a
// fixed sample of the bodies and centres the cube on their median, sized from a quantile of their
// distances, so a far outlier or a few ejecta do not stretch it; when the tight box fits inside that
// cube anyway, the tight box is the root, as in the tutorial.
#include "bh_common.cuh"

using namespace nbl::bh;

namespace {

constexpr int kSample = 1024;  // bodies sampled for the robust cube (strided, so the same every step)
// The robust cube: kSpread times the distance (largest coordinate difference) from the median within
// which 7/8 of the sample lies. A Plummer sphere keeps about 0.1% of its bodies outside, in shells.
constexpr float kSpread = 16.0f;

// Ascending bitonic sort of kSample floats in shared memory by the whole block.
__device__ void sort_block(float* v) {
  for (int k = 2; k <= kSample; k <<= 1)
    for (int j = k >> 1; j > 0; j >>= 1) {
      for (int i = threadIdx.x; i < kSample; i += blockDim.x) {
        const int partner = i ^ j;
        if (partner > i) {
          const float a = v[i], b = v[partner];
          if ((a > b) == ((i & k) == 0)) v[i] = b, v[partner] = a;
        }
      }
      __syncthreads();
    }
}

}  // namespace

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
  __shared__ float s_sample[3][kSample];
  __shared__ float s_median[3];
  const int samples = min(t.n, kSample);
  for (int k = threadIdx.x; k < kSample; k += blockDim.x) {
    const float4 p = k < samples ? t.node[static_cast<long long>(k) * t.n / samples] : make_float4(3.0e38f, 3.0e38f, 3.0e38f, 0);
    s_sample[0][k] = p.x, s_sample[1][k] = p.y, s_sample[2][k] = p.z;
  }
  __syncthreads();
  for (int a = 0; a < 3; ++a) sort_block(s_sample[a]);
  if (threadIdx.x < 3) s_median[threadIdx.x] = s_sample[threadIdx.x][(samples - 1) / 2];
  __syncthreads();
  // Distances from the median, largest coordinate difference (the shells are cubes).
  for (int k = threadIdx.x; k < kSample; k += blockDim.x) {
    float d = 3.0e38f;
    if (k < samples) {
      const float4 p = t.node[static_cast<long long>(k) * t.n / samples];
      d = fmaxf(fmaxf(fabsf(p.x - s_median[0]), fabsf(p.y - s_median[1])), fabsf(p.z - s_median[2]));
    }
    s_sample[0][k] = d;
  }
  __syncthreads();
  sort_block(s_sample[0]);
  if (threadIdx.x != 0) return;
  const float robust_half = kSpread * s_sample[0][(7 * (samples - 1)) / 8];
  for (int k = 0; k < 6; ++k) {
    b[k] = s_bounds[k][0];
    for (int w = 1; w < kWarps; ++w) b[k] = k < 3 ? fminf(b[k], s_bounds[k][w]) : fmaxf(b[k], s_bounds[k][w]);
  }
  Control* ctl = t.ctl;
  const float extent = fmaxf(fmaxf(b[3] - b[0], b[4] - b[1]), b[5] - b[2]);
  // A cube slightly larger than the bodies' extent, never of size zero (one body, or all coincident).
  const float floor_size = fmaxf(1e-6f, 1e-6f * fmaxf(fabsf(b[0]), fabsf(b[3])));
  const float size = fmaxf(extent * 1.0001f, floor_size);
  if (0.5f * size <= robust_half || !(robust_half > 0.0f)) {
    ctl->root_x = 0.5f * (b[0] + b[3]);
    ctl->root_y = 0.5f * (b[1] + b[4]);
    ctl->root_z = 0.5f * (b[2] + b[5]);
    ctl->root_size = size;
  } else {
    ctl->root_x = s_median[0];
    ctl->root_y = s_median[1];
    ctl->root_z = s_median[2];
    ctl->root_size = fmaxf(2.0f * robust_half * 1.0001f, floor_size);
  }
  // The largest shell: the one holding the tight box's farthest corner.
  ctl->max_shell = max(shell_of(make_float4(b[0], b[1], b[2], 0), ctl), shell_of(make_float4(b[3], b[4], b[5], 0), ctl));
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
  t.edge[root - t.n] = cell_edge(ctl, 0, 0);
  t.node[root] = make_float4(ctl->root_x, ctl->root_y, ctl->root_z, -1.0f);
#endif
  __threadfence();
}
static_assert(nbl::kHasSignature<decltype(bh_bounding_box), decltype(kBoundingBoxKernel)>);
