// The ImGui panel docked at the right edge: the simulation's controls, every kernel toggle of the
// current algorithm (from the toggle table, grouped as the tutorial groups them), and the live
// numbers. It reads facts (PanelFacts) and edits a Settings draft through SettingsEditor; whatever it
// cannot do by editing settings it asks for as a LabCommand. It never calls the simulation's kernels
// and includes no CUDA header.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "app/core/bookmarks.hpp"
#include "app/core/energy_monitor.hpp"
#include "app/core/lab_commands.hpp"
#include "app/core/teaching/ladder.hpp"
#include "app/core/settings_editor.hpp"
#include "sim/comparison.hpp"
#include "app/core/stats_history.hpp"
#include "cuda/device.hpp"
#include "render/scene_view.hpp"

struct ImFont;

namespace nbl {

struct ForceErrorReading {
  ForceError error;
  std::size_t sample = 0;
  double ms = 0;        // how long the measurement took
  std::string variant;  // settings it was measured with (JSON of the toggles + algorithm)
  double sim_time = 0;
};

// What the panel shows this frame (read only).
// The simulation's own pace (app/core/stepper.hpp), beside the display's.
struct SteppingFacts {
  double steps_per_s = 0;      // finished steps per second, over the last seconds
  double step_ms = 0;          // the last finished step's wall time on the stepping thread
  double state_age_ms = 0;     // how long ago the state on screen was finished
  double running_ms = 0;       // the step in flight, so far (0: none)
  double drawn_per_s = 0;      // frames a second that drew (the others showed an unchanged picture)
  std::string slow_notice;     // "this variant takes 1.2 s a step: ..." ("" when steps keep up)
  std::string abandoned_note;  // the last abandoned step, said once it happened ("" when none)
};

struct PanelFacts {
  const Simulation* simulation = nullptr;
  const LabStats* stats = nullptr;
  const EnergyMonitor* energy = nullptr;
  const std::optional<ForceErrorReading>* force_error = nullptr;
  std::string current_variant;  // to tell whether force_error is stale
  const LadderJob* ladder = nullptr;
  const std::vector<KernelInfo>* kernels = nullptr;
  const SceneView* scene = nullptr;
  const std::optional<DeviceInfo>* device = nullptr;
  std::string gl_description;
  bool paused = false;
  std::string pause_reason;                       // why it paused itself (NaN, CUDA error), "" when the user paused
  std::string status;                             // the last thing that happened ("screenshot saved to ...")
  std::string error;                              // the last thing that went wrong
  std::string gl_error;                           // the first OpenGL error the frame loop caught ("" when none)
  std::vector<BuildProgress> builds;              // kernel builds in flight or just finished
  const ComparisonHistory* ab_history = nullptr;  // A/B's measurements over the last frames
  std::vector<BuildProgress> ab_builds;           // B's build
  bool ab_ready = false;                          // B is built and compared each frame
  SteppingFacts stepping;
  std::string auto_n_note;  // what the start-up body-count tuning did
  bool unicode_font = false;
  bool recording = false;
  std::string record_line;  // "Recording 1920x1080 to talk.mp4 ...: 310 frames, 0 dropped"
  const std::vector<Bookmark>* bookmarks = nullptr;
  std::string caption_title, caption_figure;  // presenter mode's caption
  ImFont* caption_font = nullptr;
};

class Panel {
 public:
  static constexpr float kWidth = 430.0f;              // in screen units at content scale 1; the lab scales it
  static constexpr float kPresenterWidthShare = 0.8f;  // the presenter layout's compact panel

  // Builds this frame's panel; returns what its buttons asked for.
  std::vector<LabCommand> build(const PanelFacts& facts, SettingsEditor& editor);

  float width() const { return visible_ ? width_ : 0.0f; }  // in ImGui (framebuffer) pixels
  void set_width(float w) { width_ = w; }
  bool visible() const { return visible_; }
  void toggle_visible() { visible_ = !visible_; }
  const std::string& settings_file() const { return settings_file_; }
  const std::string& preset_file() const { return preset_file_; }
  const std::string& record_target() const { return record_target_; }
  bool record_include_panel() const { return record_include_panel_; }
  const std::string& bookmark_name() const { return bookmark_name_; }
  const Bookmark* selected_bookmark(const std::vector<Bookmark>& list) const {
    return selected_bookmark_ >= 0 && selected_bookmark_ < static_cast<int>(list.size())
               ? &list[static_cast<std::size_t>(selected_bookmark_)]
               : nullptr;
  }
  void select_bookmark(int index) { selected_bookmark_ = index; }  // tests and scripts

 private:
  void header(const PanelFacts& f);
  void simulation_section(const PanelFacts& f, SettingsEditor& editor);
  void view_section(const PanelFacts& f, SettingsEditor& editor);
  void optimizations_section(const PanelFacts& f, SettingsEditor& editor);
  void ladder_section(const PanelFacts& f);
  void ladder_chart(const LadderTable& table);
  void ab_section(const PanelFacts& f, SettingsEditor& editor);
  void performance_section(const PanelFacts& f);
  void tree_section(const PanelFacts& f);
  void accuracy_section(const PanelFacts& f);
  void generated_code_section(const PanelFacts& f);
  void issue_ceiling_rows(const PanelFacts& f, const KernelInfo& k);
  void keys_section();
  void bookmarks_section(const PanelFacts& f);
  void record_section(const PanelFacts& f);
  void caption(const PanelFacts& f);
  void ask(LabCommand c) { commands_.push_back(c); }

  std::vector<LabCommand> commands_;
  float width_ = kWidth;
  bool visible_ = true;
  std::string settings_file_ = "nbodylab-settings.json";
  std::string preset_file_;
  std::string record_target_ = "nbodylab-recording.mp4";
  bool record_include_panel_ = false;
  std::string bookmark_name_ = "moment";
  int selected_bookmark_ = -1;
};

}  // namespace nbl
