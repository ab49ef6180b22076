// Energy drift for the panel: about once a second, a snapshot of the bodies goes to a worker thread
// that computes the total energy (exact for small n, sampled with its standard error for large n;
// diagnostics.hpp), so the frame loop never waits for an O(n^2) sum.
#pragma once
#include <cstdint>
#include <future>
#include <optional>

#include "app/simulation.hpp"
#include "app/stats_history.hpp"
#include "sim/diagnostics.hpp"


namespace nbl {

class EnergyMonitor {
 public:
  // Starts a measurement when none is running and the last one is old enough; collects a finished one.
  void poll(Simulation& simulation, double now_s);
  // New bodies: the next measurement becomes the baseline.
  void restart();

  const Series& drift() const { return drift_; }  // (E - E0) / |E0| per measurement
  const std::optional<EnergyReport>& baseline() const { return baseline_; }
  const std::optional<EnergyReport>& latest() const { return latest_; }
  double latest_time() const { return latest_time_; }  // simulation time of `latest`
  bool busy() const { return pending_.valid(); }

 private:
  struct Measurement {
    EnergyReport report;
    double sim_time;
    double seconds;  // how long it took
    std::uint64_t generation;
  };
  std::future<Measurement> pending_;
  std::uint64_t generation_ = 0;
  double next_start_s_ = 0;
  Series drift_{120};
  std::optional<EnergyReport> baseline_, latest_;
  double latest_time_ = 0;
};

}  // namespace nbl
