// What the user can ask the lab for, by key or by panel button, and the one table of key bindings
// (the panel's "Keys" section and docs/window.md list the same rows).
#pragma once
#include <array>
#include <string_view>

namespace nbl {

enum class LabCommand {
  toggle_pause,
  step,   // one step while paused
  reset,  // back to the initial conditions, or restart with a new scene / N / seed
  fit_camera,
  toggle_fullscreen,
  toggle_vsync,
  screenshot,
  toggle_panel,
  quit,
  measure_force_error,
  run_ladder,
  save_settings,
  load_settings,
  load_preset,
  ab_swap,          // A/B: A takes B's settings, B takes A's
  ab_make_current,  // A/B: A takes B's settings, B is cleared
  ab_clear,
  toggle_recording,  // start or stop recording the window (Panel's record target, app/core/recorder.hpp)
  toggle_presenter,  // presenter layout on or off
  toggle_follow,     // the camera following the bound bodies
  save_bookmark,     // the whole state, under the panel's bookmark name (app/core/bookmarks.hpp)
  load_bookmark,     // the panel's selected bookmark
  tour_allpairs,     // the guided tour (app/core/teaching/tour.hpp): open it on the all-pairs ladder
  tour_barneshut,    // ... or on the Barnes-Hut kernels
  tour_next,
  tour_previous,
  tour_close,
  tour_toggle_predicting,   // predict, then measure: on or off
  tour_run_step,            // the awaited step runs with the prediction typed in the tour window
  tour_skip_prediction,     // the awaited step runs without a prediction
  tour_export_predictions,  // the session's table as CSV and Markdown, beside the screenshots
};

struct KeyBinding {
  int key;    // GLFW key code
  bool ctrl;  // with Ctrl held
  LabCommand command;
  std::string_view keys;  // as shown to the user
  std::string_view description;
};

// GLFW key codes (GLFW/glfw3.h), spelled out so this header needs no GLFW include.
namespace keys {
inline constexpr int space = 32, c = 67, f = 70, h = 72, p = 80, q = 81, r = 82, s = 83, v = 86;
inline constexpr int f9 = 298, f10 = 299, f11 = 300, f12 = 301;
inline constexpr int right = 262, left = 263, page_up = 266, page_down = 267;
}  // namespace keys

inline constexpr std::array kKeyBindings = {
    KeyBinding{keys::space, false, LabCommand::toggle_pause, "Space / P", "pause or resume"},
    KeyBinding{keys::p, false, LabCommand::toggle_pause, "", ""},
    KeyBinding{keys::s, false, LabCommand::step, "S", "one step (while paused)"},
    KeyBinding{keys::r, false, LabCommand::reset, "R", "reset (restart if scene / N / seed changed)"},
    KeyBinding{keys::f, false, LabCommand::fit_camera, "F", "fit the camera to the bodies"},
    KeyBinding{keys::f11, false, LabCommand::toggle_fullscreen, "F11", "fullscreen"},
    KeyBinding{keys::v, false, LabCommand::toggle_vsync, "V", "vsync on/off"},
    KeyBinding{keys::f12, false, LabCommand::screenshot, "F12 / Ctrl+S", "screenshot (PNG)"},
    KeyBinding{keys::s, true, LabCommand::screenshot, "", ""},
    KeyBinding{keys::h, false, LabCommand::toggle_panel, "H", "hide or show the panel"},
    KeyBinding{keys::c, false, LabCommand::toggle_follow, "C", "camera follows the bound bodies on/off"},
    KeyBinding{keys::f9, false, LabCommand::toggle_presenter, "F9", "presenter layout (compact panel, caption)"},
    KeyBinding{keys::f10, false, LabCommand::toggle_recording, "F10", "start or stop recording (View panel)"},
    KeyBinding{keys::q, true, LabCommand::quit, "Ctrl+Q", "quit"},
    KeyBinding{keys::right, false, LabCommand::tour_next, "Right / Page Down", "tour: next step"},
    KeyBinding{keys::page_down, false, LabCommand::tour_next, "", ""},
    KeyBinding{keys::left, false, LabCommand::tour_previous, "Left / Page Up", "tour: previous step"},
    KeyBinding{keys::page_up, false, LabCommand::tour_previous, "", ""},
};

// Mouse controls, for the same help listings.
inline constexpr std::array<std::array<std::string_view, 2>, 3> kMouseBindings{{
    {"left drag", "orbit"},
    {"right / middle drag", "pan"},
    {"wheel", "zoom"},
}};

}  // namespace nbl
