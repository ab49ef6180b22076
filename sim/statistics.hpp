// Order statistics of timings and errors, written once: the bench tables, the panel's live figures,
// the body-count tuner and the GPU backends' timing helpers all summarise samples with these.
// "Median and spread" everywhere means the same thing: the median, and the 10th and 90th percentiles
// around it (for few samples, the smallest and largest).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace nbl {

// The q-quantile (0 <= q <= 1) by linear interpolation between order statistics; NaN when empty.
inline double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double at = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (at - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

// The median (the mean of the two middle values for an even count); NaN when empty.
inline double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

// A sample summarised for people: median with the 10th and 90th percentiles.
struct Spread {
  double median = std::numeric_limits<double>::quiet_NaN();
  double low = std::numeric_limits<double>::quiet_NaN();   // 10th percentile
  double high = std::numeric_limits<double>::quiet_NaN();  // 90th percentile
  std::size_t count = 0;
  bool empty() const { return count == 0; }
  // Half the 10-90 range relative to the median: "+-3%" style noise.
  double relative_half_width() const {
    return count && median != 0 ? 0.5 * (high - low) / std::fabs(median) : std::numeric_limits<double>::quiet_NaN();
  }
};

inline Spread spread(const std::vector<double>& values) {
  Spread s;
  s.count = values.size();
  if (values.empty()) return s;
  s.median = median(values);
  s.low = quantile(values, 0.1);
  s.high = quantile(values, 0.9);
  return s;
}

}  // namespace nbl
