// Energy drift for the panel, measured every few seconds without a frame waiting for it. On a GPU
// backend the device's pass (cuda/energy_pass.hpp) runs in slices of about a quarter of a step's time,
// one per frame: every pair exactly up to 4M bodies, a sample of rows above, with the error stated.
// On the CPU a snapshot goes to a worker thread (sim/diagnostics.hpp: exact for small n, sampled with
// its standard error above).
#pragma once
#include <cstdint>
#include <deque>
#include <future>
#include <optional>
#include <string>

#include "app/core/simulation.hpp"
#include "sim/diagnostics.hpp"

namespace nbl {

class Backend;

// How much device time the energy pass's slice may take in one frame, from the lab's recent medians: a
// quarter of a step's time (0.5 to 4 ms). But where every frame shows a new step (steps per second times
// the frame interval reaches 0.9 of the steps per frame), the GPU time a frame has beside its steps is
// what they leave of the frame, and a slice beyond that delays the next step and so the frame after: the
// slice then takes half of that slack, at least kMinEnergySliceMs. The measurement takes longer; the
// steps keep the display's pace.
inline constexpr double kMinEnergySliceMs = 0.1;
struct FramePace {
  double step_ms = 0;       // one step
  double frame_ms = 0;      // the display's frame interval
  double steps_per_s = 0;   // finished steps a second
  int steps_per_frame = 1;  // the setting
};
double energy_slice_ms(const FramePace& pace);

// One reading: (E - E0) / |E0| at a simulated time, with one standard error (0 when both are exact).
struct DriftPoint {
  double sim_time = 0;
  double drift = 0;
  double error = 0;
};

class EnergyMonitor {
 public:
  static constexpr std::size_t kPoints = 120;

  // Starts a measurement when none is running and the last one is old enough (with `may_begin`: between
  // jobs, as it reads the state), advances the device's pass by one slice of about `budget_ms` (also
  // while a job steps: the pass reads its own copy of the state), and collects a finished measurement.
  void poll(Simulation& simulation, double now_s, double budget_ms = 1.0, bool may_begin = true);
  // New bodies: the next measurement becomes the baseline.
  void restart();

  const std::deque<DriftPoint>& drift() const { return drift_; }
  const std::optional<EnergyReport>& baseline() const { return baseline_; }
  const std::optional<EnergyReport>& latest() const { return latest_; }
  double latest_time() const { return latest_time_; }        // simulation time of `latest`
  double latest_seconds() const { return latest_seconds_; }  // wall time the latest measurement took
  bool busy() const { return pending_.valid() || device_ != nullptr; }
  // Whether a measurement is due to start: poll() with may_begin then takes the state.
  bool due(double now_s) const { return !busy() && now_s >= next_start_s_; }
  double progress() const { return progress_; }  // of the device pass in flight, 0..1

 private:
  struct Measurement {
    EnergyReport report;
    double sim_time;
    double seconds;  // how long it took
    std::uint64_t generation;
  };
  void record(const Measurement& m, double now_s);

  std::future<Measurement> pending_;  // the CPU's worker
  const Backend* device_ = nullptr;   // the backend whose device pass is in flight
  double device_sim_time_ = 0, device_started_s_ = 0;
  double progress_ = 0;
  std::uint64_t generation_ = 0;
  double next_start_s_ = 0;
  std::deque<DriftPoint> drift_;
  std::optional<EnergyReport> baseline_, latest_;
  double latest_time_ = 0, latest_seconds_ = 0;
};

}  // namespace nbl
