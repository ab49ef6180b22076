// A deliberately slow backend for the lab's tests: each step waits until the test opens its gate (or
// the lab abandons the step, or ten seconds pass), then moves every body a little. Whatever a step
// costs, the lab's frames must keep coming (app/core/stepper.hpp).
#pragma once
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>

#include "sim/backend.hpp"
#include "sim/render_vertices.hpp"

namespace nbl::testing {

struct StepGate {
  std::atomic<bool> open{false};
  std::atomic<int> steps{0};      // steps finished
  std::atomic<int> abandoned{0};  // steps the lab abandoned while they waited
  std::atomic<int> waiting{0};    // steps waiting at the gate now
};

class HeldBackend : public Backend {
 public:
  explicit HeldBackend(std::shared_ptr<StepGate> gate) : gate_(std::move(gate)) {}
  std::string name() const override { return "held"; }
  Algorithm algorithm() const override { return algorithm_; }
  bool on_gpu() const override { return false; }
  void configure(const Settings& settings) override { algorithm_ = settings.algorithm; }
  void set_bodies(const Bodies& b) override { bodies_ = b; }
  void get_bodies(Bodies& b) override { b = bodies_; }
  std::size_t body_count() const override { return bodies_.size(); }
  void compute_accelerations(Accelerations& out) override { out.resize(bodies_.size()); }

  StepStats step() override {
    StepStats stats;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    ++gate_->waiting;
    while (!gate_->open && std::chrono::steady_clock::now() < deadline) {
      if (step_control_.abandoned()) {
        --gate_->waiting;
        ++gate_->abandoned;
        stats.abandoned = true;
        return stats;
      }
      usleep(1000);
    }
    --gate_->waiting;
    for (float& x : bodies_.x) x += 1e-3f;
    ++gate_->steps;
    return stats;
  }

  void write_vertices(VertexTarget target, ColorMode) override {
    float* keys = write_vertex_positions(bodies_, static_cast<float*>(target.data));
    std::fill(keys, keys + bodies_.size(), 0.5f);
  }

 private:
  std::shared_ptr<StepGate> gate_;
  Bodies bodies_;
  Algorithm algorithm_ = Algorithm::barneshut;
};

}  // namespace nbl::testing
