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
  if (busy_) throw Error("a simulation job is still running");
  abandon_ = false;
  busy_ = true;
  started_ = Clock::now();
  if (!threaded_) {
    done_ = execute(simulation, job);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    simulation_ = &simulation;
    job_ = job;
  }
  wake_.notify_all();
}

std::optional<StepReport> Stepper::poll() {
  if (!busy_) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (!done_) return std::nullopt;
  busy_ = false;
  std::optional<StepReport> report = std::move(done_);
  done_.reset();
  return report;
}

std::optional<StepReport> Stepper::wait() {
  if (!busy_) return std::nullopt;
  std::unique_lock lock(mutex_);
  wake_.wait(lock, [this] { return done_.has_value(); });
  busy_ = false;
  std::optional<StepReport> report = std::move(done_);
  done_.reset();
  return report;
}

void Stepper::abandon() {
  if (busy_) abandon_ = true;
}

double Stepper::running_ms() const {
  return busy_ ? std::chrono::duration<double, std::milli>(Clock::now() - started_).count() : 0.0;
}

void Stepper::run() {
  // Below the display thread: where they share cores (the CPU backend's OpenMP team, started from here,
  // inherits this), the frame comes first and the steps take the rest.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kWorkerNice);
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || job_.has_value(); });
    if (stop_) return;
    const StepJob job = *job_;
    Simulation& simulation = *simulation_;
    job_.reset();
    lock.unlock();
    StepReport report = execute(simulation, job);
    lock.lock();
    done_ = std::move(report);
    wake_.notify_all();
  }
}

StepReport Stepper::execute(Simulation& simulation, const StepJob& job) {
  const auto start = Clock::now();
  StepReport report;
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
  if (job.compare && !report.steps.empty() && !report.non_finite && report.error.empty() && !abandon_) {
    try {
      report.comparison = simulation.compare();
    } catch (const std::exception& e) {
      report.comparison_error = e.what();
    }
  }
  report.finished = Clock::now();
  report.wall_ms = std::chrono::duration<double, std::milli>(report.finished - start).count();
  return report;
}

}  // namespace nbl
