// One GPU thread computes every body, exactly the CPU loops moved to the GPU: the first port.
// Burtscher's CUDA optimization tutorial, Part I: "C to CUDA Conversion" and "1-Thread Performance" (launched <<<1, 1>>>).
#include "allpairs_common.cuh"

extern "C" __global__ void __launch_bounds__(1) allpairs_force(const KernelArgs args) {
  const KernelParams& p = params(args);
  const auto launch = targets_of(args);  // this launch's targets
  for (int i = launch.i_first; i < launch.i_end; ++i) {
    Targets t = load_targets(p, i, 0);  // one body: the switchboard sets bodies_per_thread to 1 here
    interact_run(
        t, [&](int j) { return load_source(p.bodies, j); }, 0, p.n, p.eps2);
    store_targets(p, t, launch.i_end);
  }
}

static_assert(nbl::kHasSignature<decltype(allpairs_force), decltype(nbl::allpairs::kForceKernel<KernelArgs>)>);
