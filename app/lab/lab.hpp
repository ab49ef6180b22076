// The interactive lab: one surface (a window, or offscreen an EGL context and a framebuffer object),
// one simulation, the renderer and the panel, and the frame loop that ties them together (Lab::frame
// reads like a table of contents). Owns each part for the surface's life; the parts own their resources
// (RAII), so leaving the loop tears everything down in the right order: GL objects before the context,
// the context before GLFW. A script (app/core/script.hpp) drives it through ScriptTarget, the same edits and
// input a user's panel clicks and keys make.
#pragma once
#include <array>
#include <functional>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/core/body_count_tuner.hpp"
#include "app/core/bookmarks.hpp"
#include "app/core/energy_monitor.hpp"
#include "app/lab/imgui_layer.hpp"
#include "app/core/lab_commands.hpp"
#include "app/core/teaching/ladder.hpp"
#include "app/core/frame_trace.hpp"
#include "app/lab/panel.hpp"
#include "app/core/recorder.hpp"
#include "app/core/script_runner.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/simulation.hpp"
#include "app/core/stats_history.hpp"
#include "app/core/session.hpp"
#include "app/lab/surface.hpp"
#include "app/core/teaching/tour.hpp"
#include "app/lab/tour_view.hpp"
#include "app/lab/window.hpp"
#include "sim/comparison.hpp"
#include "render/scene_view.hpp"

namespace nbl {

struct LabOptions {
  WindowOptions window;              // offscreen: width x height is the framebuffer's size
  bool offscreen = false;            // an EGL context and a framebuffer object instead of a window (no display needed)
  std::optional<Script> script;      // drives the session (app/core/script.hpp)
  std::filesystem::path trace_file;  // the per-frame trace as CSV (app/core/frame_trace.hpp), "" for none
  Settings settings;
  std::string load_file;  // a snapshot (Tipsy or HDF5) instead of a scene
  bool allow_interop = true;
  bool tune_body_count = true;             // only when settings.body_count is unset and nothing is loaded
  int frames = 0;                          // stop after this many frames (0: until the window closes)
  std::filesystem::path final_screenshot;  // with `frames`: a PNG of the last frame
  std::filesystem::path screenshot_dir = ".";
  bool start_paused = false;
  std::optional<TourKind> tour;  // open the guided tour at its first step (--tour)
  RecordOptions record;          // record.target not empty: record from the first frame (--record)
  std::filesystem::path bookmark_dir = kUserBookmarkDir;  // where the panel saves bookmarks
  Simulation::BackendFactory backend_factory;  // tests: every backend made this way (app/core/simulation.hpp)
  // A force pass slower than this runs in launches (StepControl, sim/backend.hpp; on the GPU each still
  // fills it), so the display's work gets the GPU between them; 0: whole launches, and a job is
  // abandoned only between steps (`--slice-ms`).
  double slice_ms = 8;
  // Offscreen only: hand frames over at this display refresh rate while vsync is on (`--refresh`), as a
  // window does; 0: as fast as they are drawn.
  double refresh_hz = 0;
};

// The presenter caption: a title and a live figure over the picture, large enough for the back of a
// room. With the tour open: the step's title and its live speed-up over the step it builds on;
// otherwise what runs (algorithm, N, the speed or A/B's speed-up); set_caption overrides both.
struct Caption {
  std::string title;
  std::string figure;
};

class Lab : public ScriptTarget {
 public:
  // Throws InputError / Error before or while opening the surface: bad settings, an offscreen session
  // without an end, a script entry this lab cannot run.
  explicit Lab(const LabOptions& options);
  ~Lab();     // the stepping thread's job ends first: its vertices go aside into scene_
  int run();  // the frame loop; returns the exit code
  void frame();
  // After the last frame of a scripted, offscreen or traced session: writes the trace and prints the
  // frame-interval summary (run() calls it; tests driving frame() themselves may too).
  void finish_session(std::ostream& out);

  // What keys and buttons do, for tests and scripts; runs at the end of the next frame.
  void request(LabCommand command) { pending_.push_back(command); }
  void request_screenshot(const std::filesystem::path& file) { screenshots_.push_back({file, ScreenshotOwner::user}); }

