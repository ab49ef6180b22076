#include "app/core/simulation.hpp"

#include <sys/sysinfo.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "app/core/body_count_tuner.hpp"
#include "cuda/device.hpp"
#include "cuda/gpu_backends.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/error.hpp"
#include "sim/resources.hpp"
#include "sim/scenes.hpp"
#include "sim/settings_table.hpp"
#include "sim/statistics.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

namespace {

std::string human_bytes(double bytes) {
  std::ostringstream s;
  s.precision(3);
  if (bytes >= 1e9) s << bytes / 1e9 << " GB";
  else if (bytes >= 1e6) s << bytes / 1e6 << " MB";
  else s << bytes / 1e3 << " kB";
  return s.str();
}

std::size_t host_available_bytes() {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return static_cast<std::size_t>(-1);
  return static_cast<std::size_t>(info.freeram + info.bufferram) * info.mem_unit;
}

// Refuse an n that cannot fit before anything is allocated.
void check_fits(std::size_t n, std::size_t bytes_per_body, std::size_t available, const std::string& where) {
  const double need = static_cast<double>(n) * static_cast<double>(bytes_per_body);
  if (need > 0.9 * static_cast<double>(available)) {
    const auto max_n =
        static_cast<std::size_t>(0.9 * static_cast<double>(available) / static_cast<double>(bytes_per_body));
    throw InputError(std::to_string(n) + " bodies need about " + human_bytes(need) + " of " + where +
                     " memory, but only " + human_bytes(static_cast<double>(available)) +
                     " is available; use at most -n " + std::to_string(max_n));
  }
}

constexpr std::size_t kMinMeasuredBodies = std::size_t(1) << 14;

}  // namespace

std::size_t resolve_body_count(const Settings& settings, bool have_gpu) {
  if (settings.body_count) return static_cast<std::size_t>(*settings.body_count);
  if (settings.scene == Scene::kepler || !have_gpu)
    return default_body_count(settings.scene, settings.algorithm, have_gpu);
  return measured_gpu_body_count(settings);
}

// The GPU in front of us, timed: a few steps of the same scene and algorithm at the probe's n (CUDA
// events, after one step that loads the kernels), scaled to the frame budget by the cost law.
std::size_t measured_gpu_body_count(const Settings& settings) {
  constexpr int kTimedSteps = 3;
  Settings probe = settings;
  probe.body_count = static_cast<std::int64_t>(probe_body_count(settings.algorithm));
  probe.backend = BackendKind::gpu;
  Simulation simulation(probe);
  simulation.step();
  std::vector<double> step_ms;
  for (int i = 0; i < kTimedSteps; ++i) step_ms.push_back(simulation.step().total_ms);
  const double frame_ms = median(step_ms) * std::max(1, settings.steps_per_frame);
  // At most what half the free device memory holds, and what the host builds in a few seconds.
  const std::size_t memory_n =
      device_memory_free_total().first / 2 / gpu_bytes_per_body(settings, std::size_t(1) << 24);
  const std::size_t max_n = std::clamp<std::size_t>(memory_n, kMinMeasuredBodies, std::size_t(1) << 24);
  return scale_body_count(static_cast<std::size_t>(*probe.body_count), frame_ms, kStartupSimulationBudgetMs,
                          cost_exponent(settings.algorithm), kMinMeasuredBodies, max_n);
}

Simulation::Simulation(const Settings& settings, const std::string& load_file)
    : Simulation(settings, load_file, BackendFactory{}) {}

Simulation::Simulation(const Settings& settings, const std::string& load_file, BackendFactory factory)
    : factory_(std::move(factory)), settings_(settings), load_file_(load_file) {
  validate(settings_);
  if (!settings_.kernels_dir.empty()) check_kernels_workspace(settings_.kernels_dir);
  if (load_file_.empty()) {
    initial_ = make_initial_bodies(settings_);
  } else {
    Snapshot snapshot = read_snapshot(load_file_);
    initial_ = std::move(snapshot.bodies);
    time_ = initial_time_ = snapshot.time;  // a saved run goes on from where it was
    file_ = std::move(snapshot.meta);
  }
  groups_ = groups_of(settings_, initial_, !load_file_.empty(), file_);
  dt_ = effective_dt(settings_, initial_.size());
  softening_ = effective_softening(settings_, initial_.size());
  backend_ = make_backend(resolved_settings(), notice_);
  backend_->set_bodies(initial_);
}

std::vector<BodyGroup> Simulation::groups_of(const Settings& settings, const Bodies& bodies, bool from_file,
                                             const SnapshotMeta& file) {
  const std::size_t n = bodies.size();
  if (!file.types.empty()) {
    // A snapshot's particle types, each drawn (none is a scene's halo, hidden by default).
    std::vector<BodyGroup> groups;
    for (const ParticleTypeRange& t : file.types) {
      double mass = 0;
      for (std::size_t i = t.begin; i < t.end && i < n; ++i) mass += bodies.mass[i];
      groups.push_back({t.begin, t.end, particle_type_name(t.type), mass});
    }
    return groups;
  }
  if (from_file && (!settings.body_count || static_cast<std::size_t>(*settings.body_count) != n))
    return single_group(n);
  return scene_groups(settings.scene, n);
}

