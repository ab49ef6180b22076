// A running simulation: the bodies, the backend that steps them, and the settings they were made
// with. The window, `bench` and `render` all drive one of these; the panel edits a Settings value and
// hands it to apply(). Knows nothing of GL or ImGui.
#pragma once
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "sim/backend.hpp"
#include "sim/diagnostics.hpp"
#include "sim/scenes.hpp"
#include "sim/snapshot.hpp"
#include "sim/settings.hpp"

namespace nbl {

class Simulation {
 public:
  // Builds the bodies (scene, or the snapshot `load_file` when not empty: Tipsy or HDF5, sim/snapshot.hpp) and the backend the
  // settings ask for. Throws InputError for bad settings or an n too large for the memory it needs.
  explicit Simulation(const Settings& settings, const std::string& load_file = {});
  // The same, with every backend made by `factory` (given the resolved settings) instead of the four of
  // sim/ and cuda/: tests run the lab on a deliberately slow or failing backend this way.
  using BackendFactory = std::function<std::unique_ptr<Backend>(const Settings& resolved)>;
  Simulation(const Settings& settings, const std::string& load_file, BackendFactory factory);

  // Applies new settings. Toggles, dt, softening and theta take effect at the next step; a new
  // algorithm or backend keeps the bodies; a new scene, n or seed rebuilds them (see needs_reset()).
  // Throws (InputError, Error) without changing anything when the new settings cannot be applied.
  void apply(const Settings& settings);
  static bool needs_reset(const Settings& before, const Settings& after);

  // Like apply(), without stalling on kernel builds (the lab): toggles and physics that need new kernel
  // code are compiled and checked on worker threads while the running code keeps stepping, and poll()
  // adopts them between steps. A restart, or a new algorithm or backend, applies at once. Returns true
  // when the settings run now. Throws like apply() for bad settings.
  bool request(const Settings& settings);
  // Between steps: adopts the newest requested build when it is ready, or reports that it was refused
  // (then the running settings stay). Nothing when no request is pending or it is still building.
  std::optional<ConfigureOutcome> poll();
  bool building() const { return pending_.has_value(); }
  // What the last refused build said ("label: message"), for whoever asked for it.
  const std::string& last_refusal() const { return last_refusal_; }
  const Settings& requested() const { return pending_ ? *pending_ : settings_; }
  std::vector<BuildProgress> builds() const { return backend_->builds(); }

  // A/B (sim/comparison.hpp): B is `b`'s toggles (and theta) on the running algorithm, with A's dt and
  // softening; its kernels build beside the running ones. compare() computes B's forces from the current
  // state once B is built. A new backend (algorithm, restart) clears B.
  void set_comparison(const std::optional<Settings>& b);
  std::optional<ComparisonSample> compare() { return backend_->compare(); }
  std::vector<BuildProgress> comparison_builds() const { return backend_->comparison_builds(); }
  bool comparison_ready() const { return backend_->comparison_ready(); }
  // B's force error against the double direct sum on `sample` bodies, from B's last comparison.
  std::optional<ForceError> comparison_force_error(std::size_t sample = 1024, std::uint64_t seed = 11);
  void reset();  // back to the initial conditions of the current settings

  // A bookmark (app/core/bookmarks.hpp): these settings with the snapshot's bodies at its time, on a new
  // backend. The snapshot becomes the initial state (Reset comes back to it). Throws like the
  // constructor, without changing anything, when the settings or the bodies cannot run.
  void restore(const Settings& settings, Snapshot snapshot);

  StepStats step();
  // How step() asks the backend to run (sim/backend.hpp): the lab's stepping thread sets it once; every
  // backend the simulation makes later gets it too. bench and render never set it.
  void set_step_control(const StepControl& control) { step_control_ = control; }

  Backend& backend() { return *backend_; }
  const Backend& backend() const { return *backend_; }
  const Settings& settings() const { return settings_; }
  // The settings with what the unset ones resolved to (N, dt, softening): what the panel shows as "auto".
  Settings effective_settings() const;
  std::size_t body_count() const { return backend_->body_count(); }
  double time() const { return time_.load(); }  // the stepping thread advances it (app/core/stepper.hpp)
  double dt() const { return dt_; }
  double softening() const { return softening_; }

  // Why N is what it is when neither -n nor a snapshot chose it ("the default for Barnes-Hut on a GPU;
  // -n chooses"), for the summary lines of bench and render; "" when the user chose.
  std::string body_count_origin() const;

  // One line for the user when the backend is not what they asked for (e.g. "no GPU: ...").
  const std::string& notice() const { return notice_; }

  // The groups the bodies were born in (the collision's two galaxies, by index range; sim/scenes.hpp):
  // the scene's; for bodies read from a file, its particle types when it has them (HDF5), else the
  // scene's when the settings name the file's N (a bookmark or a saved run of that scene: bodies keep
  // their order), else one group.
  const std::vector<BodyGroup>& body_groups() const { return groups_; }

  Bodies bodies();  // a host copy of the current state
  // The current state as a snapshot to write (sim/snapshot.hpp): the bodies with the time, and what the
  // file they came from said of them (types, IDs, units); a scene's bodies typed by their groups.
  Snapshot snapshot();
  // What the loaded snapshot held and how its numbers became the lab's, a line each (an HDF5 file's
  // types, units, comoving and little-h factors); empty for a scene or a Tipsy file.
  const std::vector<std::string>& file_description() const { return file_.description; }
  EnergyReport energy();
  // Force error of the configured force path against the double direct sum, on `sample` bodies.
  ForceError force_error(std::size_t sample = 1024, std::uint64_t seed = 11);

 private:
  static Bodies make_initial_bodies(const Settings& settings);
  static std::vector<BodyGroup> groups_of(const Settings& settings, const Bodies& bodies, bool from_file,
                                          const SnapshotMeta& file);
  std::unique_ptr<Backend> make_backend(const Settings& resolved, std::string& notice) const;
  // The settings with dt and softening filled in (scene defaults where unset): what backends see.
  Settings resolved_settings() const;

  BackendFactory factory_;
  Settings settings_;
  std::string load_file_;
  std::unique_ptr<Backend> backend_;
  Bodies initial_;
  std::vector<BodyGroup> groups_;
  SnapshotMeta file_;  // what the loaded file said of its bodies (empty for a scene)
  std::atomic<double> time_ = 0;
  double dt_ = 0, softening_ = 0;
  double initial_time_ = 0;  // of initial_: 0 for a scene, the snapshot's for a file or bookmark
  std::string notice_;
  std::optional<Settings> pending_;  // requested, building (resolved dt and softening below)
  StepControl step_control_;
  double pending_dt_ = 0, pending_softening_ = 0;
  std::string last_refusal_;
};

// The number of bodies the settings ask for, or this machine's interactive default when unset: on the
// CPU a fixed rule per algorithm; on a GPU measured_gpu_body_count().
std::size_t resolve_body_count(const Settings& settings, bool have_gpu);

// A short timed probe of the GPU present (a few steps at probe_body_count(), CUDA events), scaled by
// the algorithm's cost law to kStartupSimulationBudgetMs per frame (app/core/body_count_tuner.hpp).
std::size_t measured_gpu_body_count(const Settings& settings);

}  // namespace nbl
