#include "app/core/body_count_tuner.hpp"

#include <algorithm>
#include <cmath>

#include "app/core/text_format.hpp"
#include "sim/statistics.hpp"

namespace nbl {

namespace {

constexpr int kWarmupFrames = 3;  // first frames compile kernels, fault in memory, build fonts
constexpr int kSampleFrames = 8;
constexpr int kMaxAdjustments = 3;
constexpr std::size_t kMinBodies = 1024;

}  // namespace

double cost_exponent(Algorithm algorithm) { return algorithm == Algorithm::allpairs ? 2.0 : 1.1; }

std::size_t probe_body_count(Algorithm algorithm) {
  return algorithm == Algorithm::allpairs ? std::size_t(1) << 16 : std::size_t(1) << 18;
}

std::size_t scale_body_count(std::size_t probe_n, double probe_ms, double budget_ms, double exponent, std::size_t min_n,
                             std::size_t max_n) {
  double n = static_cast<double>(max_n);
  if (probe_ms > 0) n = static_cast<double>(probe_n) * std::pow(budget_ms / probe_ms, 1.0 / exponent);
  n = std::clamp(n, static_cast<double>(min_n), static_cast<double>(max_n));
  const std::size_t rounded = static_cast<std::size_t>(n) / kMinBodies * kMinBodies;
  return std::clamp(rounded, min_n, max_n);
}

BodyCountTuner::BodyCountTuner(std::size_t start_n, double cost_exponent, bool may_grow, bool enabled)
    : enabled_(enabled && start_n > kMinBodies),
      start_n_(start_n),
      n_(start_n),
      exponent_(cost_exponent),
      may_grow_(may_grow) {}

std::optional<std::size_t> BodyCountTuner::observe(double per_body_ms, double fixed_ms) {
  if (!enabled_) return std::nullopt;
  if (++frames_ <= kWarmupFrames) return std::nullopt;
  per_body_.push_back(per_body_ms);
  fixed_.push_back(fixed_ms);
  if (static_cast<int>(per_body_.size()) < kSampleFrames) return std::nullopt;
  const double n_ms = median(per_body_), fixed = median(fixed_);
  per_body_.clear();
  fixed_.clear();
  frames_ = 0;

  const double budget_ms = 0.85 * 1000.0 / kTargetFps - fixed;  // leave room for the display and the OS
  double factor = 1.0;
  if (budget_ms < 0.2 * 1000.0 / kTargetFps) factor = 1.0;  // drawing alone misses the target: N is not the problem
  else if (n_ms > budget_ms) factor = std::pow(budget_ms / n_ms, 1.0 / exponent_) * 0.9;
  else if (may_grow_ && n_ms < budget_ms / 2.5 && n_ < 4 * start_n_) factor = 2.0;
  if (factor == 1.0 || ++adjustments_ > kMaxAdjustments) {
    enabled_ = false;
    return std::nullopt;
  }
  std::size_t next = static_cast<std::size_t>(static_cast<double>(n_) * factor);
  next = std::max(kMinBodies, next / kMinBodies * kMinBodies);
  if (next == n_) {
    enabled_ = false;
    return std::nullopt;
  }
  n_ = next;
  note_ = "N set to " + with_commas(static_cast<std::int64_t>(n_)) + " so this machine keeps 30 FPS (started at " +
          with_commas(static_cast<std::int64_t>(start_n_)) + "; -n picks N yourself).";
  return n_;
}

}  // namespace nbl
