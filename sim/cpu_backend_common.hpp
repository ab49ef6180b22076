// What the two CPU backends share: the body state in host memory, the kick-drift-kick step around a
// force evaluation, and the host vertex buffer. Each backend supplies only its force evaluation (and,
// for Barnes-Hut, the tree's extras). Internal to sim/; the rest of the program sees cpu_backends.hpp.
#pragma once
#include <chrono>
#include <string>
#include <vector>

#include "sim/backend.hpp"
#include "sim/render_vertices.hpp"
#include "sim/stage_names.hpp"

namespace nbl {

// Wall time of one stage on a steady clock.
class StageClock {
 public:
  StageClock() : start_(std::chrono::steady_clock::now()) {}
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// Adds `ms` to the stage called `name`, appending it the first time: a step that evaluates forces
// twice (the first step, with no cached accelerations) reports each stage once.
void add_stage_time(StepStats& stats, const std::string& name, double ms);  // name: stage_name(...)

// "2 threads" / "1 thread": the OpenMP team a parallel region will get.
std::string cpu_thread_description();

class CpuBackendBase : public Backend {
 public:
  bool on_gpu() const override { return false; }
  void configure(const Settings& settings) override;
  void set_bodies(const Bodies& bodies) override;
  void get_bodies(Bodies& bodies) override;
  std::size_t body_count() const override { return bodies_.size(); }
  StepStats step() override;
  void compute_accelerations(Accelerations& out) override;
  void write_vertices(VertexTarget target, ColorMode mode) override;

 protected:
  // Accelerations at the current positions into accel_x_/y_/z_; stage times, interaction counts, tree
  // statistics and notices into `stats`. Sets stats.non_finite when it cannot produce finite values.
  virtual void compute_forces(StepStats& stats) = 0;
  // Colour key for ColorMode::tree_depth: the depth of each body's leaf over the tree's depth.
  virtual void tree_depth_keys(float* keys) const;
  ColorScales color_scales_;
  // The settings a subclass reads beyond dt and softening. Returns true when they change its forces.
  virtual bool configure_forces(const Settings& settings) {
    (void)settings;
    return false;
  }
  // Forces at the current positions, computed now if the cached ones are stale.
  void ensure_accelerations(StepStats& stats);

  // The force loop over `count` items (bodies or groups), run by `body(begin, end)`: whole, or, under a
  // StepControl that asks for it (sim/backend.hpp), in consecutive slices of about slice_ms each, so a
  // request to abandon the step is seen between them. Each item's result does not depend on the
  // slicing. Returns false, having run only some slices, when the step was abandoned.
  template <class Body>
  bool for_slices(std::size_t count, StepStats& stats, Body&& body) {
    const std::size_t slices = slice_count(count);
    stats.force_slices = static_cast<int>(slices);
    for (std::size_t s = 0; s < slices; ++s) {
      if (s > 0 && step_control_.abandoned()) return false;
      body(count * s / slices, count * (s + 1) / slices);
    }
    return true;
  }

  Bodies bodies_;
  std::vector<float> accel_x_, accel_y_, accel_z_;
  bool force_abandoned_ = false;  // compute_forces stopped between slices (for_slices returned false)
  double dt_ = 0;
  double softening_ = 0;
  bool accelerations_valid_ = false;

 private:
  std::size_t slice_count(std::size_t count) const;
  double last_force_ms_ = 0;  // the last force evaluation, for slicing the next one
};

}  // namespace nbl
