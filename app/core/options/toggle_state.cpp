#include "app/core/options/toggle_state.hpp"

#include "cuda/allpairs/variant.hpp"
#include "cuda/barneshut/variant.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/settings.hpp"

namespace nbl {

std::string toggle_inert_reason(const ToggleDef& t, const Settings& s, bool backend_on_gpu) {
  if (t.algorithm != s.algorithm)
    return "belongs to the " + std::string(to_string(t.algorithm)) + " kernels; this run uses " +
           std::string(to_string(s.algorithm));
  if (!backend_on_gpu && !cpu_backend_reads(t)) return "shapes the GPU kernels; the CPU backend does not read it";
  // Within the algorithm the switchboards know which toggles change nothing: ask them (one source).
  // Softening only decides a fallback with a notice, never inertness; an unset one is the scene's (> 0).
  const double softening = s.softening.value_or(1.0);
  if (t.algorithm == Algorithm::allpairs) {
    const AllPairsVariant v = select_allpairs_variant(s.toggles, softening);
    if (const InertToggle* i = find_inert(v.inert, t.key)) return i->reason;
  } else {
    const BarnesHutVariant v = barneshut_variant(s.toggles, softening > 0);
    if (const InertToggle* i = find_inert(v.inert, t.key)) return i->reason;
  }
  return {};
}

}  // namespace nbl
