#include "cuda/allpairs/comparison.hpp"

#include <cmath>

namespace nbl {

namespace {

comparison::AccelerationView view(const AllPairsState& s) {
  return {s.acc[0].data(), s.acc[1].data(), s.acc[2].data(), 1, s.real_bytes == sizeof(double)};
}

}  // namespace

AllPairsComparison::AllPairsComparison(AllPairsBuild build, double softening, int sm_count)
    : build_(std::move(build)), sm_count_(sm_count), eps2_(softening * softening) {
  blocks_per_sm_ = AllPairsPass(build_.variant, build_.kernels->module(0)).force_blocks_per_sm();
}

ComparisonSample AllPairsComparison::run(const AllPairsState& a, const std::vector<StageTime>& a_force,
                                         cudaStream_t stream) {
  const std::size_t n = a.size();
  const AllPairsVariant& v = build_.variant;
  state_.bodies.copy_from(a.bodies, v.layout, stream);
  state_.real_bytes = v.real_bytes();
  for (auto& acc : state_.acc) acc.resize(n * state_.real_bytes);
  state_.status.resize(1);
  state_.eps2 = eps2_;
  const AllPairsPass pass(v, build_.kernels->module(0));
  const AllPairsLaunch plan = plan_allpairs_launch(v, n, n, sm_count_, blocks_per_sm_);
  timer_.begin(stream);
  timer_.stage(Stage::force, [&] { pass.force(state_, n, plan, stream); });
  StepStats b;
  timer_.finish(b);
  per_body_.resize(n);
  const comparison::DifferenceSums sums = difference_.run(view(a), view(state_), n, per_body_.data(), stream);
  ComparisonSample sample;
  sample.a = a_force;
  sample.b = b.stages;
  const double rms = std::sqrt(sums.reference2 / static_cast<double>(n));
  sample.difference_relative_norm = sums.reference2 > 0 ? std::sqrt(sums.difference2 / sums.reference2) : 0;
  sample.difference_max = rms > 0 ? sums.max_difference / rms : sums.max_difference;
  sample.non_finite = !std::isfinite(sums.difference2) || !std::isfinite(sums.max_difference);
  scale_ = static_cast<float>(rms > 0 ? rms : 1);
  have_per_body_ = true;
  return sample;
}

bool AllPairsComparison::accelerations(Accelerations& out, cudaStream_t stream) const {
  if (!have_per_body_) return false;
  state_.download_accelerations(out, state_.size(), stream);
  return true;
}

void AllPairsComparison::write_keys(float* keys, std::size_t n, cudaStream_t stream) const {
  if (have_per_body_ && per_body_.size() == n) comparison::write_difference_keys(per_body_.data(), keys, n, scale_, stream);
}

}  // namespace nbl
