#include "cuda/barneshut/comparison.hpp"

#include "cuda/check.hpp"
#include "cuda/device_bodies.hpp"

namespace nbl {

namespace {

comparison::AccelerationView view(const float4* acc) {
  return {&acc->x, &acc->y, &acc->z, 4, false};  // float4: x, y, z, unused
}

}  // namespace

BarnesHutComparison::BarnesHutComparison(BarnesHutBuild build, const BarnesHutPhysics& physics, int sm_count)
    : build_(std::move(build)), physics_(physics), sm_count_(sm_count) {}

ComparisonSample BarnesHutComparison::run(BarnesHutBuffers& a, const std::vector<StageTime>& a_stages,
                                          cudaStream_t stream) {
  const std::size_t n = a.size();
  if (buffers_.size() != n) buffers_.allocate(n, build_.variant, BarnesHutBuffers::initial_cells(n), sm_count_);
  NBL_CUDA_CHECK(
      cudaMemcpyAsync(buffers_.positions(), a.positions(), n * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  NBL_CUDA_CHECK(
      cudaMemcpyAsync(buffers_.velocities(), a.velocities(), n * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  StepStats b;
  timer_.begin(stream);
  // B judges by A's accelerations at these positions, if B opens cells relative to the pull.
  build_.pipeline->forces(buffers_, physics_, stream, &timer_, b, false, a.accelerations());
  ComparisonSample sample =
      difference_.measure(view(a.accelerations()), view(buffers_.accelerations()), n, a_stages, b.stages, stream);
  sample.non_finite = sample.non_finite || b.non_finite;
  return sample;
}

bool BarnesHutComparison::accelerations(Accelerations& out, cudaStream_t stream) const {
  if (!difference_.measured()) return false;
  download_float4_accelerations(buffers_.accelerations(), buffers_.size(), out, stream);
  return true;
}

void BarnesHutComparison::write_keys(float* keys, std::size_t n, cudaStream_t stream) const {
  difference_.write_keys(keys, n, stream);
}

}  // namespace nbl
