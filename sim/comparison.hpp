// A/B: two configurations of one algorithm compute forces from the same state; A runs the simulation,
// B is only timed and compared (A/B runs two variants on the same state and shows the
// speed-up with its noise and the force difference). The backends produce one ComparisonSample per
// frame; ComparisonHistory turns a window of them into what the panel and `bench --compare` print:
// per stage medians with their spread, the speed-up with a confidence interval, and the forces' agreement.
#pragma once
#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "sim/statistics.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

// One frame's comparison on one state.
struct ComparisonSample {
  std::vector<StageTime> a, b;  // A's and B's force computation by stage (tree build ... force), ms
  // B's accelerations against A's over every body: ||aB - aA|| / ||aA|| (all components), and the
  // largest per-body |aB - aA| relative to the RMS of |aA| (the metric that survives cancellation).
  double difference_relative_norm = 0;
  double difference_max = 0;
  bool non_finite = false;  // NaN or inf in B's forces
};

// The median of paired ratios a_i / b_i and a distribution-free 95% confidence interval for it (order
// statistics of the ratios at ranks k/2 -+ 0.98 sqrt(k)). With fewer than 6 pairs the interval is the
// whole range of the ratios.
struct Speedup {
  double median = 0, low = 0, high = 0;
  std::size_t pairs = 0;
  bool empty() const { return pairs == 0; }
  // "1.19x faster (+-0.02)" from B's point of view (a value below 1 reads as "slower").
  std::string describe() const;
};
Speedup paired_speedup(const std::vector<double>& a_ms, const std::vector<double>& b_ms);

class ComparisonHistory {
 public:
  explicit ComparisonHistory(std::size_t window = 120) : window_(window) {}
  void add(const ComparisonSample& sample);
  void clear() { samples_.clear(); }
  std::size_t size() const { return samples_.size(); }

  struct StageRow {
    std::string stage;  // a stage name, or "total"
    Spread a_ms, b_ms;
    Speedup speedup;  // a / b: above 1 when B is faster
  };
  // Every stage either side has, in A's order, then the total.
  std::vector<StageRow> rows() const;
  Spread difference_relative_norm() const;
  Spread difference_max() const;
  bool any_non_finite() const;

 private:
  std::size_t window_;
  std::deque<ComparisonSample> samples_;
};

}  // namespace nbl
