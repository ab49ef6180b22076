// Each warp loads 32 source bodies, one per lane, and hands them lane to lane with __shfl_sync: a
// tile with neither shared memory nor barriers. Beyond Burtscher's CUDA optimization tutorial (warp shuffles came with Kepler).
#include "allpairs_common.cuh"

constexpr unsigned kFullWarp = 0xffffffffu;

__device__ inline float4 from_lane(const float4& mine, int lane) {
  return make_float4(__shfl_sync(kFullWarp, mine.x, lane), __shfl_sync(kFullWarp, mine.y, lane),
                     __shfl_sync(kFullWarp, mine.z, lane), __shfl_sync(kFullWarp, mine.w, lane));
}

extern "C" __global__ void __launch_bounds__(kBlockSize) allpairs_force(const KernelArgs args) {
  const KernelParams& p = params(args);
  const auto launch = targets_of(args);  // this launch's targets
  Targets t = load_targets(p, launch.i_first + blockIdx.x * (kBlockSize * kBodiesPerThread) + threadIdx.x, kBlockSize);
  const SourceRange r = source_range(p);
  const int lane = threadIdx.x % 32;

  // Every lane runs the same loops (the bounds depend on the warp only), as __shfl_sync requires.
  int start = r.begin;
  for (; start + 32 <= r.end; start += 32) {
    const float4 mine = load_source(p.bodies, start + lane);
    interact_run(
        t, [&](int jj) { return from_lane(mine, jj); }, start, 32, p.eps2);
  }
  if (start < r.end) {  // the last, partial warp tile: lanes past the end repeat the last body, unused
    const float4 mine = load_source(p.bodies, min(start + lane, r.end - 1));
    interact_run(
        t, [&](int jj) { return from_lane(mine, jj); }, start, r.end - start, p.eps2);
  }
  store_targets(p, t, launch.i_end);
}

static_assert(nbl::kHasSignature<decltype(allpairs_force), decltype(nbl::allpairs::kForceKernel<KernelArgs>)>);
