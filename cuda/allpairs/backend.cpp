#include "cuda/allpairs/backend.hpp"

#include "cuda/step_slices.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "cuda/allpairs/comparison.hpp"
#include "cuda/allpairs/force_pass.hpp"
#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "cuda/comparison.hpp"
#include "cuda/device.hpp"
#include "cuda/energy_pass.hpp"
#include "cuda/engine/async_builds.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/reloadable_kernels.hpp"
#include "cuda/engine/variant_builds.hpp"
#include "cuda/layout_kernels.hpp"
#include "cuda/retire.hpp"
#include "cuda/stage_timer.hpp"
#include "sim/accuracy.hpp"
#include "sim/render_vertices.hpp"
#include "sim/statistics.hpp"

namespace nbl {

struct AllPairsBackend::Impl {
  std::shared_ptr<KernelEngine> engine;
  DeviceInfo device;
  CudaStream stream;
  StageTimer timer;

  AllPairsVariant variant;
  std::unique_ptr<ReloadableKernels> kernels;  // one slot: the variant's module
  int blocks_per_sm = 1;
  double softening = 0;

  AllPairsState state;        // the lab's bodies
  AllPairsState check_state;  // the check problem a new build is judged on (sim/accuracy.hpp)
  DeviceBuffer<float> vertex_staging;
  PinnedBuffer<int> status_host;
  bool acc_valid = false;
  ColorScales scales;
  std::vector<std::string> notices;                           // reported with the next step
  VariantBuilds<AllPairsBuild> builds{shared_build_queue()};  // switches and hot reloads

  // ---- A/B: B's kernels and its own copy of the state (cuda/allpairs/comparison.hpp) ----
  ComparisonSlot<AllPairsBuild, AllPairsComparison> comparison{shared_build_queue(), stream.get()};
  std::vector<StageTime> last_force;  // A's force stage of the last step
  ForcePassClock force_clock;         // the variant's whole force pass: how many slices the next one takes
  StateSnapshot snapshot;             // the state a step that may be abandoned started from
  AllPairsPass::Overlap overlap;      // the sliced pass's second stream

  DeviceEnergy energy;  // the exact energy, a slice at a time
  // The energy's own stream, below the steps' priority: its slices run beside a job, on a copy of the
  // state the backend's stream takes between two steps (energy_taken marks the copy's end).
  CudaStream energy_stream{CudaStream::Priority::background};
  CudaEvent energy_taken{cudaEventDisableTiming};
  DeviceBodies energy_snapshot;  // the bodies in float4 when they run in another layout

  // Hot reload without a stall: an edited file is rebuilt and checked on a worker like any switch.
  void request_reload_if_edited() {
    if (!kernels || builds.busy() || !kernels->files_changed()) return;
    builds.request_reload(variant.description, make_build(variant, softening));
  }

  const KernelModule& module() const { return kernels->module(0); }
  AllPairsPass pass() const { return AllPairsPass(variant, module()); }
  AllPairsLaunch plan(std::size_t i_count) const {
    return plan_allpairs_launch(variant, state.size(), i_count, device.sm_count, blocks_per_sm);
  }
  ForceErrorBound bound() const { return force_error_bound(Algorithm::allpairs, variant.fp64, 0.0); }

  ReloadableKernels::Evaluate evaluator(const AllPairsVariant& v) {
    return [this, &v](const ReloadableKernels::Modules& modules) {
      return check_allpairs_build(v, *modules[0], softening, device.sm_count, check_state, stream.get());
    };
  }

  // A new variant: compiled, checked on the check problem against the running one, then adopted.
  // Throws (CompileError, Error) with the running variant untouched when it cannot be.
  void use_variant(const AllPairsVariant& v) {
    auto candidate = std::make_unique<ReloadableKernels>(*engine, std::vector<KernelSource>{v.source});
    const BuildVerdict verdict = candidate->adopt(evaluator(v), force_error_bound(Algorithm::allpairs, v.fp64, 0.0),
                                                  kernels ? kernels->last_good() : std::nullopt);
    if (!verdict.accepted) throw Error("kernel variant " + v.description + " is not used: " + verdict.report);
    state.adapt_to(v, stream.get());  // layout and precision, on the device
    variant = v;
    kernels = std::move(candidate);
    blocks_per_sm = pass().force_blocks_per_sm();
    acc_valid = false;
  }

  AsyncBuilds<AllPairsBuild>::Make make_build(const AllPairsVariant& v, double eps) const {
    return make_allpairs_build(engine, v, eps, device.sm_count, kernels ? kernels->last_good() : std::nullopt);
  }

