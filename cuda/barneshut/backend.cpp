#include "cuda/barneshut/backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "cuda/barneshut/buffers.hpp"
#include "cuda/barneshut/comparison.hpp"
#include "cuda/barneshut/pipeline.hpp"
#include "cuda/barneshut/tree_copy.hpp"
#include "cuda/barneshut/variant.hpp"
#include "cuda/buffer.hpp"
#include "cuda/comparison.hpp"
#include "cuda/device.hpp"
#include "cuda/device_bodies.hpp"
#include "cuda/energy_pass.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/reloadable_kernels.hpp"
#include "cuda/engine/variant_builds.hpp"
#include "cuda/retire.hpp"
#include "cuda/stage_timer.hpp"
#include "cuda/step_slices.hpp"
#include "sim/accuracy.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

struct BarnesHutBackend::Impl {
  DeviceInfo device;
  std::shared_ptr<KernelEngine> engine;
  CudaStream stream;
  StageTimer timer;
  Options options;

  BarnesHutVariant variant;
  std::unique_ptr<ReloadableKernels> kernels;
  std::unique_ptr<BarnesHutPipeline> pipeline;
  BarnesHutBuffers buffers;                         // the lab's bodies and their tree
  std::unique_ptr<BarnesHutBuffers> check_buffers;  // the check problem's (sim/accuracy.hpp)
  DeviceBuffer<unsigned char> staging;              // host-copy vertices
  BarnesHutPhysics physics;
  double softening = 0, theta = 0.5;
  ColorScales scales;
  int last_max_depth = 1;
  bool acc_valid = false;
  std::vector<std::string> notices;
  VariantBuilds<BarnesHutBuild> builds{shared_build_queue()};  // switches and hot reloads

  // ---- A/B: B's pipeline with its own buffers (cuda/barneshut/comparison.hpp) ----
  ComparisonSlot<BarnesHutBuild, BarnesHutComparison> comparison{shared_build_queue(), stream.get()};
  std::vector<StageTime> last_force;  // A's force computation (every stage but integrate) of the last step
  ForcePassClock force_clock;         // the variant's whole force pass: how many slices the next one takes
  StopWord stop;                      // raised to stop a long walk's launch when its step is abandoned
  StateSnapshot snapshot;             // the state a step that may be abandoned started from
  DeviceEnergy energy;                // the exact energy, a slice at a time
  // The energy's own stream, below the steps' priority: its slices run beside a job, on a copy of the
  // state the backend's stream takes between two steps (energy_taken marks the copy's end).
  CudaStream energy_stream{CudaStream::Priority::background};
  CudaEvent energy_taken{cudaEventDisableTiming};

  // Hot reload without a stall: an edited file is rebuilt and checked on a worker like any switch.
  void request_reload_if_edited() {
    if (!kernels || builds.busy() || !kernels->files_changed()) return;
    builds.request_reload(variant.label, make_build(variant, softening, theta));
  }

  AsyncBuilds<BarnesHutBuild>::Make make_build(const BarnesHutVariant& v, double eps, double angle) const {
    return make_barneshut_build(engine, v, eps, angle, device, kernels ? kernels->last_good() : std::nullopt);
  }

  // After a swap: the variants one click away compile in the background (into the kernel caches).
  void prefetch_neighbours(const ToggleValues& toggles) {
    BuildQueue& queue = shared_build_queue();
    queue.clear_prefetch();
    for (const ToggleValues& t : toggle_neighbours(toggles, Algorithm::barneshut))
      for (const KernelSource& source : barneshut_sources(barneshut_variant(t, softening > 0.0)))
        if (!source.file.empty()) queue.prefetch([engine = engine, source] { engine->compile(source); });
  }

  ReloadableKernels::Evaluate evaluator(const BarnesHutVariant& v) {
    return [this, &v](const ReloadableKernels::Modules& modules) {
      return check_barneshut_build(v, modules, device, softening, theta, check_buffers, stream.get());
    };
  }
  ForceErrorBound bound(const BarnesHutVariant& v) const {
    return force_error_bound(Algorithm::barneshut, false, theta, v.tolerance);
  }

