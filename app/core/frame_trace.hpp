// The per-frame trace of a session (`--trace FILE.csv`, for the window, `--offscreen` and `render`) and
// the summary printed at the end of an offscreen or scripted one: where each frame's time went, what the
// kernel builds were doing, and whether frames kept flowing while they ran. The stall target
// (the frame interval's p95 within 1.5x the steady one while a toggle switches every second) is read
// from this summary on the GPU machine.
#pragma once
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/comparison.hpp"

namespace nbl {

struct FrameRecord {
  std::int64_t frame = 0;
  double wall_s = 0;       // at the frame's end, since the session's first frame began
  double interval_ms = 0;  // from this frame's start to the next one's: what the user sees as a frame
  double simulate_ms = 0, vertices_ms = 0, render_ms = 0;
  std::optional<double> panel_ms;  // building and drawing the panel (none in `render`: it has no panel)
  int steps = 0;                   // simulation steps taken in this frame
  bool building = false;           // a kernel build was pending during the frame, or swapped in at its start
  std::string build_state;         // the pending build's state (sim/build_progress.hpp), "" when none
  std::string build_label;         // what it builds
  std::string variant;             // the kernel variant (or backend) that ran this frame's steps
  std::string swap;                // "accepted" or "refused": a build's outcome taken at this frame's start
  double swap_latency_s = 0;       // with swap: from the request to this frame
  // With swap: the frame loop's wall time in the swap call (adopting the build, the layout or buffers it
  // changes, the old build's teardown), and of that the old build's teardown (handing it to the build
  // queue's teardown worker). The swap frame's other costs show in its simulate_ms (the new kernels'
  // first steps) and vertices_ms (their first vertex write).
  std::optional<double> swap_ms, teardown_ms;
  std::string script;  // the script's actions run in this frame, joined by '+'
  // A/B (sim/comparison.hpp) while B exists: B as its changes from A ("unroll=128", "theta=0.4"), whether it
  // is still building or compared, and this frame's comparison: A's and B's force computation (every
  // stage, ms) on the same state and B's forces' relative difference from A's.
  std::string ab_b;
  std::string ab_state;  // "building" or "ready" (built: compared in every frame that steps); "" without A/B
  std::optional<double> ab_a_ms, ab_b_ms, ab_difference;
  // The simulation's own pace (app/core/stepper.hpp; the lab only): how old the state drawn is, how many
  // steps had finished by the frame, whether a step was running during it, and the camera it was drawn
  // with (a drag turns it every frame however slow the steps are).
  std::optional<double> state_age_ms;
  std::int64_t steps_completed = 0;
  bool stepping = false;
  std::optional<double> camera_yaw_deg, camera_pitch_deg, camera_distance;
  // Whether the frame drew (the lab): one whose picture would have been the one on screen draws nothing
  // and waits for the display's next refresh.
  std::optional<bool> drawn;
};

// One simulation step, as the lab's stepping thread finished it (or abandoned it).
struct StepRecord {
  std::int64_t step = 0;
  double wall_s = 0;     // when it finished, since the session's first frame began
  double ms = 0;         // its wall time on the stepping thread
  double kernel_ms = 0;  // its stages' own time (CUDA events on the GPU)
  int force_slices = 1;  // launches its force pass was split into
  std::string variant;
  bool abandoned = false;  // stopped on request, its result discarded
};

struct TraceSummary {
  std::size_t frames = 0;  // counted: every frame after the first (which carries the start-up)
  double median_ms = 0, p95_ms = 0, max_ms = 0;
  std::size_t build_frames = 0;
  std::size_t undrawn_frames = 0;  // of `frames`: those that drew nothing (FrameRecord::drawn)
  double max_during_builds_ms = 0, max_outside_builds_ms = 0, median_outside_builds_ms = 0;
  int swaps_accepted = 0, swaps_refused = 0;
  double median_swap_latency_s = 0, max_swap_latency_s = 0;
  // The accepted swaps' own costs on the frame loop's thread (FrameRecord::swap_ms, teardown_ms).
  double median_swap_ms = 0, max_swap_ms = 0, median_teardown_ms = 0, max_teardown_ms = 0;
  struct Comparison {  // the frames that compared one B (a swap or a new ab_start starts another)
    std::string b;
    std::size_t frames = 0;
    double a_median_ms = 0, b_median_ms = 0;
    Speedup speedup;               // A / B over the frames' pairs: above 1 when B is faster
    double difference_median = 0;  // B's forces vs A's, relative norm
  };
  std::vector<Comparison> comparisons;
  // The stepping thread's steps (the lab): how many, how fast, how many abandoned; how old the drawn state was.
  std::size_t steps = 0, abandoned = 0;
  double steps_per_s = 0, median_step_ms = 0;
  double median_state_age_ms = 0, p95_state_age_ms = 0;
};

class FrameTrace {
 public:
  void record(FrameRecord record) { records_.push_back(std::move(record)); }
  void record_step(StepRecord record) { steps_.push_back(std::move(record)); }
  const std::vector<FrameRecord>& records() const { return records_; }
  const std::vector<StepRecord>& steps() const { return steps_; }

  static const char* csv_header();
  static const char* steps_csv_header();
  std::string csv() const;
  std::string steps_csv() const;
  // The frames into `file`; the steps, when there are any, beside it into steps_file(file) ("frames.csv":
  // "frames-steps.csv"). Each whole or not at all (sim/file_util).
  void write_csv(const std::filesystem::path& file) const;
  static std::filesystem::path steps_file(const std::filesystem::path& file);

  TraceSummary summarize() const;
  void print_summary(std::ostream& out) const;

 private:
  std::vector<FrameRecord> records_;
  std::vector<StepRecord> steps_;
};

}  // namespace nbl