void Simulation::restore(const Settings& settings, Snapshot snapshot) {
  validate(settings);
  if (snapshot.bodies.size() == 0) throw InputError("a bookmark needs at least one body");
  Settings s = settings;
  const std::size_t n = snapshot.bodies.size();
  Settings resolved = s;
  resolved.dt = effective_dt(s, n);
  resolved.softening = effective_softening(s, n);
  std::string notice;
  auto backend = make_backend(resolved, notice);
  backend->set_bodies(snapshot.bodies);
  // Committed: nothing below throws.
  groups_ = groups_of(s, snapshot.bodies, true, snapshot.meta);
  file_ = std::move(snapshot.meta);
  backend_ = std::move(backend);
  notice_ = std::move(notice);
  initial_ = std::move(snapshot.bodies);
  time_ = initial_time_ = snapshot.time;
  load_file_.clear();
  settings_ = s;
  dt_ = *resolved.dt;
  softening_ = *resolved.softening;
  pending_.reset();
}

Bodies Simulation::make_initial_bodies(const Settings& settings) {
  const bool use_gpu = settings.backend != BackendKind::cpu && query_device().has_value() &&
                       (settings.backend == BackendKind::gpu || KernelEngine::nvrtc_available());
  const std::size_t n = resolve_body_count(settings, use_gpu);
  if (use_gpu) check_fits(n, gpu_bytes_per_body(settings, n), device_memory_free_total().first, "GPU");
  // The host always holds the initial state (and the CPU backend the live one).
  check_fits(n, cpu_bytes_per_body(settings.algorithm), host_available_bytes(), "host");
  return make_scene(settings.scene, n, settings.seed);
}

std::unique_ptr<Backend> Simulation::make_backend(const Settings& settings, std::string& notice) const {
  notice.clear();
  if (factory_) {
    auto backend = factory_(settings);
    backend->configure(settings);
    return backend;
  }
  std::string why;
  const auto device = settings.backend == BackendKind::cpu ? std::nullopt : query_device(&why);
  if (settings.backend == BackendKind::gpu && !device) throw Error("--backend gpu was asked for, but " + why);
  std::string nvrtc_missing;
  const bool use_gpu =
      device && (settings.backend == BackendKind::gpu || KernelEngine::nvrtc_available(&nvrtc_missing));
  std::unique_ptr<Backend> backend;
  if (use_gpu) {
    backend = settings.algorithm == Algorithm::allpairs ? make_gpu_allpairs(settings) : make_gpu_barneshut(settings);
  } else {
    if (settings.backend == BackendKind::automatic)
      notice = device ? "a GPU, but no NVRTC to compile its kernels: running on the CPU backend (" + nvrtc_missing + ")"
                      : "no GPU (" + why + "): running on the CPU backend";
    backend = settings.algorithm == Algorithm::allpairs ? make_cpu_allpairs(settings) : make_cpu_barneshut(settings);
  }
  backend->configure(settings);
  return backend;
}

Settings Simulation::resolved_settings() const {
  Settings s = settings_;
  s.dt = dt_;
  s.softening = softening_;
  return s;
}

std::string Simulation::body_count_origin() const {
  if (settings_.body_count || !load_file_.empty()) return "";
  return default_body_count_reason(settings_.scene, settings_.algorithm, backend_->on_gpu());
}

Settings Simulation::effective_settings() const {
  Settings s = resolved_settings();
  s.body_count = static_cast<std::int64_t>(body_count());
  return s;
}

bool Simulation::needs_reset(const Settings& before, const Settings& after) {
  for (const SettingDef& s : kSettings)
    if (s.group == SettingGroup::restart && !(s.access.get(before) == s.access.get(after))) return true;
  return false;
}

// Everything new is built on the side and committed only once it all succeeded: a failure (n too large,
// no GPU for --backend gpu, a backend that cannot start) leaves the running simulation as it was.
void Simulation::apply(const Settings& settings) {
  validate(settings);
  if (!settings.kernels_dir.empty()) check_kernels_workspace(settings.kernels_dir);
  const bool reset = needs_reset(settings_, settings);
  const bool new_backend = reset || settings.algorithm != settings_.algorithm ||
                           settings.backend != settings_.backend ||
                           settings.kernels_dir != settings_.kernels_dir;  // its engine compiles from that folder

  Bodies initial = reset ? make_initial_bodies(settings) : Bodies{};
  const std::size_t n = reset ? initial.size() : body_count();
  Settings resolved = settings;
  resolved.dt = effective_dt(settings, n);
  resolved.softening = effective_softening(settings, n);

  if (!new_backend) {
    backend_->configure(resolved);
  } else {
    std::string notice;
    auto backend = make_backend(resolved, notice);
    if (reset) {
      backend->set_bodies(initial);
    } else {
      Bodies current;
      backend_->get_bodies(current);
      backend->set_bodies(current);
    }
    backend_ = std::move(backend);
    notice_ = std::move(notice);
  }
  // Committed: nothing below throws.
  if (reset) {
    groups_ = scene_groups(settings.scene, initial.size());
    initial_ = std::move(initial);
    load_file_.clear();
    file_ = {};
    time_ = initial_time_ = 0;
  }
  settings_ = settings;
  dt_ = *resolved.dt;
  softening_ = *resolved.softening;
  pending_.reset();  // whatever was building is superseded by what runs now
}