  // A new variant: compiled, checked against the running one, then adopted (or refused: throws with
  // the running variant untouched).
  void use_variant(const BarnesHutVariant& v) {
    auto candidate = std::make_unique<ReloadableKernels>(*engine, barneshut_sources(v));
    const BuildVerdict verdict =
        candidate->adopt(evaluator(v), bound(v), kernels ? kernels->last_good() : std::nullopt);
    if (!verdict.accepted) throw Error("Barnes-Hut variant " + v.label + " is not used: " + verdict.report);
    auto next = std::make_unique<BarnesHutPipeline>(v, candidate->modules(), device);
    if (buffers.size()) buffers.fit_variant(v);
    variant = v;
    kernels = std::move(candidate);
    pipeline = std::move(next);
    acc_valid = false;
  }

  void poll_reload(bool force, bool& swapped) {
    swapped = false;
    if (!kernels) return;
    auto outcome = kernels->poll(evaluator(variant), bound(variant), force);
    notices.insert(notices.end(), outcome.notices.begin(), outcome.notices.end());
    if (!outcome.swapped) return;
    pipeline = std::make_unique<BarnesHutPipeline>(variant, kernels->modules(), device);
    acc_valid = false;
    swapped = true;
  }

  // previous_acc: what relative opening judges cells by; by default the last pass's, when there is one.
  void forces(StageTimer* t, StepStats& stats, bool then_kick = false, const float4* previous_acc = nullptr,
              int slices = 1, const StepControl* control = nullptr, StopWord* stop = nullptr) {
    if (!previous_acc && acc_valid) previous_acc = buffers.accelerations();
    pipeline->forces(buffers, physics, stream.get(), t, stats, then_kick, previous_acc, slices, control, stop);
    if (stats.non_finite || stats.abandoned) return;
    last_max_depth = std::max(1, stats.tree.max_depth);
    acc_valid = true;
  }
};

BarnesHutBackend::BarnesHutBackend(const Settings& settings, Options options) : impl_(std::make_unique<Impl>()) {
  std::string why;
  auto device = query_device(&why);
  if (!device) throw Error("the GPU Barnes-Hut backend needs a CUDA device: " + why);
  impl_->device = *device;
  impl_->options = options;
  impl_->engine = options.engine ? options.engine : shared_kernel_engine(settings.kernels_dir);
  NBL_CUDA_CHECK(cudaSetDevice(impl_->device.index));
  configure(settings);
}

BarnesHutBackend::~BarnesHutBackend() = default;

std::string BarnesHutBackend::name() const { return "Barnes-Hut on " + impl_->device.name; }

std::size_t BarnesHutBackend::body_count() const { return impl_->buffers.size(); }

void* BarnesHutBackend::cuda_stream() const { return impl_->stream.get(); }

std::size_t BarnesHutBackend::device_bytes() const {
  return impl_->buffers.bytes() + (impl_->check_buffers ? impl_->check_buffers->bytes() : 0);
}

void BarnesHutBackend::configure(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0), theta = settings.opening_angle;
  const bool physics_changed = softening != s.softening || theta != s.theta;
  const double old_softening = s.softening, old_theta = s.theta;
  s.softening = softening;
  s.theta = theta;
  BarnesHutVariant v = barneshut_variant(settings.toggles, softening > 0.0);
  try {
    if (!s.kernels || !same_code(v, s.variant)) s.use_variant(v);
    else if (physics_changed) s.kernels->remeasure(s.evaluator(s.variant));  // the yardstick at the new theta
  } catch (...) {
    s.softening = old_softening, s.theta = old_theta;
    throw;
  }
  s.physics = {static_cast<float>(settings.dt.value_or(0.0)), static_cast<float>(softening * softening),
               static_cast<float>(theta)};
  if (physics_changed) s.acc_valid = false;
  s.builds.set_running(settings);
}

