// Scripted sessions (`--script FILE`): a JSON file of entries, each at a frame number or a time, each one
// action: change settings (as the panel does), walk to a ladder rung, take a screenshot, print the stats,
// pause, resume, quit, press a key, drag or scroll the mouse, or drive A/B. One file drives the window,
// `nbodylab --offscreen` and `nbodylab render`, so a demo, a test and a measurement are the same file.
// docs/scripts.md describes the format; this file owns it.
//
// Reading is strict and happens before the run starts: not JSON, an unknown key or action, a bad value,
// or entries out of order is an InputError naming the entry and its line. What a particular run cannot
// do (render has no panel to press keys on) is refused before the run as well (ScriptRunner::check).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/settings.hpp"
#include "sim/settings_table.hpp"
#include "sim/tour.hpp"

namespace nbl {

enum class ScriptAction {
  set,          // change settings: any key of a settings file
  ladder_rung,  // the all-pairs toggles of one rung of the ladder (sim/ladder.hpp)
  screenshot,   // a PNG of this frame
  stats,        // print the live numbers
  pause,
  resume,
  quit,
  key,       // press one of the lab's keys (app/core/lab_commands.hpp)
  drag,      // a mouse drag over several frames
  wheel,     // mouse wheel steps
  ab_start,  // compare the running variant (A) with B: A's settings with some toggles / theta changed
  ab_stop,
  ab_swap,
  ab_make_current,
  tour,                // a step of the guided tour (sim/tour.hpp): the lab opens it, render runs its toggles
  predict,             // predict, then measure: the speed-up expected of the tour's next step, which then runs
  export_predictions,  // the tour session's table of predictions and measurements, as CSV or Markdown
};

struct ScriptActionName {
  ScriptAction action;
  std::string_view name;
};
inline constexpr std::array kScriptActions = {
    ScriptActionName{ScriptAction::set, "set"},
    ScriptActionName{ScriptAction::ladder_rung, "ladder_rung"},
    ScriptActionName{ScriptAction::screenshot, "screenshot"},
    ScriptActionName{ScriptAction::stats, "stats"},
    ScriptActionName{ScriptAction::pause, "pause"},
    ScriptActionName{ScriptAction::resume, "resume"},
    ScriptActionName{ScriptAction::quit, "quit"},
    ScriptActionName{ScriptAction::key, "key"},
    ScriptActionName{ScriptAction::drag, "drag"},
    ScriptActionName{ScriptAction::wheel, "wheel"},
    ScriptActionName{ScriptAction::ab_start, "ab_start"},
    ScriptActionName{ScriptAction::ab_stop, "ab_stop"},
    ScriptActionName{ScriptAction::ab_swap, "ab_swap"},
    ScriptActionName{ScriptAction::ab_make_current, "ab_make_current"},
    ScriptActionName{ScriptAction::tour, "tour"},
    ScriptActionName{ScriptAction::predict, "predict"},
    ScriptActionName{ScriptAction::export_predictions, "export_predictions"},
};
std::string_view to_string(ScriptAction action);

// Settings edits, each through the editor's setter for its kind (a "set" entry; B's changes for ab_start).
struct SettingsChange {
  std::vector<std::pair<const SettingDef*, SettingValue>> settings;
  std::vector<std::pair<const ToggleDef*, int>> toggles;
  std::optional<std::string> kernels_dir;
  bool restarts() const;  // changes scene, N or seed: the bodies are rebuilt, as by the panel's Restart
};

enum class MouseButton { left = 0, right = 1, middle = 2 };

struct ScriptEntry {
  std::size_t index = 0;  // 1-based position in "events"
  int line = 0;           // where the entry starts in the file
  // When: exactly one of these (frame >= 0, or seconds since the session's first frame began).
  std::optional<std::int64_t> frame;
  std::optional<double> time_s;
  ScriptAction action = ScriptAction::stats;

  SettingsChange change;       // set; ab_start (toggles and theta only)
  std::size_t rung = 0;        // ladder_rung: index into kLadder
  std::filesystem::path file;  // screenshot, export_predictions (.csv or .md)
  int key = -1;                // key: a GLFW key code of kKeyBindings
  bool ctrl = false;
  MouseButton button = MouseButton::left;        // drag
  std::optional<std::array<float, 2>> position;  // drag "from", wheel "at" (default: the scene's centre)
  std::array<float, 2> by{0, 0};                 // drag: pixels; wheel: by[0] steps
  int frames = 10;                               // drag: frames the move takes
  TourKind tour = TourKind::allpairs;            // tour: which one, and its step (0-based)
  std::size_t tour_step = 0;
  // predict: the speed-up expected (a number), the tutorial's figure, or skipped (neither); or, with
  // "mode", predict-then-measure switched on or off (the tour's checkbox) without predicting
  std::optional<double> prediction;
  bool predict_tutorial = false;
  std::optional<bool> predict_mode;

  std::string where() const;  // "entry 3 (line 7)"
  std::string when() const;   // "frame 60" or "t = 2.5 s"
};

struct Script {
  std::string name;  // the file, for messages
  std::string description;
  std::vector<ScriptEntry> entries;
  bool quits() const;  // has a quit entry (an offscreen session needs an end)
};

// Parses a script; `name` prefixes every message. Throws InputError.
Script parse_script(const std::string& text, const std::string& name);
// Reads FILE; a bare file name that does not exist is looked up among the shipped scripts
// (assets/scripts/ of the program's resources), so `--script toggle-every-second.json` works anywhere.
Script load_script(const std::filesystem::path& file);
std::filesystem::path resolve_script_path(const std::filesystem::path& file);

// The key names a "key" entry takes ("space", "h", "ctrl+q", ...), from kKeyBindings.
std::vector<std::string> script_key_names();

}  // namespace nbl
