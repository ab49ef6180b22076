// Runs a Script (app/core/script.hpp) against what it drives: the lab (window or offscreen) or `render`. The
// runner decides when each entry runs and applies settings through the target's SettingsEditor, the
// panel's own path; everything else is one of ScriptTarget's hooks, which each driver implements.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/core/script.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/stats_history.hpp"
#include "sim/error.hpp"

namespace nbl {

// What a script can ask of a run. Hooks throw Error when they fail; the runner names the entry.
class ScriptTarget {
 public:
  virtual ~ScriptTarget() = default;

  // Why this run cannot do `action` at all ("" when it can), asked for every entry before the run starts.
  virtual std::string cannot(ScriptAction action) const = 0;

  // "set" and "ladder_rung" edit these settings, as the panel does; the run applies them in its next
  // settings sync (the lab's apply_settings). restart() follows edits of scene, N or seed.
  virtual SettingsEditor& editor() = 0;
  virtual void restart() = 0;

  virtual void screenshot(const std::filesystem::path& file) = 0;  // a PNG of this frame, when it is drawn
  virtual void print_stats() = 0;
  virtual void set_paused(bool paused) = 0;
  virtual void quit() = 0;  // this frame is the last

  // Input, through ImGui's IO as a device's would go. `at` is in ImGui's display units; none: the
  // centre of the scene.
  virtual void press_key(int glfw_key, bool ctrl) = 0;
  virtual void drag(MouseButton button, std::optional<std::array<float, 2>> from, std::array<float, 2> by,
                    int frames) = 0;
  virtual void scroll(std::optional<std::array<float, 2>> at, float steps) = 0;

  // A/B on the same state: B is the running settings with `b`'s toggles and theta.
  virtual void ab_start(const SettingsChange& b) = 0;
  virtual void ab_stop() = 0;
  virtual void ab_swap() = 0;
  virtual void ab_make_current() = 0;

  // The guided tour: step `step` (0-based) of `kind`. The lab opens the tour there; a run
  // without a panel (render) sets the step's algorithm and toggles, as the lab's tour does.
  virtual void tour(TourKind kind, std::size_t step) = 0;

  // Predict, then measure (app/core/teaching/tour.hpp): the speed-up the class expects of the step the
  // open tour waits on, or of its next step (none: skipped; `tutorial`: the tutorial's figure), which then
  // runs; the mode switched on or off (each next step then waits for a prediction); and the session's
  // table written as CSV or Markdown. A run without a guided tour refuses both
  // (cannot()); these defaults say so if one is asked anyway.
  virtual void predict(std::optional<double> speedup, bool tutorial) {
    (void)speedup, (void)tutorial;
    throw Error("this run has no guided tour to predict in");
  }
  virtual void set_predicting(bool on) {
    (void)on;
    throw Error("this run has no guided tour to predict in");
  }
  virtual void export_predictions(const std::filesystem::path& file) {
    (void)file;
    throw Error("this run has no guided tour, so no predictions to export");
  }
};

class ScriptRunner {
 public:
  explicit ScriptRunner(Script script) : script_(std::move(script)) {}

  // Before the run: every entry's action is one the run can do (`cannot` says why not), and every
  // screenshot can be written (sim/file_util's output check). Throws InputError naming the entry.
  void check(const std::function<std::string(ScriptAction)>& cannot) const;
  void check(const ScriptTarget& target) const {
    check([&target](ScriptAction a) { return target.cannot(a); });
  }

  // Runs, in file order, the entries due by `frame` and `seconds` (since the first frame began). Returns
  // the actions it ran, for the trace. An Error from a hook is rethrown naming the entry.
  std::vector<ScriptAction> run_due(std::int64_t frame, double seconds, ScriptTarget& target);

  const Script& script() const { return script_; }
  std::size_t next() const { return next_; }  // entries run so far
  bool finished() const { return next_ >= script_.entries.size(); }
  // "3 of 31 entries did not run: the session ended at frame 120 before entry 29 (line 31, t = 28 s)".
  std::string unfinished_note(std::int64_t frames_run) const;

 private:
  void execute(const ScriptEntry& entry, ScriptTarget& target);

  Script script_;
  std::size_t next_ = 0;
};

// The settings edits of `change` through the panel's setters (and a restart when they need one).
void apply_settings_change(const SettingsChange& change, ScriptTarget& target);
// A tour step's algorithm and toggles (the ones it runs: Tour::running_toggles) through the panel's setters.
void apply_tour_step(TourKind kind, std::size_t step, SettingsEditor& editor);

// What a "stats" entry prints: one line of the live numbers (frame rate and split, the step and its
// stages, interactions/s, what runs, builds in flight).
std::string stats_line(std::int64_t frame, double seconds, const LabStats& stats, const Simulation& simulation);

}  // namespace nbl
