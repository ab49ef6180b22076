#include "app/core/energy_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "sim/backend.hpp"

namespace nbl {

double energy_slice_ms(const FramePace& pace) {
  const double budget_ms = std::clamp(0.25 * pace.step_ms, 0.5, 4.0);
  const double steps_per_frame = std::max(1, pace.steps_per_frame);
  const bool each_frame_a_step =
      pace.frame_ms > 0 && pace.steps_per_s * pace.frame_ms / 1000.0 >= 0.9 * steps_per_frame;
  if (!each_frame_a_step) return budget_ms;
  const double slack_ms = pace.frame_ms - steps_per_frame * pace.step_ms;
  return std::clamp(0.5 * slack_ms, kMinEnergySliceMs, budget_ms);
}

void EnergyMonitor::restart() {
  ++generation_;  // a measurement still running belongs to the old bodies: drop it when it lands
  device_ = nullptr;
  progress_ = 0;
  baseline_.reset();
  latest_.reset();
  drift_.clear();
  next_start_s_ = 0;
}

void EnergyMonitor::record(const Measurement& m, double now_s) {
  if (m.generation == generation_) {
    if (!baseline_) baseline_ = m.report;
    latest_ = m.report;
    latest_time_ = m.sim_time;
    latest_seconds_ = m.seconds;
    const double e0 = std::abs(baseline_->total);
    DriftPoint p;
    p.sim_time = m.sim_time;
    p.drift = e0 != 0 ? (m.report.total - baseline_->total) / e0 : 0;
    p.error = e0 != 0 ? std::hypot(m.report.potential_error, baseline_->potential_error) / e0 : 0;
    drift_.push_back(p);
    if (drift_.size() > kPoints) drift_.pop_front();
  }
  // Every few seconds, and at most a quarter of the time spent measuring: on a small CPU the
  // measurement competes with the simulation for cores.
  next_start_s_ = now_s + std::max(2.0, 3.0 * m.seconds);
}

void EnergyMonitor::poll(Simulation& simulation, double now_s, double budget_ms, bool may_begin) {
  if (pending_.valid() && pending_.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    record(pending_.get(), now_s);
  Backend& backend = simulation.backend();
  if (device_ && device_ != &backend) device_ = nullptr;  // the backend changed under the pass: start again
  if (device_) {
    if (auto report = backend.advance_energy(budget_ms)) {
      device_ = nullptr;
      progress_ = 1;
      record({std::move(*report), device_sim_time_, now_s - device_started_s_, generation_}, now_s);
    } else {
      progress_ = backend.energy_progress();
    }
    return;
  }
  if (pending_.valid() || now_s < next_start_s_ || !may_begin) return;
  if (backend.begin_energy(generation_)) {
    device_ = &backend;
    device_sim_time_ = simulation.time();
    device_started_s_ = now_s;
    progress_ = 0;
    return;
  }
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
