// Each block stages the source bodies in shared memory, one tile of block_size bodies at a time, and
// every thread reads the whole tile from there. Burtscher's CUDA optimization tutorial, Part I: "Blocking using Shared Memory".
#include "allpairs_common.cuh"

#if NBL_LAYOUT == NBL_LAYOUT_FLOAT4
struct Tile {  // one float4 per body: a tile read is a single 16-byte shared load, broadcast to the warp
  float4 body[kBlockSize];
  __device__ void store(int t, float4 s) { body[t] = s; }
  __device__ float4 load(int t) const { return body[t]; }
};
#else
struct Tile {  // one array per field, the tutorial's posxs, posys, poszs and masss
  float x[kBlockSize], y[kBlockSize], z[kBlockSize], mass[kBlockSize];
  __device__ void store(int t, float4 s) { x[t] = s.x, y[t] = s.y, z[t] = s.z, mass[t] = s.w; }
  __device__ float4 load(int t) const { return make_float4(x[t], y[t], z[t], mass[t]); }
};
#endif

extern "C" __global__ void __launch_bounds__(kBlockSize) allpairs_force(const KernelArgs args) {
  __shared__ Tile tile;
  const KernelParams& p = params(args);
  const auto launch = targets_of(args);  // this launch's targets
  Targets t = load_targets(p, launch.i_first + blockIdx.x * (kBlockSize * kBodiesPerThread) + threadIdx.x, kBlockSize);
  const SourceRange r = source_range(p);
  const auto from_tile = [&](int jj) { return tile.load(jj); };

  int start = r.begin;
  for (; start + kBlockSize <= r.end; start += kBlockSize) {              // full tiles: a constant trip count
    tile.store(threadIdx.x, load_source(p.bodies, start + threadIdx.x));  // each thread copies one body
    __syncthreads();                                                      // the tile is complete
    interact_run(t, from_tile, start, kBlockSize, p.eps2);
    __syncthreads();  // everyone is done with it before it is overwritten
  }
  if (start < r.end) {  // the last, partial tile
    const int count = r.end - start;
    if (static_cast<int>(threadIdx.x) < count) tile.store(threadIdx.x, load_source(p.bodies, start + threadIdx.x));
    __syncthreads();
    interact_run(t, from_tile, start, count, p.eps2);
  }
  store_targets(p, t, launch.i_end);
}

static_assert(nbl::kHasSignature<decltype(allpairs_force), decltype(nbl::allpairs::kForceKernel<KernelArgs>)>);
