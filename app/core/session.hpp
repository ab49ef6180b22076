// The running session every front end drives (the lab's window and --offscreen, `render`): the
// simulation, the settings editor, the steps on their own thread, the statistics and the trace. A frame
// of each front end is the same skeleton; the front end draws in between:
//
//   collect()         a finished job: its steps' statistics and A/B sample; its state is the newest
//   apply_settings()  between jobs: a swapped-in kernel build, the editor's edits, A/B's B
//   ...               the front end draws the newest finished state
//   start_steps()     the next job, on the stepping thread while the frame goes on
//   ...               panel, readback, recording, swap; the trace row (trace().record)
//
// The lab never waits for a step: collect() returns nothing while one runs. `render` shows each output
// frame after exactly its steps: collect(wait) takes the job it started, however long it runs.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "app/core/frame_trace.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/simulation.hpp"
#include "app/core/stats_history.hpp"
#include "app/core/stepper.hpp"

namespace nbl {

class Session {
 public:
  using Clock = std::chrono::steady_clock;

  // Throws like Simulation's constructor (bad settings, an n too large, an unreadable file). With slice_ms
  // (the lab), jobs can be abandoned, and a force pass slower than slice_ms > 0 runs in launches of about
  // that long (StepControl, sim/backend.hpp); without (`render`, whose frames are exact), whole passes.
  Session(const Settings& settings, const std::string& load_file, Simulation::BackendFactory factory,
          std::optional<double> slice_ms);

  Simulation& simulation() { return simulation_; }
  const Simulation& simulation() const { return simulation_; }
  SettingsEditor& editor() { return editor_; }
  const SettingsEditor& editor() const { return editor_; }
  LabStats& stats() { return stats_; }
  const LabStats& stats() const { return stats_; }
  FrameTrace& trace() { return trace_; }
  const FrameTrace& trace() const { return trace_; }

  // The trace's step rows count their time from here (the session's first frame).
  void set_start(Clock::time_point start) { start_ = start; }
  void set_tracing(bool tracing) { tracing_ = tracing; }

  // A finished job, once; recorded into the statistics, the pace and the trace's step rows. Nothing while
  // a job runs, unless `wait`: then the running job's report, however long it takes.
  std::optional<StepReport> collect(bool wait = false);

  // Between jobs (nothing while one runs): a build finished on a worker is swapped in, B's changes reach
  // the backend, the editor's edits are applied.
  struct Applied {
    std::optional<ConfigureOutcome> swapped;  // a build swapped in (accepted) or refused
    double swap_ms = 0;                       // the frame loop's time in that swap
    std::string refused;                      // the editor's edits were refused: why
    bool comparison_changed = false;          // B was started, edited or cleared
    std::string comparison_error;             // B could not be set up: why (B was cleared)
    bool restarted = false;                   // new bodies
    bool backend_changed = false;             // a new algorithm or backend: old timings do not apply
  };
  std::optional<Applied> apply_settings();

  // While a job runs: stops it when `leaving` (the front end has edits or commands for another variant or
  // state) and the job has run `after_ms`, or its steps take that long. True when it asked.
  bool abandon_if_left(bool leaving, double after_ms);
  // Whether the editor's draft asks for another variant or state than the one running.
  bool draft_leaves_running_variant() const;

  // The next job: `steps` steps, then A/B when `compare`, then `after_steps` on the stepping thread
  // (StepJob). The stepper must be idle.
  void start_steps(int steps, bool compare, std::function<void(Simulation&)> after_steps = {}, int tag = -1);
  // While a job runs: the next one, to start the moment it ends (Stepper::queue). False when one waits
  // already or none runs.
  bool queue_steps(int steps, std::function<void(Simulation&)> after_steps, int tag);
  bool steps_queued() const { return stepper_.queued(); }
  bool unqueue_steps() { return stepper_.unqueue(); }
  bool abandoning() const { return stepper_.abandoning(); }
  // Stops the running job (its unfinished step discarded), drops a queued one and waits for the end,
  // reports dropped: before what a job's after_steps uses goes away.
  void stop_jobs();
  bool stepping() const { return stepper_.busy(); }
  double running_ms() const { return stepper_.running_ms(); }

  // The simulation's pace.
  std::int64_t steps_completed() const { return steps_completed_; }
  double last_step_ms() const { return last_step_ms_; }  // wall time of the last finished step
  double state_age_ms(Clock::time_point now) const;      // since the state on screen was finished
  double steps_per_s(Clock::time_point now) const { return step_rate_.per_second(now); }
  // New bodies (a restart, a bookmark): they are the newest finished state, and the pace starts over.
  void state_replaced();

  // What the front ends read of the backend that a running step could change, as of the last job's end.
  const std::string& variant_label() const { return variant_label_; }
  bool comparison_ready() const { return comparison_ready_; }
  // The variant the running (or last) job stepped.
  const std::string& job_variant() const { return job_variant_; }

 private:
  void refresh_between_jobs();

  Simulation simulation_;
  SettingsEditor editor_;
  Stepper stepper_;  // after simulation_: its thread ends before the simulation goes
  LabStats stats_;
  FrameTrace trace_;
  bool tracing_ = false;
  Clock::time_point start_ = Clock::now();
  std::int64_t steps_completed_ = 0;
  std::int64_t step_rows_ = 0;
  Clock::time_point state_finished_ = Clock::now();
  double last_step_ms_ = 0;
  RateWindow step_rate_;
  std::string variant_label_, job_variant_;
  bool comparison_ready_ = false;
};

}  // namespace nbl