  // After a swap: the variants one click away compile in the background (into the kernel caches).
  void prefetch_neighbours(const ToggleValues& toggles) {
    BuildQueue& queue = shared_build_queue();
    queue.clear_prefetch();
    for (const ToggleValues& t : toggle_neighbours(toggles, Algorithm::allpairs)) {
      KernelSource source = select_allpairs_variant(t, softening).source;
      queue.prefetch([engine = engine, source] { engine->compile(source); });
    }
  }

  void ensure_accelerations() {
    if (acc_valid || state.size() == 0) return;
    pass().force(state, state.size(), plan(state.size()), stream.get());
    acc_valid = true;
  }

  bool poll_reload(bool force) {
    if (!kernels) return false;
    const auto outcome = kernels->poll(evaluator(variant), bound(), force);
    notices.insert(notices.end(), outcome.notices.begin(), outcome.notices.end());
    if (!outcome.swapped) return false;
    blocks_per_sm = pass().force_blocks_per_sm();
    acc_valid = false;
    return true;
  }
};

// -------------------------------------------------------------------------------------------------

AllPairsBackend::AllPairsBackend(const Settings& settings, std::shared_ptr<KernelEngine> engine)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  auto device = query_device(&why);
  if (!device) throw Error("the GPU all-pairs backend needs a CUDA device: " + why);
  impl_->device = *device;
  impl_->engine = engine ? std::move(engine) : shared_kernel_engine();
  layout_kernels::load();  // a layout switch's conversion must not load kernels on the swap frame
  impl_->status_host.resize(1);
  impl_->state.status.resize(1);
  impl_->state.status.fill_bytes(0, impl_->stream.get());
  configure(settings);
}

AllPairsBackend::~AllPairsBackend() = default;

std::string AllPairsBackend::name() const { return "all-pairs on " + impl_->device.name; }

const AllPairsVariant& AllPairsBackend::variant() const { return impl_->variant; }

AllPairsLaunch AllPairsBackend::launch() const { return impl_->plan(impl_->state.size()); }

std::size_t AllPairsBackend::body_count() const { return impl_->state.size(); }

void AllPairsBackend::configure(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0);
  const double previous_softening = s.softening;
  s.softening = softening;
  AllPairsVariant v = select_allpairs_variant(settings.toggles, softening);
  try {
    if (!s.kernels || !v.source.same_code(s.variant.source)) {
      s.use_variant(v);
      s.notices.insert(s.notices.end(), v.notices.begin(), v.notices.end());
    } else {
      if (softening != previous_softening) s.kernels->remeasure(s.evaluator(s.variant));  // a new check problem
      const bool new_notices = v.notices != s.variant.notices;
      s.variant = std::move(v);
      if (new_notices) s.notices.insert(s.notices.end(), s.variant.notices.begin(), s.variant.notices.end());
    }
  } catch (...) {
    s.softening = previous_softening;
    throw;
  }
  if (softening != previous_softening) s.acc_valid = false;
  s.state.eps2 = softening * softening;
  s.state.dt = settings.dt.value_or(0.0);
  s.builds.set_running(settings);
}

bool AllPairsBackend::configure_async(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0);
  const AllPairsVariant v = select_allpairs_variant(settings.toggles, softening);
  if (s.kernels && v.source.same_code(s.variant.source)) {
    s.builds.cancel();
    configure(settings);
    return true;
  }
  s.builds.request(settings, v.description, s.make_build(v, softening));  // checked with the softening it will run with
  return false;
}

std::optional<ConfigureOutcome> AllPairsBackend::poll_configure() {
  Impl& s = *impl_;
  auto finished = s.builds.take_finished();
  if (!finished) return std::nullopt;
  ConfigureOutcome& outcome = finished->outcome;
  const Settings& next = finished->settings;
  if (!finished->build) {
    if (finished->reload) {
      s.kernels->mark_failed(outcome.message);
      s.notices.push_back(s.variant.source.file +
                          " was edited but its build is refused; the previous build keeps running");
    }
    return outcome;
  }
  AllPairsBuild& b = *finished->build;
  // The accelerations of the last step stay valid across a swap (the same positions and force law,
  // from a build that passed the same check), so the swap frame runs no extra force pass: only a new
  // precision (the buffers change type) or softening needs them again.
  const double softening = next.softening.value_or(0.0);
  const bool keep_accelerations = b.variant.real_bytes() == s.state.real_bytes && softening == s.softening;
  // Nothing the swap replaces is released here: unloading the old module or freeing a buffer waits for
  // the whole device. They go to the build queue's teardown worker (cuda/retire.hpp); the new module's
  // kernels were all loaded on the build's worker (KernelModule).
  RetiredObjects old;
  s.state.adapt_to(b.variant, s.stream.get(), &old);  // layout and precision, on the device
  s.variant = b.variant;
  old.add(std::move(s.kernels));
  s.kernels = std::move(b.kernels);
  s.blocks_per_sm = s.pass().force_blocks_per_sm();
  s.state.fit_partials(s.plan(s.state.size()).j_splits, &old);  // the new launch's partial sums, if it splits
  s.softening = softening;
  s.state.eps2 = s.softening * s.softening;
  s.state.dt = next.dt.value_or(0.0);
  s.acc_valid = s.acc_valid && keep_accelerations;
  s.notices.insert(s.notices.end(), s.variant.notices.begin(), s.variant.notices.end());
  outcome.message = b.report;
  if (finished->reload) s.notices.push_back(s.variant.source.file + " reloaded: " + b.report);
  else s.prefetch_neighbours(next.toggles);
  outcome.teardown_ms = s.builds.swapped(next, std::move(old), s.stream.get());
  return outcome;
}

