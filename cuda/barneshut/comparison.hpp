// A/B for Barnes-Hut (sim/comparison.hpp): B's variant and opening angle with its own buffers, its tree
// built from A's bodies (copied on the device) before each comparison; each of B's kernels timed with
// CUDA events, and its accelerations compared with A's over every body.
#pragma once
#include <cuda_runtime_api.h>

#include <vector>

#include "cuda/barneshut/buffers.hpp"
#include "cuda/barneshut/pipeline.hpp"
#include "cuda/comparison.hpp"
#include "cuda/stage_timer.hpp"

namespace nbl {

class BarnesHutComparison {
 public:
  BarnesHutComparison(BarnesHutBuild build, const BarnesHutPhysics& physics, int sm_count);

  // B's forces from `a`'s bodies; `a_stages` are A's force computation stages of the step that left
  // its accelerations.
  ComparisonSample run(BarnesHutBuffers& a, const std::vector<StageTime>& a_stages, cudaStream_t stream);
  void write_keys(float* keys, std::size_t n, cudaStream_t stream) const;  // ColorMode::ab_difference
  bool accelerations(Accelerations& out, cudaStream_t stream) const;       // B's of the last run
  const BarnesHutVariant& variant() const { return build_.variant; }

 private:
  BarnesHutBuild build_;
  BarnesHutPhysics physics_;
  int sm_count_ = 1;
  BarnesHutBuffers buffers_;
  StageTimer timer_;
  ForceDifference difference_;
};

}  // namespace nbl
