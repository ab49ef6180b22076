// What the panel plots: the last few hundred frames' timings and step statistics, as ring buffers
// laid out for ImGui::PlotLines (values + offset of the oldest).
#pragma once
#include <chrono>
#include <deque>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/statistics.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

class Series {
 public:
  explicit Series(std::size_t capacity = 240) : values_(capacity, 0.0f) {}
  void push(float value);
  void clear();
  const float* data() const { return values_.data(); }
  int count() const { return static_cast<int>(count_); }
  int capacity() const { return static_cast<int>(values_.size()); }
  int offset() const { return count_ < values_.size() ? 0 : static_cast<int>(next_); }  // oldest
  float latest() const;
  float max() const;
  float median() const;   // of what is stored; 0 when empty
  Spread spread() const;  // median and 10th-90th percentiles of what is stored

 private:
  std::vector<float> values_;
  std::size_t next_ = 0, count_ = 0;
};

// Where one frame's time went (ms of wall time; render is GPU time when timer queries exist).
struct FrameTimes {
  double simulate_ms = 0;  // the steps of this frame (0 while paused)
  double vertices_ms = 0;  // filling the vertex buffer (interop map/write or host copy + upload)
  double render_ms = 0;    // drawing the scene
  double ui_ms = 0;        // building and drawing the panel
  double frame_ms = 0;     // from one frame's start to the next
};

// Events per second over the last few seconds (the simulation's steps/s beside the display's FPS).
class RateWindow {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RateWindow(double window_s = 3.0) : window_s_(window_s) {}
  void record(Clock::time_point when, int count);
  // Per second over the window ending now; 0 before two records. A rate that stopped decays: the time
  // since the last record counts.
  double per_second(Clock::time_point now) const;
  void clear() { events_.clear(); }

 private:
  double window_s_;
  std::deque<std::pair<Clock::time_point, int>> events_;
};

class LabStats {
 public:
  void record_frame(const FrameTimes& times);
  void record_step(const StepStats& stats);
  void clear_steps();  // a new backend or new bodies: old step figures no longer apply

  Series frame_ms, simulate_ms, vertices_ms, render_ms, ui_ms;
  Series step_ms, interactions_per_s;                  // interactions per second of the whole step
  Series force_interactions_per_s;                     // ... of the force stage alone (the rate the tutorial quotes)
  std::vector<std::pair<std::string, Series>> stages;  // per kernel/stage, in the order first seen
  StepStats last_step;
  bool has_step = false;
  FrameTimes last_frame;

  double fps() const;
  // Interactions per second and GFLOP/s of the last steps (medians), 0 without steps.
  double median_interactions_per_s() const { return interactions_per_s.median(); }
};

}  // namespace nbl
