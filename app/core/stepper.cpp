#include "app/core/stepper.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "app/core/simulation.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {
constexpr int kWorkerNice = 5;
}  // namespace

Stepper::Stepper(bool threaded) : threaded_(threaded) {
  if (threaded_) worker_ = std::thread([this] { run(); });
}

Stepper::~Stepper() {
  abandon();
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void Stepper::attach(Simulation& simulation, double slice_ms) {
  StepControl control;
  control.abandon = &abandon_;
  control.slice_ms = slice_ms;
  simulation.set_step_control(control);
}

void Stepper::start(Simulation& simulation, const StepJob& job) {
  if (busy()) throw Error("a simulation job is still running");
  abandon_ = false;
  ++outstanding_;
  if (!threaded_) {
    {
      std::lock_guard lock(mutex_);
      running_since_ = Clock::now();
    }
    StepReport report = execute(simulation, job);
    std::lock_guard lock(mutex_);
    running_since_.reset();
    done_.push_back(std::move(report));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    simulation_ = &simulation;
    job_ = job;
  }
  wake_.notify_all();
}

bool Stepper::queue(const StepJob& job) {
  if (!threaded_ || !busy() || abandon_) return false;
  std::lock_guard lock(mutex_);
  if (queued_ || (!job_ && !running_since_)) return false;  // one waits already, or nothing runs
  queued_ = job;
  ++outstanding_;
  return true;
}

bool Stepper::queued() const {
  std::lock_guard lock(mutex_);
  return queued_.has_value();
}

bool Stepper::unqueue() {
  std::lock_guard lock(mutex_);
  if (!queued_) return false;
  queued_.reset();
  --outstanding_;
  return true;
}

std::optional<StepReport> Stepper::poll() {
  if (!busy()) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (done_.empty()) return std::nullopt;
  --outstanding_;
  StepReport report = std::move(done_.front());
  done_.pop_front();
  return report;
}

std::optional<StepReport> Stepper::wait() {
  if (!busy()) return std::nullopt;
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return !done_.empty(); });
  --outstanding_;
  StepReport report = std::move(done_.front());
  done_.pop_front();
  return report;
}

void Stepper::abandon() {
  if (!busy()) return;
  abandon_ = true;
  std::lock_guard lock(mutex_);
  if (queued_) {  // it never starts: nothing to report
    queued_.reset();
    --outstanding_;
  }
}

double Stepper::running_ms() const {
  std::lock_guard lock(mutex_);
  return running_since_ ? std::chrono::duration<double, std::milli>(Clock::now() - *running_since_).count() : 0.0;
}

void Stepper::run() {
  // Below the display thread: where they share cores (the CPU backend's OpenMP team, started from here,
  // inherits this), the frame comes first and the steps take the rest.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kWorkerNice);
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || job_.has_value(); });
    if (stop_) return;
    while (job_) {
      const StepJob job = std::move(*job_);
      Simulation& simulation = *simulation_;
      job_.reset();
      running_since_ = Clock::now();
      lock.unlock();
      StepReport report = execute(simulation, job);
      lock.lock();
      running_since_.reset();
      done_.push_back(std::move(report));
      // The queued job starts now, on the state this one reached (abandon() drops it), unless this one
      // broke: then it is reported as skipped.
      const StepReport& last = done_.back();
      if (queued_ && (last.non_finite || !last.error.empty())) {
        StepReport skipped;
        skipped.skipped = true;
        skipped.finished = Clock::now();
        done_.push_back(std::move(skipped));
        queued_.reset();
      }
      if (queued_) job_ = std::move(queued_);
      queued_.reset();
      wake_.notify_all();
    }
  }
}

StepReport Stepper::execute(Simulation& simulation, const StepJob& job) {
  const auto start = Clock::now();
  StepReport report;
  report.tag = job.tag;
  try {
    for (int i = 0; i < job.steps; ++i) {
      if (abandon_) {  // between steps: the steps taken so far stand
        report.abandoned = true;
        break;
      }
      StepStats stats = simulation.step();
      if (stats.abandoned) {
        report.abandoned = true;
        break;
      }
      const bool broken = stats.non_finite;
      report.steps.push_back(std::move(stats));
      if (broken) {
        report.non_finite = true;
        break;
      }
    }
  } catch (const std::exception& e) {
    report.error = e.what();
  }
  const bool complete = !report.steps.empty() && !report.abandoned && !report.non_finite && report.error.empty();
  if (job.after_steps && complete) {
    try {
      job.after_steps(simulation);
      report.after_steps_ran = true;
    } catch (const std::exception& e) {
      report.after_steps_error = e.what();
    }
  }
  if (job.compare && !report.steps.empty() && !report.non_finite && report.error.empty() && !abandon_) {
    try {
      report.comparison = simulation.compare();
    } catch (const std::exception& e) {
      report.comparison_error = e.what();
    }
  }
  report.sim_time = simulation.time();
  report.finished = Clock::now();
  report.wall_ms = std::chrono::duration<double, std::milli>(report.finished - start).count();
  return report;
}

}  // namespace nbl
