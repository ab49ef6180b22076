#include "cuda/comparison.hpp"

#include <cmath>

namespace nbl {

ComparisonSample ForceDifference::measure(comparison::AccelerationView a, comparison::AccelerationView b, std::size_t n,
                                          std::vector<StageTime> a_stages, std::vector<StageTime> b_stages,
                                          cudaStream_t stream) {
  per_body_.resize(n);
  const comparison::DifferenceSums sums = pass_.run(a, b, n, per_body_.data(), stream);
  ComparisonSample sample;
  sample.a = std::move(a_stages);
  sample.b = std::move(b_stages);
  const double rms = std::sqrt(sums.reference2 / static_cast<double>(n));
  sample.difference_relative_norm = sums.reference2 > 0 ? std::sqrt(sums.difference2 / sums.reference2) : 0;
  sample.difference_max = rms > 0 ? sums.max_difference / rms : sums.max_difference;
  sample.non_finite = !std::isfinite(sums.difference2) || !std::isfinite(sums.max_difference);
  scale_ = static_cast<float>(rms > 0 ? rms : 1);
  measured_ = true;
  return sample;
}

void ForceDifference::write_keys(float* keys, std::size_t n, cudaStream_t stream) const {
  if (measured_ && per_body_.size() == n) comparison::write_difference_keys(per_body_.data(), keys, n, scale_, stream);
}

}  // namespace nbl
