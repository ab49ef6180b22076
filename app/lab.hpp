// The interactive lab: one window, one simulation, the renderer and the panel, and the frame loop
// that ties them together (Lab::frame reads like a table of contents). Owns each part for the
// window's life; the parts own their resources (RAII), so leaving the loop tears everything down in
// the right order: GL objects before the context, the context before GLFW.
#pragma once
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "app/body_count_tuner.hpp"
#include "app/energy_monitor.hpp"
#include "app/imgui_layer.hpp"
#include "app/lab_commands.hpp"
#include "app/ladder.hpp"
#include "app/panel.hpp"
#include "app/settings_editor.hpp"
#include "app/simulation.hpp"
#include "app/stats_history.hpp"
#include "app/window.hpp"
#include "sim/comparison.hpp"
#include "render/scene_view.hpp"

namespace nbl {

struct LabOptions {
  WindowOptions window;
  Settings settings;
  std::string load_file;           // a Tipsy snapshot instead of a scene
  bool allow_interop = true;
  bool tune_body_count = true;     // only when settings.body_count is unset and nothing is loaded
  int frames = 0;                  // stop after this many frames (0: until the window closes)
  std::filesystem::path final_screenshot;  // with `frames`: a PNG of the last frame
  std::filesystem::path screenshot_dir = ".";
  bool start_paused = false;
};

class Lab {
 public:
  explicit Lab(const LabOptions& options);  // throws InputError / Error before or while opening the window
  int run();  // the frame loop; returns the exit code
  void frame();

  // What keys and buttons do, for tests and scripts; runs at the end of the next frame.
  void request(LabCommand command) { pending_.push_back(command); }
  void request_screenshot(const std::filesystem::path& file) { screenshot_file_ = file; }

  // A/B (the panel's A/B section and scripts): B computes forces from the same state as the running
  // variant each frame; it is timed and compared, never integrated (sim/comparison.hpp).
  void ab_start(const ToggleValues& toggles, std::optional<double> theta = std::nullopt);
  void ab_stop();
  void ab_swap();          // A takes B's toggles and theta, B takes A's
  void ab_make_current();  // A takes B's; B is cleared
  const ComparisonHistory& ab_history() const { return ab_history_; }

  SettingsEditor& editor() { return editor_; }
  Simulation& simulation() { return simulation_; }
  const LabStats& stats() const { return stats_; }
  const SceneView& scene() const { return scene_; }
  const Panel& panel() const { return panel_; }
  const Window& window() const { return window_; }
  bool paused() const { return paused_; }
  const std::string& pause_reason() const { return pause_reason_; }
  const std::string& last_error() const { return error_; }
  const std::string& first_gl_error() const { return gl_error_; }
  const std::optional<ConfigureOutcome>& last_build() const { return last_build_; }
  const std::string& last_status() const { return status_; }
  // Why LabOptions::final_screenshot was not saved ("" when it was, or none was asked for): the
  // caller reports it and exits non-zero, so a script that asked for it never sees success.
  const std::string& final_screenshot_error() const { return final_screenshot_error_; }
  Viewport scene_viewport() const;  // the window minus the panel, in framebuffer pixels

 private:
  using Clock = std::chrono::steady_clock;

  void handle_input();
  void apply_settings();
  void simulate();
  void render_scene();
  void build_panel();
  void run_commands();
  void finish_frame();

  void execute(LabCommand command);
  void compare_ab();
  void pause_because(const std::string& reason);
  void bodies_replaced();
  void measure_force_error();
  void load_settings_from(const std::string& file);
  double seconds_since_start() const;

  LabOptions options_;
  Simulation simulation_;  // built first: bad input is refused before a window opens
  SettingsEditor editor_;
  Window window_;
  ImGuiLayer ui_;
  SceneView scene_;
  Panel panel_;
  OrbitCamera camera_;
  LabStats stats_;
  EnergyMonitor energy_;
  LadderJob ladder_;
  BodyCountTuner tuner_;
  std::optional<ForceErrorReading> force_error_;
  std::vector<KernelInfo> kernels_;
  double kernels_refreshed_s_ = -1;
  std::optional<DeviceInfo> device_;
  std::string backend_name_;

  std::vector<LabCommand> pending_;
  std::filesystem::path screenshot_file_;
  bool paused_ = false;
  bool step_once_ = false;
  bool state_broken_ = false;  // NaN/inf: nothing is stepped or drawn from the state until a reset
  bool fit_pending_ = true;
  bool vertices_stale_ = true;  // the vertex buffer no longer shows the state (a step, new bodies, a view change)
  ViewSettings drawn_view_;
  std::string pause_reason_, status_, error_;
  std::string gl_error_;  // the first GL error caught (release builds check once per frame)
  std::optional<ConfigureOutcome> last_build_;  // the last kernel build swapped in or refused
  ComparisonHistory ab_history_;
  std::string final_screenshot_error_;  // why options_.final_screenshot was not saved ("" if it was)

  FrameTimes times_;
  double render_cpu_ms_ = 0;
  Clock::time_point started_ = Clock::now(), frame_started_ = Clock::now();
  int frame_count_ = 0;
};

}  // namespace nbl
