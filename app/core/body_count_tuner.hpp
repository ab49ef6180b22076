// The start-up N when the user did not choose one: as many bodies as the machine runs at
// >= 30 FPS. Simulation's default is a guess per machine class (GPU or CPU, algorithm); this
// measures the first frames and, if the guess was off, asks for a restart with an N that fits, at
// most a few times and only in the first second or so, while the scene has barely moved.
//
// The start-up N on a GPU comes from a short timed probe of the GPU that is present (app/core/simulation.cpp:
// a few steps at probe_body_count()), scaled to the frame budget by the algorithm's cost law here, in
// plain arithmetic that tests check without a GPU.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/toggles.hpp"

namespace nbl {

// How a step's time grows with n: t ~ n^exponent (all-pairs 2; Barnes-Hut n log n, about 1.1 over the
// range the lab runs).
double cost_exponent(Algorithm algorithm);

// The n the start-up probe times: large enough to fill a big GPU (below this all-pairs is latency-bound
// and would scale too optimistically), small enough to take milliseconds on a small one.
std::size_t probe_body_count(Algorithm algorithm);

// Simulation time per frame the start-up N aims at: a third of a 30-FPS frame, leaving the rest for
// drawing, the panel and the display; BodyCountTuner corrects it from the first frames.
inline constexpr double kStartupSimulationBudgetMs = 10.0;

// The n whose step takes `budget_ms`, from one measured point (probe_n bodies, probe_ms per frame) and
// the cost law t ~ n^exponent; rounded down to a multiple of 1024 and kept within [min_n, max_n].
std::size_t scale_body_count(std::size_t probe_n, double probe_ms, double budget_ms, double exponent, std::size_t min_n,
                             std::size_t max_n);

class BodyCountTuner {
 public:
  // cost_exponent: how a frame's work grows with n (about 1.1 for Barnes-Hut, 2 for all-pairs).
  // may_grow: raise N too when frames are fast (the CPU, whose default is small); otherwise only lower it.
  BodyCountTuner(std::size_t start_n, double cost_exponent, bool may_grow, bool enabled = true);

  // One frame's work, split into what grows with N (simulate + vertices) and what does not (render,
  // panel; the wait for vsync is neither). Returns the N to restart with, when it should change.
  // When the fixed part alone misses 30 FPS (software rendering of a large window), fewer bodies
  // cannot help, and N stays.
  std::optional<std::size_t> observe(double per_body_ms, double fixed_ms);
  bool active() const { return enabled_; }
  void stop() { enabled_ = false; }                  // N was chosen since (a bookmark): leave it
  const std::string& note() const { return note_; }  // what it did, for the panel

  static constexpr double kTargetFps = 30.0;

 private:
  bool enabled_;
  std::size_t start_n_, n_;
  double exponent_;
  bool may_grow_;
  int frames_ = 0, adjustments_ = 0;
  std::vector<double> per_body_, fixed_;
  std::string note_;
};

}  // namespace nbl