bool Simulation::request(const Settings& settings) {
  validate(settings);
  if (!settings.kernels_dir.empty()) check_kernels_workspace(settings.kernels_dir);  // as apply() does
  const bool new_backend = needs_reset(settings_, settings) || settings.algorithm != settings_.algorithm ||
                           settings.backend != settings_.backend;
  if (new_backend) {
    apply(settings);
    pending_.reset();
    return true;
  }
  Settings resolved = settings;
  resolved.dt = effective_dt(settings, body_count());
  resolved.softening = effective_softening(settings, body_count());
  if (backend_->configure_async(resolved)) {  // nothing to build: it runs now
    settings_ = settings;
    dt_ = *resolved.dt;
    softening_ = *resolved.softening;
    pending_.reset();
    return true;
  }
  pending_ = settings;
  pending_dt_ = *resolved.dt;
  pending_softening_ = *resolved.softening;
  return false;
}

void Simulation::set_comparison(const std::optional<Settings>& b) {
  if (!b) {
    backend_->set_comparison(std::nullopt);
    return;
  }
  validate(*b);
  if (b->algorithm != settings_.algorithm)
    throw InputError("A/B compares two configurations of the running algorithm (" +
                     std::string(to_string(settings_.algorithm)) + ")");
  Settings resolved = *b;
  resolved.dt = dt_;
  resolved.softening = softening_;
  backend_->set_comparison(resolved);
}

std::optional<ForceError> Simulation::comparison_force_error(std::size_t sample, std::uint64_t seed) {
  Accelerations b;
  if (!backend_->comparison_accelerations(b)) return std::nullopt;
  const Bodies now = bodies();
  const auto indices = sample_indices(now.size(), sample, seed);
  return nbl::force_error(select(b, indices), reference_accelerations(now, softening_, indices));
}

std::optional<ConfigureOutcome> Simulation::poll() {
  std::optional<ConfigureOutcome> outcome = backend_->poll_configure();
  if (!outcome || !pending_) return outcome;
  if (outcome->accepted) {
    settings_ = *pending_;
    dt_ = pending_dt_;
    softening_ = pending_softening_;
  } else {
    last_refusal_ = outcome->label + ": " + outcome->message;
  }
  pending_.reset();
  return outcome;
}

void Simulation::reset() {
  backend_->set_bodies(initial_);
  time_ = initial_time_;
}

StepStats Simulation::step() {
  backend_->set_step_control(step_control_);  // a backend made since the last step has none yet
  StepStats stats = backend_->step();
  if (!stats.abandoned) time_ = time_ + dt_;
  return stats;
}

Bodies Simulation::bodies() {
  Bodies b;
  backend_->get_bodies(b);
  return b;
}

Snapshot Simulation::snapshot() {
  Snapshot s;
  s.time = time_;
  s.bodies = bodies();
  s.meta = file_;
  s.meta.description.clear();
  if (s.meta.types.empty()) {
    // A scene's halos are dark matter (PartType1), its other bodies stars (PartType4).
    for (const BodyGroup& g : groups_) {
      const int type = g.dark ? 1 : 4;
      if (!s.meta.types.empty() && s.meta.types.back().type == type && s.meta.types.back().end == g.begin)
        s.meta.types.back().end = g.end;
      else s.meta.types.push_back({type, g.begin, g.end});
    }
  }
  if (s.meta.ids.size() != s.bodies.size()) s.meta.ids.clear();
  return s;
}

EnergyReport Simulation::energy() {
  // The device's pass when the backend has one (exact up to 4M bodies), else a host copy.
  if (backend_->begin_energy(7)) {
    std::optional<EnergyReport> report;
    while (!(report = backend_->advance_energy(1e12))) {
    }
    return *report;
  }
  return nbl::energy(bodies(), softening_);
}

ForceError Simulation::force_error(std::size_t sample, std::uint64_t seed) {
  const Bodies b = bodies();
  Accelerations approx;
  backend_->compute_accelerations(approx);
  const auto indices = sample_indices(b.size(), sample, seed);
  return nbl::force_error(select(approx, indices), reference_accelerations(b, softening_, indices));
}

}  // namespace nbl
