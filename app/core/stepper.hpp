// The simulation at its own pace: a worker thread takes the steps while the display thread draws the
// newest finished state, turns the camera and answers the panel at display rate, whatever a step costs
// (a Sort-off Barnes-Hut step at 1M bodies takes over a second; the display never waits for it).
//
// The display thread owns the Simulation. It hands the stepper a job (some steps, then an A/B comparison
// on the state they reached) and polls for its end once a frame; while a job runs, it touches the
// simulation only through what is safe beside a step (its settings, which only the display thread
// changes between jobs, and the build progress, which is locked). Everything else that needs the
// backend (new settings, a swapped-in build, the vertex buffer, energy, bookmarks) happens between jobs.
// When the user leaves a variant whose step is slow, abandon() stops the job at the backend's next slice
// boundary and puts the state back as it was (StepControl, sim/backend.hpp), so going back never waits
// for a slow step to end.
//
// A frame that finds a job still running may queue the next one behind it (queue()): it starts on the
// stepping thread the moment the running one ends, on the state it reached, so the steps follow each
// other without waiting for the display's next frame. The lab then has the stepping thread write the
// state's vertices aside after each job (StepJob::after_steps), and the display takes them from there.
// A frame queues at most one job, so the steps never run more than a frame ahead of the display.
//
// On the GPU the worker's steps run on the backend's own CUDA stream; the display's GL work runs between
// the force pass's slices. On the CPU backend the worker's OpenMP team takes the cores the display
// thread does not.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/comparison.hpp"
#include "sim/step_stats.hpp"

namespace nbl {

class Simulation;

struct StepJob {
  int steps = 1;         // steps to take (the settings' steps per frame)
  bool compare = false;  // then A/B: B's forces on the state the steps reached (Simulation::compare)
  // Then, on the stepping thread, once the steps ended complete (none abandoned, no NaN, no error): what
  // the state is needed for before the next job changes it (the lab writes its vertices aside here, so
  // that a job queued behind this one can start at once). StepReport::after_steps_ran says it did.
  std::function<void(Simulation&)> after_steps;
  int tag = -1;  // the caller's, given back in the report
};

struct StepReport {
  using Clock = std::chrono::steady_clock;
  std::vector<StepStats> steps;  // the steps finished, in order (an abandoned one is not among them)
  bool abandoned = false;        // a step was stopped on request; the state is the last finished one
  bool non_finite = false;       // the last step produced NaN or inf: the job stopped there
  std::string error;             // what a step threw (Error): the simulation stopped
  std::optional<ComparisonSample> comparison;
  std::string comparison_error;   // what the comparison threw: B is gone
  double wall_ms = 0;             // from the job's start to its end, on the worker
  Clock::time_point finished;     // when the state it reached was complete
  bool after_steps_ran = false;   // StepJob::after_steps ran to its end on this job's state
  std::string after_steps_error;  // what it threw instead
  bool skipped = false;           // a queued job that never ran: the one before it broke
  int tag = -1;                   // StepJob::tag
  double sim_time = 0;            // the simulated time of the state the job reached
};

class Stepper {
 public:
  using Clock = std::chrono::steady_clock;
  // threaded = false runs each job inside start() (the deterministic `render`, tests).
  explicit Stepper(bool threaded = true);
  ~Stepper();  // abandons a running job and waits for it
  Stepper(const Stepper&) = delete;
  Stepper& operator=(const Stepper&) = delete;

  // Wires `simulation` to this stepper's abandon flag; slice_ms as StepControl::slice_ms.
  void attach(Simulation& simulation, double slice_ms);
  // Starts a job on `simulation`; the stepper must be idle.
  void start(Simulation& simulation, const StepJob& job);
  // While a job runs: `job` starts on the stepping thread the moment it ends, so the GPU never idles
  // between two steps waiting for the display's next frame. One job at most waits; false (nothing
  // queued) when one already does, or when the stepper is idle (start() then).
  bool queue(const StepJob& job);
  bool queued() const;
  // Drops the queued job if it has not started (the display wants the time between jobs after all);
  // true when it did.
  bool unqueue();
  // A job runs, waits, or has a report not yet taken.
  bool busy() const { return outstanding_ > 0; }
  // The oldest finished job's report, once; nothing while it runs (never waits).
  std::optional<StepReport> poll();
  // Waits for the oldest job and returns its report (nothing when idle).
  std::optional<StepReport> wait();
  // Asks the running job to stop at its next chance and discard its unfinished step; a queued job is
  // dropped.
  void abandon();
  bool abandoning() const { return abandon_.load(); }
  // How long the running job has run (0 when none runs).
  double running_ms() const;

 private:
  void run();  // the worker's loop
  StepReport execute(Simulation& simulation, const StepJob& job);

  const bool threaded_;
  std::atomic<bool> abandon_{false};
  int outstanding_ = 0;  // display thread only: jobs started or queued whose reports are not taken
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Simulation* simulation_ = nullptr;                // the job's, under mutex_
  std::optional<StepJob> job_;                      // under mutex_: the worker's next job
  std::optional<StepJob> queued_;                   // under mutex_: the job after it (queue())
  std::deque<StepReport> done_;                     // under mutex_: finished jobs' reports, oldest first
  std::optional<Clock::time_point> running_since_;  // under mutex_: when the running job started
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace nbl