bool BarnesHutBackend::configure_async(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0);
  const BarnesHutVariant v = barneshut_variant(settings.toggles, softening > 0.0);
  if (s.kernels && same_code(v, s.variant)) {
    s.builds.cancel();
    configure(settings);
    return true;
  }
  s.builds.request(settings, v.label, s.make_build(v, softening, settings.opening_angle));
  return false;
}

std::optional<ConfigureOutcome> BarnesHutBackend::poll_configure() {
  Impl& s = *impl_;
  auto finished = s.builds.take_finished();
  if (!finished) return std::nullopt;
  ConfigureOutcome& outcome = finished->outcome;
  const Settings& next = finished->settings;
  if (!finished->build) {
    if (finished->reload) {
      s.kernels->mark_failed(outcome.message);
      s.notices.push_back("an edited Barnes-Hut kernel's build is refused; the previous build keeps running");
    }
    return outcome;
  }
  BarnesHutBuild& b = *finished->build;
  // Nothing the swap replaces is released on this thread (the old modules, pipeline and scratch go to
  // the teardown worker: cuda/retire.hpp), and the new pipeline takes over the running one's sort
  // scratch, sized for these bodies, so its first step allocates nothing.
  RetiredObjects old;
  if (s.buffers.size()) s.buffers.fit_variant(b.variant, &old);
  if (s.pipeline) b.pipeline->adopt_scratch(*s.pipeline);
  s.variant = b.variant;
  old.add(std::move(s.kernels));
  old.add(std::move(s.pipeline));
  s.kernels = std::move(b.kernels);
  s.pipeline = std::move(b.pipeline);
  // The last step's accelerations stay valid across a swap of kernels (same positions, same physics,
  // a build that passed the same check): no extra tree build and walk on the swap frame. A new
  // softening or opening angle needs them again, as configure() decides.
  const bool physics_changed = next.softening.value_or(0.0) != s.softening || next.opening_angle != s.theta;
  s.softening = next.softening.value_or(0.0);
  s.theta = next.opening_angle;
  s.physics = {static_cast<float>(next.dt.value_or(0.0)), static_cast<float>(s.softening * s.softening),
               static_cast<float>(s.theta)};
  if (physics_changed) s.acc_valid = false;
  outcome.message = b.report;
  if (finished->reload) s.notices.push_back("edited Barnes-Hut kernels reloaded: " + b.report);
  else s.prefetch_neighbours(next.toggles);
  outcome.teardown_ms = s.builds.swapped(next, std::move(old), s.stream.get());
  return outcome;
}

std::vector<BuildProgress> BarnesHutBackend::builds() const { return impl_->builds.progress(); }
std::string BarnesHutBackend::variant_label() const {
  const Impl& s = *impl_;
  if (!s.pipeline || s.pipeline->force_stack_capacity() == 0) return s.variant.label;
  return s.variant.label + ", node stack of " + std::to_string(s.pipeline->force_stack_capacity()) + " a warp";
}

void BarnesHutBackend::set_comparison(const std::optional<Settings>& b) {
  Impl& s = *impl_;
  s.comparison.clear();
  if (!b) return;
  if (b->algorithm != Algorithm::barneshut)
    throw InputError("A/B compares two configurations of the running algorithm");
  const double eps = b->softening.value_or(s.softening);
  const BarnesHutPhysics physics{s.physics.dt, static_cast<float>(eps * eps), static_cast<float>(b->opening_angle)};
  const BarnesHutVariant v = barneshut_variant(b->toggles, eps > 0.0);
  char theta[32];
  std::snprintf(theta, sizeof theta, ", theta %.2f", b->opening_angle);
  s.comparison.request(v.label + theta, s.make_build(v, eps, b->opening_angle),
                       [physics, sm_count = s.device.sm_count](BarnesHutBuild build) {
                         return std::make_unique<BarnesHutComparison>(std::move(build), physics, sm_count);
                       });
}

std::optional<ComparisonSample> BarnesHutBackend::compare() {
  Impl& s = *impl_;
  return s.comparison.compare(s.buffers.size() > 0 && !s.last_force.empty() && s.acc_valid, s.buffers, s.last_force);
}