std::vector<BuildProgress> AllPairsBackend::builds() const { return impl_->builds.progress(); }
std::string AllPairsBackend::variant_label() const { return impl_->variant.description; }

void AllPairsBackend::set_comparison(const std::optional<Settings>& b) {
  Impl& s = *impl_;
  s.comparison.clear();
  if (!b) return;
  if (b->algorithm != Algorithm::allpairs) throw InputError("A/B compares two configurations of the running algorithm");
  const double softening = b->softening.value_or(s.softening);
  const AllPairsVariant v = select_allpairs_variant(b->toggles, softening);
  s.comparison.request(v.description, s.make_build(v, softening),
                       [softening, sm_count = s.device.sm_count](AllPairsBuild build) {
                         return std::make_unique<AllPairsComparison>(std::move(build), softening, sm_count);
                       });
}

std::optional<ComparisonSample> AllPairsBackend::compare() {
  Impl& s = *impl_;
  return s.comparison.compare(s.state.size() > 0 && !s.last_force.empty(), s.state, s.pass(), s.plan(s.state.size()));
}

bool AllPairsBackend::comparison_ready() const { return impl_->comparison.ready(); }
bool AllPairsBackend::comparison_accelerations(Accelerations& out) { return impl_->comparison.accelerations(out); }
std::vector<BuildProgress> AllPairsBackend::comparison_builds() const { return impl_->comparison.builds(); }

void AllPairsBackend::set_bodies(const Bodies& bodies) {
  Impl& s = *impl_;
  s.state.set_bodies(bodies, s.variant.layout, s.variant.real_bytes(), s.stream.get());
  s.scales = color_scales(bodies);
  s.acc_valid = false;
}

bool AllPairsBackend::begin_energy(std::uint64_t seed) {
  Impl& s = *impl_;
  DeviceBodies* source = &s.state.bodies;
  if (source->layout() != BodyLayout::float4) {
    s.energy_snapshot.copy_from(s.state.bodies, BodyLayout::float4, s.stream.get());
    source = &s.energy_snapshot;
  }
  const allpairs::Float4Bodies f = source->float4_pair();
  s.energy.begin(reinterpret_cast<const float4*>(f.pos_mass), reinterpret_cast<const float4*>(f.vel), source->size(),
                 s.softening, seed, s.stream.get());
  s.energy_taken.record(s.stream.get());  // the copy, in the steps' order; the slices wait for it
  NBL_CUDA_CHECK(cudaStreamWaitEvent(s.energy_stream.get(), s.energy_taken.get(), 0));
  return true;
}

std::optional<EnergyReport> AllPairsBackend::advance_energy(double budget_ms) {
  // The float4 copy stays allocated for the next measurement: freeing device memory would wait for the device.
  return impl_->energy.advance(budget_ms, impl_->energy_stream.get());
}

double AllPairsBackend::energy_progress() const { return impl_->energy.progress(); }

void AllPairsBackend::get_bodies(Bodies& bodies) { impl_->state.bodies.download(bodies, impl_->stream.get()); }

