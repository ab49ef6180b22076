#include "sim/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace nbl {

namespace {

double stage_ms(const std::vector<StageTime>& stages, const std::string& name) {
  double ms = 0;
  bool found = false;
  for (const auto& s : stages)
    if (s.name == name) ms += s.ms, found = true;
  return found ? ms : std::nan("");
}

double total_ms(const std::vector<StageTime>& stages) {
  double ms = 0;
  for (const auto& s : stages) ms += s.ms;
  return ms;
}

}  // namespace

std::string Speedup::describe() const {
  if (empty()) return "no samples yet";
  char text[96];
  const double half = 0.5 * (high - low);
  if (median >= 1.0) std::snprintf(text, sizeof text, "%.2fx faster (+-%.2f)", median, half);
  else std::snprintf(text, sizeof text, "%.2fx slower (+-%.2f)", 1.0 / median, half / (median * median));
  return text;
}

Speedup paired_speedup(const std::vector<double>& a_ms, const std::vector<double>& b_ms) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(a_ms.size(), b_ms.size()); ++i)
    if (a_ms[i] > 0 && b_ms[i] > 0 && std::isfinite(a_ms[i]) && std::isfinite(b_ms[i]))
      ratios.push_back(a_ms[i] / b_ms[i]);
  Speedup s;
  s.pairs = ratios.size();
  if (ratios.empty()) return s;
  std::sort(ratios.begin(), ratios.end());
  s.median = median(ratios);
  const double k = static_cast<double>(ratios.size());
  if (ratios.size() < 6) {
    s.low = ratios.front();
    s.high = ratios.back();
    return s;
  }
  // The ranks of the order statistics that bracket the median with 95% confidence (binomial, normal
  // approximation): P(X_(lo) <= median <= X_(hi)) ~ 0.95.
  const double half = 0.98 * std::sqrt(k);
  const auto rank = [&](double r) { return static_cast<std::size_t>(std::clamp(r, 0.0, k - 1)); };
  s.low = ratios[rank(std::floor(k / 2 - half))];
  s.high = ratios[rank(std::ceil(k / 2 + half) - 1)];
  return s;
}

void ComparisonHistory::add(const ComparisonSample& sample) {
  samples_.push_back(sample);
  while (samples_.size() > window_) samples_.pop_front();
}

std::vector<ComparisonHistory::StageRow> ComparisonHistory::rows() const {
  std::vector<std::string> names;
  for (const auto& s : samples_)
    for (const auto* side : {&s.a, &s.b})
      for (const auto& stage : *side)
        if (std::find(names.begin(), names.end(), stage.name) == names.end()) names.push_back(stage.name);
  names.push_back("total");
  std::vector<StageRow> out;
  for (const std::string& name : names) {
    std::vector<double> a, b;
    for (const auto& s : samples_) {
      a.push_back(name == "total" ? total_ms(s.a) : stage_ms(s.a, name));
      b.push_back(name == "total" ? total_ms(s.b) : stage_ms(s.b, name));
    }
    StageRow row;
    row.stage = name;
    std::vector<double> a_present, b_present;
    for (double v : a)
      if (std::isfinite(v)) a_present.push_back(v);
    for (double v : b)
      if (std::isfinite(v)) b_present.push_back(v);
    row.a_ms = spread(a_present);
    row.b_ms = spread(b_present);
    row.speedup = paired_speedup(a, b);
    out.push_back(std::move(row));
  }
  return out;
}

Spread ComparisonHistory::difference_relative_norm() const {
  std::vector<double> v;
  for (const auto& s : samples_) v.push_back(s.difference_relative_norm);
  return spread(v);
}

Spread ComparisonHistory::difference_max() const {
  std::vector<double> v;
  for (const auto& s : samples_) v.push_back(s.difference_max);
  return spread(v);
}

bool ComparisonHistory::any_non_finite() const {
  return std::any_of(samples_.begin(), samples_.end(), [](const ComparisonSample& s) { return s.non_finite; });
}

}  // namespace nbl
