// Interim: the GPU backends arrive with their issues (all-pairs ladder, Barnes-Hut pipeline).
#include "cuda/gpu_backends.hpp"

#include "sim/error.hpp"

namespace nbl {

std::unique_ptr<Backend> make_gpu_allpairs(const Settings&) {
  throw Error("the GPU all-pairs backend is not built yet; use --backend cpu");
}
std::unique_ptr<Backend> make_gpu_barneshut(const Settings&) {
  throw Error("the GPU Barnes-Hut backend is not built yet; use --backend cpu");
}
std::size_t gpu_bytes_per_body(Algorithm) { return 64; }

}  // namespace nbl
