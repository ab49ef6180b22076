// The all-pairs bench modes (the ladder of Burtscher's CUDA optimization tutorial: docs/allpairs.md):
//   ladder   every rung of the tutorial's ladder and beyond, in order: ms per force pass, speedup
//            over the rung it builds on and cumulative, interactions/s, GFLOP/s (20 flops per
//            interaction), % of the GPU's FP32 ceiling, force error against the double reference;
//   sweep    unroll factor x block size x bodies per thread around the given toggles;
//   scaling  n from small to large for a few variants;
//   clock    the SM clock under an FP32 load next to the one the driver reports.
// Timings: CUDA events around the force pass only (force kernel plus, when the j range is split,
// the slice sum), warm-up excluded, median of the repeats. Each function returns a Table.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/core/commands.hpp"
#include "app/core/report.hpp"
#include "cuda/clock_probe.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct AllPairsBenchOptions {
  std::size_t n = 1 << 16;
  int repeats = 5;  // timed force passes per configuration (median)
  int warmups = 1;
  Scene scene = Scene::plummer;
  std::uint64_t seed = 1;
  std::optional<double> softening;       // unset: the scene's default for n
  std::size_t validation_sample = 1024;  // bodies checked against the double direct sum (0: skip)
  // The single-thread rung computes this many interactions per timed pass at most: it runs the first
  // budget / n bodies against all n and the time is scaled by n / that (said in a note).
  double single_thread_budget = 2e7;
  // A configuration whose first (warm-up) pass takes longer than this gets fewer repeats (at least 1),
  // so a ladder at 1M bodies takes minutes, not an hour. The "runs" column says how many it got.
  double seconds_per_configuration = 20;
  bool measure_clock = true;  // ladder: measure the SM clock first and add "% of peak at that clock"
  bool progress = true;       // one line per configuration on stderr
};

Table run_ladder(const AllPairsBenchOptions& options);

// The single-thread rung (kLadder[0]) timed as the ladder times it: its first single_thread_budget / n
// bodies against all n, the time scaled by n / that. For the tour's live figure of the N-threads step.
// Needs a GPU (throws Error without one); takes about a second.
struct SampledRung {
  double ms = 0;                 // one force pass over all n bodies, scaled
  std::size_t timed_bodies = 0;  // the bodies whose forces were timed
  std::size_t n = 0;
};
SampledRung time_single_thread_rung(const AllPairsBenchOptions& options);

struct SweepSpace {
  std::vector<int> unroll{4, 8, 16, 32, 64};
  std::vector<int> block_size{128, 256, 512};
  std::vector<int> bodies_per_thread{1, 2, 4, 6, 8};
};
// Around `base` (normally the default toggles: the best variant).
Table run_sweep(const AllPairsBenchOptions& options, const SweepSpace& space, const ToggleValues& base = {});

// Variants to compare across n: the best (defaults), the tutorial's last rung, the best in fp64.
std::vector<std::pair<std::string, ToggleValues>> default_scaling_variants();
std::vector<std::size_t> default_scaling_sizes();  // 1024 .. 1048576, x4
Table run_scaling(const AllPairsBenchOptions& options, const std::vector<std::size_t>& sizes,
                  const std::vector<std::pair<std::string, ToggleValues>>& variants = default_scaling_variants());

// The device, its reported and measured clocks, and the ceilings they imply (FP32 flop/s, and
// interactions/s at 13 issued instructions per interaction).
Table clock_table(const ClockMeasurement& clock);

}  // namespace nbl