  // ScriptTarget: what a script's entries do in the lab.
  // What no lab can do (checked before the surface opens), and what this one cannot: A/B on a CPU backend
  // (checked once the simulation exists, before the first frame).
  static std::string script_cannot(ScriptAction action);
  std::string cannot(ScriptAction action) const override;
  SettingsEditor& editor() override { return editor_; }
  void restart() override { execute(LabCommand::reset); }
  void screenshot(const std::filesystem::path& file) override {
    screenshots_.push_back({file, ScreenshotOwner::script});
  }
  void print_stats() override;
  void set_paused(bool paused) override;
  void quit() override { surface_->request_close(); }
  void press_key(int glfw_key, bool ctrl) override { ui_.press_key(glfw_key, ctrl); }
  void drag(MouseButton button, std::optional<std::array<float, 2>> from, std::array<float, 2> by, int frames) override;
  void scroll(std::optional<std::array<float, 2>> at, float steps) override;
  void ab_start(const SettingsChange& b) override;
  void ab_stop() override;
  void ab_swap() override;
  void ab_make_current() override;
  // A script's tour step: moves the open tour, or opens it; a tour that cannot open fails the entry.
  void tour(TourKind kind, std::size_t step) override;
  // Predict, then measure: the open tour's next step (or the one it waits on) gets the prediction and runs;
  // the session's table is written. Without an open tour both fail the entry.
  void predict(std::optional<double> speedup, bool tutorial) override;
  void set_predicting(bool on) override;
  void export_predictions(const std::filesystem::path& file) override;

  // The guided tour (app/core/teaching/tour.hpp): opens `kind` at `step` (0-based), replacing a tour that is open.
  // A tour file that cannot be read is shown as the lab's error, and nothing opens.
  void open_tour(TourKind kind, std::size_t step = 0);
  const TourSession* tour_session() const { return tour_ ? &*tour_ : nullptr; }

  // A/B (the panel's A/B section edits B through the editor, a script through ab_start): B is computed
  // from the same state as A each frame, timed and compared, never integrated.
  const ComparisonHistory& ab_history() const { return ab_history_; }

  Simulation& simulation() { return simulation_; }
  bool stepping() const { return session_.stepping(); }          // a job runs on the stepping thread
  bool steps_queued() const { return session_.steps_queued(); }  // and the next waits behind it
  // Waits for the running job (and one queued behind it) and takes their results, however long they
  // run: what needs the backend from outside the frame loop (a bookmark saved or restored directly,
  // tests reading the bodies) calls it.
  void wait_for_steps();
  std::int64_t steps_completed() const { return session_.steps_completed(); }
  const EnergyMonitor& energy() const { return energy_; }
  const LabStats& stats() const { return stats_; }
  const SceneView& scene() const { return scene_; }
  const Panel& panel() const { return panel_; }
  const Surface& surface() const { return *surface_; }
  const OrbitCamera& camera() const { return camera_; }
  const FrameTrace& trace() const { return trace_; }
  const ScriptRunner* script() const { return script_ ? &*script_ : nullptr; }
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

  // Recording (app/core/recorder.hpp): the window's frames, with the panel or the scene alone, through
  // ffmpeg or into raw frames while the session runs. start_recording throws InputError / Error (no
  // ffmpeg, a bad target) without starting; stop_recording finishes the file and says so in status.
  void start_recording(const RecordOptions& options);
  bool stop_recording();  // false (and the reason in last_error()) when the file could not be finished
  // Why a recording stopped in the middle of the session ("" when none did): a run that asked for one
  // (--record) reports it and exits non-zero.
  const std::string& recording_failure() const { return recording_failure_; }
  const Recorder* recorder() const { return recorder_.get(); }

  // Bookmarks (app/core/bookmarks.hpp).
  void save_bookmark(const std::string& name);
  void restore_bookmark(const Bookmark& bookmark);
  const std::vector<Bookmark>& bookmarks() const { return bookmarks_; }

  // The caption presenter mode shows (set_caption(nullopt): back to the lab's own).
  Caption caption() const;
  void set_caption(std::optional<Caption> caption) { caption_ = std::move(caption); }

 private:
  using Clock = std::chrono::steady_clock;
  enum class ScreenshotOwner { user, final, script };  // who hears of a failure: the panel, main, or the run's end
  struct PendingScreenshot {
    std::filesystem::path file;
    ScreenshotOwner owner;
  };

  void run_script();
  void handle_input();
  void collect_steps();  // a finished job's report, when there is one
  void job_finished(StepReport& report);
  bool defer_while_stepping(LabCommand command);
  void run_deferred();
  void apply_settings();
  void simulate();
  bool comparing() const;  // A/B runs: each job ends with B's pass on the GPU
  // A job's vertices, written aside by the stepping thread when the view can be drawn from them
  // (SceneView::can_stage): the job's after_steps, or nothing.
  std::function<void(Simulation&)> staged_vertices(int slot);
  // Whether a frame that finds a job running may queue the next behind it: nothing waits for the time
  // between two jobs (edits, commands, a build to swap in, a view to rewrite, energy, A/B).
  bool may_queue_steps() const;
  void between_jobs();              // the backend's own work while no job runs: energy, the kernels' report
  double energy_budget_ms() const;  // the energy pass's device time this frame (energy_slice_ms)
  void prepare_scene();
  void render_scene();
  // Whether this frame would show the picture already on screen (Lab::frame draws nothing then).
  bool picture_unchanged();
  void update_vertices();  // the vertex buffer from the current state, when it is stale
  void build_panel();
  void run_commands();
  void finish_frame();
  void record_frame();
  void pace_beside_cpu_steps() const;  // sleeps before the swap while a CPU step runs (kCpuStepFramePeriod)
  LiveSpeedup tour_live() const;       // the open tour's step against the one it builds on
  void record_trace();

