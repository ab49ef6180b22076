// The start-up N when the user did not choose one (DESIGN.md: "as many bodies as the machine runs at
// >= 30 FPS"). Simulation's default is a guess per machine class (GPU or CPU, algorithm); this
// measures the first frames and, if the guess was off, asks for a restart with an N that fits, at
// most a few times and only in the first second or so, while the scene has barely moved.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace nbl {

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
