// How accurate each force path must be, and the one rule that decides whether a new kernel build may
// replace the running one: a hot-reloaded kernel file, or a variant the user switched to. Both GPU
// backends apply this rule and nothing else; the GPU tests hold every variant to the same bounds.
// No GPU here: the backends hand in the forces their candidate computed on the validation problem.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/bodies.hpp"
#include "sim/diagnostics.hpp"
#include "sim/toggles.hpp"

namespace nbl {

// Per-body relative force error (sim/diagnostics.hpp, ForceError) a correct build stays within.
struct ForceErrorBound {
  double p99 = 0;
  double max = 0;
};

// The bound for a force path: all-pairs in fp32 or fp64 (rounding only), Barnes-Hut by its opening
// angle (a monopole's truncation error grows about as theta squared) or, with relative opening
// (`tolerance` > 0, bh_tolerance's units), by its tolerance.
ForceErrorBound force_error_bound(Algorithm algorithm, bool fp64, double opening_angle, int tolerance = 0);

// The rule, in words, as the panel and the refusal messages state it.
inline constexpr std::string_view kBuildAcceptanceRule =
    "a new build replaces the running one when its forces on the check problem (a 4,099-body Plummer "
    "sphere, 1,031 bodies compared with the double-precision direct sum) are finite and their per-body "
    "relative error at the 99th percentile and at the maximum are each at most twice the last good "
    "build's or within the bound for its kind, whichever is larger";

struct BuildVerdict {
  bool accepted = false;
  std::string report;  // the figures and, when refused, why
};

// Applies the rule. `last_good` is the running build's error on the same problem (none at start).
BuildVerdict judge_build(const ForceError& candidate, const std::optional<ForceError>& last_good,
                         const ForceErrorBound& bound);

// The fixed problem every build is checked on, independent of the running state and its size (so a
// check never costs a force pass at the running N): a seeded Plummer sphere of kBodies bodies, of which
// the first kChecked get forces and are compared (neither is a multiple of any block or tile size, so
// partial tiles and blocks are exercised). The reference accelerations are computed once per softening
// length and kept.
struct ValidationProblem {
  static constexpr std::size_t kBodies = 4099;
  static constexpr std::size_t kChecked = 1031;
  static constexpr std::size_t kCheckedSlow = 61;
  Bodies bodies;
  double softening = 0;
  Accelerations reference;  // of bodies [0, kChecked)
};
std::shared_ptr<const ValidationProblem> validation_problem(double softening);

// The error of accelerations computed for the first bodies of the problem (kChecked of them, or
// fewer: the single-thread all-pairs port checks only kCheckedSlow, as one thread is that slow).
ForceError validation_error(const ValidationProblem& problem, const Accelerations& computed);

}  // namespace nbl
