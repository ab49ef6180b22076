// A/B for all-pairs (sim/comparison.hpp): B's variant with its own copy of the state, refreshed from A's
// on the device before each comparison (in B's layout and precision), its force pass timed with CUDA
// events and its accelerations compared with A's over every body.
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

  // B's forces from `a`'s state; `a_force` is A's force stage of the step that left its accelerations.
  ComparisonSample run(const AllPairsState& a, const std::vector<StageTime>& a_force, cudaStream_t stream);
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
  ForceDifference difference_;
};

}  // namespace nbl
