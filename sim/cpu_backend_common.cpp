#include "sim/cpu_backend_common.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "physics/color_keys.hpp"
#include "physics/gravity.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

void add_stage_time(StepStats& stats, const std::string& name, double ms) {
  for (auto& s : stats.stages) {
    if (s.name == name) {
      s.ms += ms;
      return;
    }
  }
  stats.stages.push_back({name, ms});
}

std::string cpu_thread_description() {
  const int threads = omp_get_max_threads();
  return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

void CpuBackendBase::configure(const Settings& settings) {
  dt_ = settings.dt.value_or(0.0);
  const double softening = settings.softening.value_or(0.0);
  const bool forces_changed = configure_forces(settings);
  if (softening != softening_ || forces_changed) accelerations_valid_ = false;
  softening_ = softening;
}

void CpuBackendBase::set_bodies(const Bodies& bodies) {
  bodies_ = bodies;
  color_scales_ = color_scales(bodies_);
  const std::size_t n = bodies_.size();
  accel_x_.assign(n, 0.0f);
  accel_y_.assign(n, 0.0f);
  accel_z_.assign(n, 0.0f);
  accelerations_valid_ = false;
}

void CpuBackendBase::get_bodies(Bodies& bodies) { bodies = bodies_; }

void CpuBackendBase::ensure_accelerations(StepStats& stats) {
  if (accelerations_valid_) return;
  const StepControl control = std::exchange(step_control_, StepControl{});  // outside a step: whole
  compute_forces(stats);
  step_control_ = control;
  accelerations_valid_ = true;
}

std::size_t CpuBackendBase::slice_count(std::size_t count) const {
  if (step_control_.slice_ms <= 0 || count < 2) return 1;
  // From the last pass's time; before there is one, a few slices so that a first slow step can stop too.
  const double wanted = last_force_ms_ > 0 ? std::ceil(last_force_ms_ / step_control_.slice_ms) : 8.0;
  return std::clamp<std::size_t>(static_cast<std::size_t>(wanted), 1, std::min<std::size_t>(count, 1024));
}

StepStats CpuBackendBase::step() {
  StepStats stats;
  const StageClock whole;
  // Kick-drift-kick needs a(x) at the start of the step: the previous step's closing force
  // evaluation, or a fresh one after new bodies or a new softening.
  ensure_accelerations(stats);

  // A step that may be abandoned keeps the state it started from, to put back (StepControl).
  const bool may_abandon = step_control_.abandon != nullptr;
  Bodies before;
  std::vector<float> before_ax, before_ay, before_az;
  if (may_abandon) {
    before = bodies_;
    before_ax = accel_x_, before_ay = accel_y_, before_az = accel_z_;
  }

  const std::size_t n = bodies_.size();
  const float dt = static_cast<float>(dt_);
  const float half_dt = 0.5f * dt;
  float* x = bodies_.x.data();
  float* y = bodies_.y.data();
  float* z = bodies_.z.data();
  float* vx = bodies_.vx.data();
  float* vy = bodies_.vy.data();
  float* vz = bodies_.vz.data();
  const float* ax = accel_x_.data();
  const float* ay = accel_y_.data();
  const float* az = accel_z_.data();

  const StageClock first_half;
#pragma omp parallel for simd schedule(static)
  for (std::size_t i = 0; i < n; ++i) {
    kick(vx[i], ax[i], half_dt);
    kick(vy[i], ay[i], half_dt);
    kick(vz[i], az[i], half_dt);
    drift(x[i], vx[i], dt);
    drift(y[i], vy[i], dt);
    drift(z[i], vz[i], dt);
  }
  double integrate_ms = first_half.elapsed_ms();

  force_abandoned_ = false;
  const StageClock force_clock;
  compute_forces(stats);
  if (force_abandoned_) {
    bodies_ = std::move(before);
    accel_x_ = std::move(before_ax), accel_y_ = std::move(before_ay), accel_z_ = std::move(before_az);
    StepStats abandoned;
    abandoned.abandoned = true;
    abandoned.total_ms = whole.elapsed_ms();
    return abandoned;
  }
  last_force_ms_ = force_clock.elapsed_ms();
  accelerations_valid_ = true;

  ax = accel_x_.data();
  ay = accel_y_.data();
  az = accel_z_.data();
  const StageClock second_half;
  int finite = 1;
#pragma omp parallel for simd schedule(static) reduction(&& : finite)
  for (std::size_t i = 0; i < n; ++i) {
    kick(vx[i], ax[i], half_dt);
    kick(vy[i], ay[i], half_dt);
    kick(vz[i], az[i], half_dt);
    finite = finite && std::isfinite(x[i] + y[i] + z[i] + vx[i] + vy[i] + vz[i]);
  }
  integrate_ms += second_half.elapsed_ms();
  add_stage_time(stats, stage_name(Stage::integrate), integrate_ms);

  if (!finite && !stats.non_finite) {
    stats.non_finite = true;
    stats.notices.push_back("a position or velocity became NaN or infinite: the simulation has blown up");
  }
  stats.total_ms = whole.elapsed_ms();
  return stats;
}

void CpuBackendBase::compute_accelerations(Accelerations& out) {
  StepStats ignored;
  ensure_accelerations(ignored);
  const std::size_t n = bodies_.size();
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.x[i] = accel_x_[i];
    out.y[i] = accel_y_[i];
    out.z[i] = accel_z_[i];
  }
}

