// A/B for all-pairs (sim/comparison.hpp): B's variant with its own copy of the state, refreshed from A's
// on the device before each comparison (in B's layout and precision), its force pass timed with CUDA
// events and its accelerations compared with A's over every body. A's force pass runs again beside B's,
// first or second in turn, and that is A's time: a step's own pass carries whatever the GPU did just
// before it (idle in a display-paced lab, where a fast step waits for the next frame, or the display's
// drawing), which B's pass right after it would not.
#pragma once
#include <cuda_runtime_api.h>

#include <vector>

#include "cuda/allpairs/force_pass.hpp"
#include "cuda/comparison.hpp"
#include "cuda/stage_timer.hpp"

namespace nbl {

class AllPairsComparison {
 public:
  AllPairsComparison(AllPairsBuild build, double softening, int sm_count);

  // B's forces from `a`'s state, and A's again (`a_pass` with `a_plan`, the step's launch), each timed.
  // A's pass writes the accelerations the step left, bit for bit: every body's sum runs in a fixed order.
  ComparisonSample run(AllPairsState& a, const AllPairsPass& a_pass, const AllPairsLaunch& a_plan, cudaStream_t stream);
  // The per-body difference of the last run as colour keys (ColorMode::ab_difference).
  void write_keys(float* keys, std::size_t n, cudaStream_t stream) const;
  // B's accelerations of the last run; false before the first.
  bool accelerations(Accelerations& out, cudaStream_t stream) const;
  const AllPairsVariant& variant() const { return build_.variant; }

 private:
  AllPairsBuild build_;
  AllPairsState state_;
  StageTimer timer_;
  int sm_count_ = 1, blocks_per_sm_ = 1;
  double eps2_ = 0;
  bool a_first_ = true;  // which of the two passes runs first, in turn
  ForceDifference difference_;
};

}  // namespace nbl
