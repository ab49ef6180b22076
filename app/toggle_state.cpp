#include "app/toggle_state.hpp"

#include "sim/settings.hpp"

namespace nbl {

std::string toggle_inert_reason(const ToggleDef& t, const Settings& s, bool backend_on_gpu) {
  if (t.algorithm != s.algorithm)
    return "belongs to the " + std::string(to_string(t.algorithm)) + " kernels; this run uses " +
           std::string(to_string(s.algorithm));
  if (!backend_on_gpu) return "shapes the GPU kernels; the CPU backend runs one fixed code path";
  if (t.algorithm == Algorithm::allpairs && s.toggles.is({"parallelism", "single_thread"}) &&
      (t.key == "tiling" || t.key == "bodies_per_thread" || t.key == "block_size"))
    return "the single-thread port runs one thread (<<<1, 1>>>): no block to share tiles with";
  if (t.algorithm == Algorithm::barneshut && s.toggles.is({"bh_build", "morton"}) &&
      (t.key == "bh_throttle" || t.key == "bh_combined_fence"))
    return "only the lock-based insertion build has it; the Morton build takes no locks";
  return {};
}

}  // namespace nbl