bool BarnesHutBackend::comparison_ready() const { return impl_->comparison.ready(); }
bool BarnesHutBackend::comparison_accelerations(Accelerations& out) { return impl_->comparison.accelerations(out); }
std::vector<BuildProgress> BarnesHutBackend::comparison_builds() const { return impl_->comparison.builds(); }

void BarnesHutBackend::set_bodies(const Bodies& bodies) {
  Impl& s = *impl_;
  const std::size_t n = bodies.size();
  if (n == 0) throw InputError("Barnes-Hut needs at least one body");
  if (n > BarnesHutBuffers::kMaxBodies)
    throw InputError("the GPU Barnes-Hut backend handles at most " + std::to_string(BarnesHutBuffers::kMaxBodies) +
                     " bodies");
  const int cells = s.options.initial_cells > 0 ? s.options.initial_cells : BarnesHutBuffers::initial_cells(n);
  s.buffers.allocate(n, s.variant, cells, s.device.sm_count);
  upload_float4_bodies(bodies, s.buffers.positions(), s.buffers.velocities(), s.stream.get());
  s.scales = color_scales(bodies);
  s.acc_valid = false;
}

bool BarnesHutBackend::begin_energy(std::uint64_t seed) {
  Impl& s = *impl_;
  s.energy.begin(s.buffers.positions(), s.buffers.velocities(), s.buffers.size(), s.softening, seed, s.stream.get());
  s.energy_taken.record(s.stream.get());  // the copy, in the steps' order; the slices wait for it
  NBL_CUDA_CHECK(cudaStreamWaitEvent(s.energy_stream.get(), s.energy_taken.get(), 0));
  return true;
}

std::optional<EnergyReport> BarnesHutBackend::advance_energy(double budget_ms) {
  return impl_->energy.advance(budget_ms, impl_->energy_stream.get());
}

double BarnesHutBackend::energy_progress() const { return impl_->energy.progress(); }

void BarnesHutBackend::get_bodies(Bodies& bodies) {
  Impl& s = *impl_;
  download_float4_bodies(s.buffers.positions(), s.buffers.velocities(), s.buffers.size(), bodies, s.stream.get());
}

StepStats BarnesHutBackend::step() {
  Impl& s = *impl_;
  StepStats stats;
  if (s.buffers.size() > 0) {
    s.request_reload_if_edited();
    if (!s.acc_valid) {
      StepStats initial;
      s.forces(nullptr, initial);  // a(x) at the starting positions, for the first kick
      if (initial.non_finite) return initial;
      stats.notices = std::move(initial.notices);  // e.g. the pool grew while computing them
    }
    // Under the lab's StepControl a slow force pass runs in slices of warps of bodies, and a step that may
    // be abandoned copies aside the state it changes first (cuda/step_slices.hpp).
    // A long pass (or a variant's first, not timed yet) may also be stopped inside a launch (StopWord).
    const double whole_ms = s.force_clock.whole_ms(s.variant.label);
    const int slices = force_slice_count(step_control_, whole_ms, static_cast<int>(s.buffers.size() + 31) / 32,
                                         kBarnesHutSliceWarpsPerSm * s.device.sm_count);
    const bool stoppable = stoppable_pass(step_control_, whole_ms);
    if ((slices > 1 || stoppable) && step_control_.abandon) s.snapshot.take(s.buffers.state_regions(), s.stream.get());
    s.timer.begin(s.stream.get());
    s.timer.stage(Stage::integrate, [&] { s.pipeline->kick_drift(s.buffers, s.physics, s.stream.get()); });
    s.forces(&s.timer, stats, /*then_kick=*/true, nullptr, slices, &step_control_, stoppable ? &s.stop : nullptr);
    if (stats.abandoned) return abandoned_step(s.snapshot, s.stream.get());
    s.snapshot.clear();
    s.last_force.clear();
    for (const StageTime& t : stats.stages)
      if (t.name != "integrate") s.last_force.push_back(t);
    s.force_clock.record(slices, stats.stage_ms("force"));
  }
  stats.notices.insert(stats.notices.begin(), s.notices.begin(), s.notices.end());
  s.notices.clear();
  return stats;
}

