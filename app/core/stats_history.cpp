#include "app/core/stats_history.hpp"

#include <algorithm>

#include "sim/statistics.hpp"

namespace nbl {

void Series::push(float value) {
  values_[next_] = value;
  next_ = (next_ + 1) % values_.size();
  count_ = std::min(count_ + 1, values_.size());
}

void Series::clear() { next_ = count_ = 0; }

float Series::latest() const {
  if (!count_) return 0;
  return values_[(next_ + values_.size() - 1) % values_.size()];
}

float Series::max() const {
  if (!count_) return 0;
  return *std::max_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(count_));
}

float Series::median() const {
  if (!count_) return 0;
  return static_cast<float>(nbl::median({values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(count_)}));
}

Spread Series::spread() const {
  return nbl::spread({values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(count_)});
}

void LabStats::record_frame(const FrameTimes& t) {
  last_frame = t;
  frame_ms.push(static_cast<float>(t.frame_ms));
  simulate_ms.push(static_cast<float>(t.simulate_ms));
  vertices_ms.push(static_cast<float>(t.vertices_ms));
  render_ms.push(static_cast<float>(t.render_ms));
  ui_ms.push(static_cast<float>(t.ui_ms));
}

void LabStats::record_step(const StepStats& s) {
  last_step = s;
  has_step = true;
  step_ms.push(static_cast<float>(s.total_ms));
  if (s.total_ms > 0) interactions_per_s.push(static_cast<float>(s.interactions / (s.total_ms * 1e-3)));
  // The force stage alone: for all-pairs every interaction is in it; for Barnes-Hut the tree's stages
  // are left out, so this is the walk's own rate.
  if (const double force_ms = s.stage_ms("force"); force_ms > 0)
    force_interactions_per_s.push(static_cast<float>(s.interactions / (force_ms * 1e-3)));
  for (const auto& stage : s.stages) {
    auto it = std::find_if(stages.begin(), stages.end(), [&](const auto& p) { return p.first == stage.name; });
    if (it == stages.end()) {
      stages.emplace_back(stage.name, Series{});
      it = stages.end() - 1;
    }
    it->second.push(static_cast<float>(stage.ms));
  }
}

void LabStats::clear_steps() {
  step_ms.clear();
  interactions_per_s.clear();
  force_interactions_per_s.clear();
  stages.clear();
  has_step = false;
  last_step = {};
}

double LabStats::fps() const {
  const double ms = frame_ms.median();
  return ms > 0 ? 1000.0 / ms : 0;
}

void RateWindow::record(Clock::time_point when, int count) {
  events_.emplace_back(when, count);
  while (events_.size() > 2 && std::chrono::duration<double>(when - events_.front().first).count() > window_s_)
    events_.pop_front();
}

double RateWindow::per_second(Clock::time_point now) const {
  if (events_.size() < 2) return 0;
  // The events after the first, over the time from the first to now: a rate that stopped decays.
  int count = 0;
  for (std::size_t i = 1; i < events_.size(); ++i) count += events_[i].second;
  const double seconds = std::chrono::duration<double>(now - events_.front().first).count();
  return seconds > 0 ? count / seconds : 0;
}

}  // namespace nbl
