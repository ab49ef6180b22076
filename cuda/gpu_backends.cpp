// The GPU backends' factories: the all-pairs ladder (allpairs_backend.hpp) and the Barnes-Hut pipeline.
#include "cuda/gpu_backends.hpp"

#include "cuda/allpairs/backend.hpp"
#include "cuda/barneshut/backend.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "sim/error.hpp"

namespace nbl {

std::unique_ptr<Backend> make_gpu_allpairs(const Settings& settings) {
  return std::make_unique<AllPairsBackend>(settings, shared_kernel_engine(settings.kernels_dir));
}
std::unique_ptr<Backend> make_gpu_barneshut(const Settings& settings) { return make_barneshut_backend(settings); }
std::size_t gpu_bytes_per_body(const Settings& settings, std::size_t n) {
  return settings.algorithm == Algorithm::barneshut ? barneshut_bytes_per_body(n, settings.toggles)
                                                    : kAllPairsBytesPerBody;
}

}  // namespace nbl