void BarnesHutBackend::compute_accelerations(Accelerations& out) {
  Impl& s = *impl_;
  const std::size_t n = s.buffers.size();
  if (n == 0) throw Error("no bodies to compute accelerations for");
  // Poisoned first (0xff bytes are NaN): a walk that skips a body shows up as NaN in every check that
  // reads these, never as the stale right answer of the last step. Relative opening judges by
  // the last pass's accelerations: they are kept aside first.
  DeviceBuffer<float4> previous;
  if (s.variant.relative_opening && s.acc_valid) {
    previous.resize(n);
    NBL_CUDA_CHECK(cudaMemcpyAsync(previous.data(), s.buffers.accelerations(), n * sizeof(float4),
                                   cudaMemcpyDeviceToDevice, s.stream.get()));
  }
  NBL_CUDA_CHECK(cudaMemsetAsync(s.buffers.accelerations(), 0xff, n * sizeof(float4), s.stream.get()));
  s.acc_valid = false;
  StepStats stats;
  s.forces(nullptr, stats, false, previous.size() ? previous.data() : nullptr);
  if (stats.non_finite) throw Error("the state holds NaN or inf values; no accelerations to compute");
  download_float4_accelerations(s.buffers.accelerations(), n, out, s.stream.get());
}

void BarnesHutBackend::write_vertices(VertexTarget target, ColorMode mode) {
  Impl& s = *impl_;
  const std::size_t n = s.buffers.size();
  if (n == 0) return;
  const bh::VertexScales scales{s.scales.speed, s.scales.acceleration, s.scales.max_mass, s.last_max_depth};
  unsigned char* out = static_cast<unsigned char*>(target.data);
  if (!target.on_device) {
    s.staging.resize(vertex_buffer_bytes(n));
    out = s.staging.data();
  }
  float* keys = reinterpret_cast<float*>(out + vertex_color_key_offset(n));
  s.pipeline->write_vertices(s.buffers, reinterpret_cast<float4*>(out), keys, static_cast<int>(mode), scales,
                             s.stream.get());
  if (mode == ColorMode::ab_difference) s.comparison.write_keys(keys, n);
  if (!target.on_device)
    s.staging.download(static_cast<unsigned char*>(target.data), vertex_buffer_bytes(n), s.stream.get());
}

std::vector<CellBox> BarnesHutBackend::tree_cells(int max_depth) {
  Impl& s = *impl_;
  if (s.buffers.size() == 0 || max_depth < 0) return {};
  if (!s.acc_valid) {
    StepStats stats;
    s.forces(nullptr, stats);
  }
  return overlay_cells(s.buffers, s.variant, max_depth, s.stream.get());
}

std::vector<KernelInfo> BarnesHutBackend::kernel_info() const {
  return impl_->kernels ? barneshut_kernel_info(*impl_->kernels, impl_->variant) : std::vector<KernelInfo>{};
}

BarnesHutTreeCopy BarnesHutBackend::copy_tree() {
  Impl& s = *impl_;
  if (s.buffers.size() == 0) return {};
  StepStats stats;
  s.forces(nullptr, stats);
  return nbl::copy_tree(s.buffers, s.variant, s.stream.get());
}

bool BarnesHutBackend::poll_reload(bool force) {
  bool swapped = false;
  impl_->poll_reload(force, swapped);
  return swapped;
}

std::optional<int> BarnesHutBackend::unloaded_kernels() const {
  return impl_->kernels ? impl_->kernels->unloaded_kernels() : 0;
}

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings) {
  return std::make_unique<BarnesHutBackend>(settings);
}

std::size_t barneshut_bytes_per_body(std::size_t n, const ToggleValues& toggles) {
  const std::size_t bodies = std::max<std::size_t>(n, 1);
  return (BarnesHutBuffers::planned_bytes(bodies, barneshut_variant(toggles, true)) + bodies - 1) / bodies;
}

}  // namespace nbl
