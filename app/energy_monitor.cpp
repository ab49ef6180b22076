#include "app/energy_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace nbl {

void EnergyMonitor::restart() {
  ++generation_;  // a measurement still running belongs to the old bodies: drop it when it lands
  baseline_.reset();
  latest_.reset();
  drift_.clear();
  next_start_s_ = 0;
}

void EnergyMonitor::poll(Simulation& simulation, double now_s) {
  if (pending_.valid() && pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
    const Measurement m = pending_.get();
    if (m.generation == generation_) {
      if (!baseline_) baseline_ = m.report;
      latest_ = m.report;
      latest_time_ = m.sim_time;
      const double e0 = baseline_->total;
      drift_.push(static_cast<float>(e0 != 0 ? (m.report.total - e0) / std::abs(e0) : 0));
    }
    // At most a quarter of the time spent measuring: on a small CPU the measurement competes with
    // the simulation for cores.
    next_start_s_ = now_s + std::max(1.0, 3.0 * m.seconds);
  }
  if (pending_.valid() || now_s < next_start_s_) return;
  Bodies bodies = simulation.bodies();
  pending_ = std::async(std::launch::async, [bodies = std::move(bodies), softening = simulation.softening(),
                                             time = simulation.time(), generation = generation_] {
    const auto start = std::chrono::steady_clock::now();
    Measurement m{energy(bodies, softening), time, 0, generation};
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return m;
  });
}

}  // namespace nbl
