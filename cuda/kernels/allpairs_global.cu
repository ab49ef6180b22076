// One thread per body (or per bodies_per_thread bodies); every source body is read from global memory.
// Burtscher's CUDA optimization tutorial, Part I: "Using N Threads" through "Using 2 Loops", before "Blocking using Shared Memory".
#include "allpairs_common.cuh"

extern "C" __global__ void __launch_bounds__(kBlockSize) allpairs_force(const KernelArgs args) {
  const KernelParams& p = params(args);
  const auto launch = targets_of(args);  // this launch's targets
  Targets t = load_targets(p, launch.i_first + blockIdx.x * (kBlockSize * kBodiesPerThread) + threadIdx.x, kBlockSize);
  const SourceRange r = source_range(p);
  interact_run(
      t, [&](int jj) { return load_source(p.bodies, r.begin + jj); }, r.begin, r.end - r.begin, p.eps2);
  store_targets(p, t, launch.i_end);
}

static_assert(nbl::kHasSignature<decltype(allpairs_force), decltype(nbl::allpairs::kForceKernel<KernelArgs>)>);
