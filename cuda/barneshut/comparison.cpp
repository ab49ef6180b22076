#include "cuda/barneshut/comparison.hpp"

#include <cmath>

#include "cuda/check.hpp"

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
  NBL_CUDA_CHECK(cudaMemcpyAsync(buffers_.positions(), a.positions(), n * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  NBL_CUDA_CHECK(cudaMemcpyAsync(buffers_.velocities(), a.velocities(), n * sizeof(float4), cudaMemcpyDeviceToDevice,
                                 stream));
  StepStats b;
  timer_.begin(stream);
  // B judges by A's accelerations at these positions, if B opens cells relative to the pull.
  build_.pipeline->forces(buffers_, physics_, stream, &timer_, b, false, a.accelerations());
  per_body_.resize(n);
  const comparison::DifferenceSums sums =
      difference_.run(view(a.accelerations()), view(buffers_.accelerations()), n, per_body_.data(), stream);
  ComparisonSample sample;
  sample.a = a_stages;
  sample.b = b.stages;
  const double rms = std::sqrt(sums.reference2 / static_cast<double>(n));
  sample.difference_relative_norm = sums.reference2 > 0 ? std::sqrt(sums.difference2 / sums.reference2) : 0;
  sample.difference_max = rms > 0 ? sums.max_difference / rms : sums.max_difference;
  sample.non_finite = b.non_finite || !std::isfinite(sums.difference2) || !std::isfinite(sums.max_difference);
  scale_ = static_cast<float>(rms > 0 ? rms : 1);
  have_per_body_ = true;
  return sample;
}

bool BarnesHutComparison::accelerations(Accelerations& out, cudaStream_t stream) const {
  if (!have_per_body_) return false;
  const std::size_t n = buffers_.size();
  std::vector<float4> acc(n);
  NBL_CUDA_CHECK(cudaMemcpyAsync(acc.data(), buffers_.accelerations(), n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.x[i] = acc[i].x, out.y[i] = acc[i].y, out.z[i] = acc[i].z;
  return true;
}

void BarnesHutComparison::write_keys(float* keys, std::size_t n, cudaStream_t stream) const {
  if (have_per_body_ && per_body_.size() == n) comparison::write_difference_keys(per_body_.data(), keys, n, scale_, stream);
}

}  // namespace nbl