StepStats AllPairsBackend::step() {
  Impl& s = *impl_;
  StepStats stats;
  const std::size_t n = s.state.size();
  if (n > 0) {
    s.request_reload_if_edited();
    s.ensure_accelerations();
    const AllPairsPass pass = s.pass();
    const cudaStream_t stream = s.stream.get();
    // Under the lab's StepControl a slow force pass runs in slices (cuda/step_slices.hpp), and a step that
    // may be abandoned copies aside the state it changes first.
    const AllPairsLaunch plan = s.plan(n);
    const int slices = pass.slice_count(plan, n, step_control_, s.force_clock.whole_ms(s.variant.description),
                                        s.device.sm_count, s.blocks_per_sm);
    if (slices > 1 && step_control_.abandon) s.snapshot.take(s.state.regions(), stream);
    s.timer.begin(stream);
    // Both halves of the leapfrog add up under one name, as on the CPU.
    s.timer.stage(Stage::integrate, [&] { pass.kick_drift(s.state, stream); });
    s.timer.stage(Stage::force, [&] {
      stats.abandoned = !pass.force_in_slices(s.state, plan, slices, step_control_, stream, s.overlap);
    });
    stats.force_slices = slices;
    if (stats.abandoned) return abandoned_step(s.snapshot, stream);
    s.snapshot.clear();
    s.timer.stage(Stage::integrate, [&] { pass.kick(s.state, stream); });
    NBL_CUDA_CHECK(
        cudaMemcpyAsync(s.status_host.data(), s.state.status.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    s.timer.finish(stats);
    s.stream.synchronize();
    s.last_force.clear();
    for (const StageTime& t : stats.stages)
      if (t.name == "force") s.last_force.push_back(t), s.force_clock.record(slices, t.ms);
    if (s.status_host.data()[0] != 0) {
      stats.non_finite = true;
      s.state.status.fill_bytes(0, stream);
      s.status_host.data()[0] = 0;
      stats.notices.push_back("NaN or inf in the positions or velocities: the simulation blew up");
    }
    stats.interactions = static_cast<double>(n) * static_cast<double>(n);
  }
  stats.notices.insert(stats.notices.begin(), s.notices.begin(), s.notices.end());
  s.notices.clear();
  return stats;
}

void AllPairsBackend::compute_accelerations(Accelerations& out) {
  Impl& s = *impl_;
  const std::size_t n = s.state.size();
  if (n == 0) {
    out.resize(0);
    return;
  }
  s.pass().force(s.state, n, s.plan(n), s.stream.get());
  s.acc_valid = true;
  s.state.download_accelerations(out, n, s.stream.get());
}

void AllPairsBackend::write_vertices(VertexTarget target, ColorMode mode) {
  Impl& s = *impl_;
  const std::size_t n = s.state.size();
  if (n == 0 || !target.data) return;
  s.ensure_accelerations();
  if (!target.on_device) s.vertex_staging.resize(n * 5);
  float* out = target.on_device ? static_cast<float*>(target.data) : s.vertex_staging.data();
  float* keys = reinterpret_cast<float*>(reinterpret_cast<unsigned char*>(out) + vertex_color_key_offset(n));
  s.pass().vertices(s.state, reinterpret_cast<nbl_float4*>(out), keys, mode, s.scales, s.stream.get());
  if (mode == ColorMode::ab_difference) s.comparison.write_keys(keys, n);
  if (!target.on_device) {
    NBL_CUDA_CHECK(cudaMemcpyAsync(target.data, s.vertex_staging.data(), vertex_buffer_bytes(n), cudaMemcpyDeviceToHost,
                                   s.stream.get()));
    s.stream.synchronize();
  }
}

void* AllPairsBackend::cuda_stream() const { return impl_->stream.get(); }

std::vector<KernelInfo> AllPairsBackend::kernel_info() const {
  const Impl& s = *impl_;
  if (!s.kernels) return {};
  return allpairs_kernel_info(*s.kernels, s.plan(s.state.size()));
}

AllPairsBackend::ForceTiming AllPairsBackend::time_force(int warmups, int repeats, std::size_t i_count) {
  Impl& s = *impl_;
  ForceTiming t;
  const std::size_t n = s.state.size();
  if (n == 0) return t;
  t.n = n;
  t.i_count = i_count == 0 ? n : std::min(i_count, n);
  t.launch = s.plan(t.i_count);
  t.ms = s.pass().time_force(s.state, t.i_count, t.launch, warmups, repeats, s.stream.get());
  t.median_ms = t.ms.empty() ? 0 : median(t.ms);
  s.acc_valid = t.i_count == n;  // a sample leaves the other bodies' accelerations stale
  return t;
}

void AllPairsBackend::read_accelerations(Accelerations& out) const {
  impl_->state.download_accelerations(out, impl_->state.size(), impl_->stream.get());
}

void AllPairsBackend::poison_outputs() {
  impl_->state.poison(impl_->stream.get());
  impl_->acc_valid = false;
}

bool AllPairsBackend::poll_reload(bool force) { return impl_->poll_reload(force); }

std::optional<int> AllPairsBackend::unloaded_kernels() const {
  return impl_->kernels ? impl_->kernels->unloaded_kernels() : 0;
}

}  // namespace nbl