  void execute(LabCommand command);
  void compare_ab();
  std::string no_b_reason(const char* what) const;
  void pause_because(const std::string& reason);
  void bodies_replaced();
  void measure_force_error();
  void load_settings_from(const std::string& file);
  double seconds_since_start() const;
  std::array<float, 2> scene_centre() const;  // in ImGui's display units

  // A job of a variant the user has left is stopped once it has run this long (or its steps take this
  // long): a fast step ends sooner than stopping it would gain.
  static constexpr double kAbandonAfterMs = 50;
  // While a step runs on the CPU backend, frames follow each other at most this often (60 Hz).
  static constexpr std::chrono::microseconds kCpuStepFramePeriod{16667};

  LabOptions options_;
  Session session_;  // built first: bad input is refused before a window opens
  Simulation& simulation_ = session_.simulation();
  SettingsEditor& editor_ = session_.editor();
  LabStats& stats_ = session_.stats();
  FrameTrace& trace_ = session_.trace();
  std::optional<ScriptRunner> script_;  // checked before the surface opens, too
  std::unique_ptr<Surface> surface_;
  ImGuiLayer ui_;
  SceneView scene_;
  Panel panel_;
  OrbitCamera camera_;
  EnergyMonitor energy_;
  LadderJob ladder_;
  BodyCountTuner tuner_;
  std::optional<ForceErrorReading> force_error_;
  std::vector<KernelInfo> kernels_;
  double kernels_refreshed_s_ = -1;
  std::optional<DeviceInfo> device_;

  std::vector<LabCommand> pending_;
  std::vector<LabCommand> deferred_;  // commands that need the backend, waiting for the job to end
  std::vector<PendingScreenshot> screenshots_;
  bool paused_ = false;
  bool step_once_ = false;
  bool state_broken_ = false;  // NaN/inf: nothing is stepped or drawn from the state until a reset
  bool fit_pending_ = true;
  bool vertices_stale_ = true;  // the vertex buffer no longer shows the state (a step, new bodies, a view change)
  ViewSettings drawn_view_;
  int next_stage_slot_ = 0;                    // the staging buffer the next staged job writes
  std::array<ViewSettings, 2> staged_view_{};  // the view each staging buffer was written for
  std::string pause_reason_, status_, error_;
  std::string gl_error_;                        // the first GL error caught (release builds check once per frame)
  std::optional<ConfigureOutcome> last_build_;  // the last kernel build swapped in or refused
  ComparisonHistory ab_history_;
  std::optional<TourSession> tour_;
  TourView tour_view_;
  std::optional<ComparisonSample> ab_sample_;  // this frame's A/B comparison, for the trace
  std::string ab_error_;                       // why B was cleared by the lab, for a script's later A/B entry
  // After "swap A and B": A's old settings, to become B once B's toggles run as A. Until then the
  // comparison goes on as before the swap (B against the old A), never A against a copy of itself.
  std::optional<Settings> ab_after_swap_;
  std::string final_screenshot_error_;  // why options_.final_screenshot was not saved ("" if it was)

  std::unique_ptr<Recorder> recorder_;
  Viewport record_region_;
  std::string recording_failure_;  // record_frame: why the recording stopped mid-session
  std::vector<Bookmark> bookmarks_;
  std::optional<Caption> caption_;

  FrameTimes times_;
  double render_cpu_ms_ = 0, drawn_render_ms_ = 0;  // the last drawn frame's
  Clock::time_point started_ = Clock::now(), frame_started_ = Clock::now(), last_swap_ = Clock::now();
  std::optional<Clock::time_point> session_started_;  // when the first frame began: a script's time 0
  int frame_count_ = 0;

  std::string abandoned_note_;  // the last step abandoned (app/core/session.hpp), for the panel

  // This frame, for the trace.
  int steps_this_frame_ = 0;
  std::optional<ConfigureOutcome> swapped_this_frame_;
  double swap_ms_ = 0;  // the frame loop's time in the call that took swapped_this_frame_
  std::vector<ScriptAction> script_ran_;
  // Frames that draw nothing: whether this one drew, the frames still to draw after input (the widgets
  // and the bodies' density settle over two), when and at which size the last drawn one was drawn, and
  // drawn frames per second.
  bool drawn_ = true;
  int settling_frames_ = 0;
  Clock::time_point last_drawn_{};
  Viewport last_drawn_size_{};
  RateWindow drawn_rate_;
  bool tracing_ = false;  // offscreen, scripted or --trace: every frame is recorded
};

}  // namespace nbl
