// The panel's working copy of the settings, and the one way it reaches the simulation: the panel
// edits draft() (through the setters below or directly, then changed()), and the frame loop calls
// sync() once per frame, which hands the result to Simulation::apply(). Tests drive the lab through
// the same functions. Nothing here knows ImGui.
//
// What applies when is each setting's group in kSettings (sim/settings_table.hpp): kernel toggles and
// the live group (dt, softening, theta, algorithm, backend, steps per frame) apply at the next sync();
// the restart group (scene, N, seed) waits for a restart (the Reset button or R), because it throws the
// current bodies away; the view group never touches the simulation (the renderer and the window read it
// from draft()).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/core/simulation.hpp"
#include "sim/settings.hpp"
#include "sim/settings_table.hpp"

namespace nbl {

class SettingsEditor {
 public:
  explicit SettingsEditor(const Settings& live) : draft_(live) {}

  const Settings& draft() const { return draft_; }
  Settings& draft() { return draft_; }  // edit, then changed()
  ViewSettings& view() { return draft_.view; }
  void changed() { dirty_ = true; }
  bool pending() const { return dirty_; }  // edits that the next sync() hands over

  // One scalar setting, applied as its group says. The panel's widgets keep to the setting's range; a
  // value outside it is refused by the next sync(), which says why.
  void set(const SettingDef& setting, const SettingValue& value);
  void set_toggle(const ToggleDef& toggle, int value);
  // Typed shorthands of set(), for code that names the field.
  void set_algorithm(Algorithm algorithm);
  void set_backend(BackendKind backend);
  void set_opening_angle(double theta);
  void set_dt(std::optional<double> dt);
  void set_softening(std::optional<double> softening);
  void set_steps_per_frame(int steps);
  // Restart fields: wait for request_restart().
  void set_scene(Scene scene);
  void set_body_count(std::optional<std::int64_t> n);
  void set_seed(std::uint64_t seed);
  void request_restart() {
    restart_ = true;
    dirty_ = true;
  }
  bool restart_pending(const Settings& live) const;

  // A/B's B: the settings of the variant compared with the running one, A's with changes, each a toggle
  // or a row of kSettings that varies_in_ab (theta); B starts as a copy of the draft when there is none.
  const std::optional<Settings>& comparison() const { return comparison_; }
  void start_comparison(const Settings& b);  // B = b (the panel starts from a copy of the draft)
  void set_comparison(const SettingDef& setting, const SettingValue& value);  // a row that varies_in_ab
  void set_comparison_toggle(const ToggleDef& toggle, int value);
  void set_comparison_theta(double theta);  // typed shorthand of set_comparison()
  void clear_comparison();
  // Whether B changed since the last call (the frame loop hands B to the simulation then).
  bool take_comparison_change() { return std::exchange(comparison_dirty_, false); }

  // Replaces everything (a loaded settings file or preset), restart fields included.
  void load(const Settings& settings);
  // The simulation took these settings itself (a bookmark): the draft becomes them, nothing pending.
  void adopt(const Settings& settings) {
    draft_ = settings;
    dirty_ = restart_ = false;
  }

  // Hands pending edits to the simulation. Returns the message when the simulation refused them
  // (bad value, a kernel that does not compile, no GPU for --backend gpu); the draft then returns to
  // what is running, except for the view. Returns true in `restarted` when the bodies were rebuilt.
  // With `asynchronous` (the lab), kernel builds happen beside the running code (Simulation::request):
  // a refusal arrives later, through Simulation::poll(), and then refused() restores the draft.
  std::optional<std::string> sync(Simulation& simulation, bool* restarted = nullptr, bool asynchronous = false);
  // A requested build was refused: the draft returns to what runs (keeping the view and any pending
  // scene / N / seed), as sync() does when apply() throws.
  void refused(const Simulation& simulation);

  // Who asked for the edits the next sync() hands over, when it was not the panel: a script's entry
  // names itself ("talk.json: entry 3 (line 7), \"set\" at frame 60"), so that a refusal of its edits,
  // now or when their kernel build fails, can be blamed on it. sync() takes it.
  void set_origin(std::string origin) { origin_ = std::move(origin); }
  struct Refusal {
    std::string origin;   // set_origin's text
    std::string message;  // why the edits did not apply
  };
  // The refusals of edits that had an origin, oldest first: a scripted run fails with them.
  const std::vector<Refusal>& refusals() const { return refusals_; }

  // The settings as they run, with the view as the panel has it: what "Save settings" writes.
  Settings current(const Simulation& simulation) const;

 private:
  Settings draft_;
  bool dirty_ = false;
  bool restart_ = false;
  std::optional<Settings> comparison_;
  bool comparison_dirty_ = false;
  std::string origin_;           // of the pending edits
  std::string building_origin_;  // of the edits whose kernel build is pending
  std::vector<Refusal> refusals_;
};

}  // namespace nbl