void CpuBackendBase::tree_depth_keys(float* keys) const { std::fill(keys, keys + bodies_.size(), 0.0f); }

void CpuBackendBase::write_vertices(VertexTarget target, ColorMode mode) {
  if (target.on_device)
    throw Error("the CPU backend fills vertex buffers in host memory; it was handed a device pointer");
  const std::size_t n = bodies_.size();
  if (n == 0) return;
  if (!target.data) throw Error("write_vertices: no vertex buffer to write to");
  float* keys = write_vertex_positions(bodies_, static_cast<float*>(target.data));

  // The keys every backend computes the same way (physics/color_keys.hpp).
  switch (mode) {
    case ColorMode::origin:  // the renderer's own modes: it asks for speed keys (render/scene_view.cpp)
    case ColorMode::density:
    case ColorMode::speed:
      for (std::size_t i = 0; i < n; ++i)
        keys[i] = magnitude_key(
            std::sqrt(bodies_.vx[i] * bodies_.vx[i] + bodies_.vy[i] * bodies_.vy[i] + bodies_.vz[i] * bodies_.vz[i]),
            color_scales_.speed);
      break;
    case ColorMode::acceleration: {
      StepStats ignored;
      ensure_accelerations(ignored);
      for (std::size_t i = 0; i < n; ++i)
        keys[i] =
            magnitude_key(std::sqrt(accel_x_[i] * accel_x_[i] + accel_y_[i] * accel_y_[i] + accel_z_[i] * accel_z_[i]),
                          color_scales_.acceleration);
      break;
    }
    case ColorMode::mass:
      for (std::size_t i = 0; i < n; ++i) keys[i] = mass_key(bodies_.mass[i], color_scales_.max_mass);
      break;
    case ColorMode::body_index:
      for (std::size_t i = 0; i < n; ++i) keys[i] = order_key(static_cast<int>(i), static_cast<int>(n));
      break;
    case ColorMode::warp_id:
      for (std::size_t i = 0; i < n; ++i) keys[i] = warp_key(static_cast<int>(i / 32));
      break;
    case ColorMode::tree_depth: {
      StepStats ignored;
      ensure_accelerations(ignored);  // the tree is built with the forces
      tree_depth_keys(keys);
      break;
    }
    case ColorMode::ab_difference:  // A/B runs on the GPU only: no difference, as a GPU backend without one draws
      std::fill(keys, keys + n, 0.0f);
      break;
  }
}

std::size_t cpu_bytes_per_body(Algorithm algorithm) {
  // State (7 floats) three times over: the backend's, the simulation's initial copy, one host copy for
  // diagnostics; accelerations; the host vertex buffer; the double copies of the reference modes.
  constexpr std::size_t state = 7 * sizeof(float);
  constexpr std::size_t common = 3 * state + 3 * sizeof(float) + 5 * sizeof(float) + 4 * sizeof(double);
  // Barnes-Hut adds bodies in tree order twice (build scratch), point masses, per-body leaf depth, and
  // fewer than two cells per body (every cell that is not a leaf has at least two children), each
  // 32 bytes for the walk, 48 of geometry, 88 of mass moments and 24 of quadrupole.
  constexpr std::size_t tree = 2 * 20 + 16 + 2 + 2 * (32 + 48 + 88 + 24);
  return algorithm == Algorithm::barneshut ? common + tree : common;
}

}  // namespace nbl
