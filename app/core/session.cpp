#include "app/core/session.hpp"

#include "sim/error.hpp"

namespace nbl {

namespace {

double ms_between(Session::Clock::time_point from, Session::Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace

Session::Session(const Settings& settings, const std::string& load_file, Simulation::BackendFactory factory,
                 std::optional<double> slice_ms)
    : simulation_(settings, load_file, std::move(factory)), editor_(simulation_.settings()) {
  if (slice_ms) stepper_.attach(simulation_, *slice_ms);
  refresh_between_jobs();
}

std::optional<StepReport> Session::collect(bool wait) {
  std::optional<StepReport> report = wait ? stepper_.wait() : stepper_.poll();
  if (!report) return report;
  const int steps = static_cast<int>(report->steps.size());
  if (steps > 0) {
    steps_completed_ += steps;
    state_finished_ = report->finished;
    last_step_ms_ = report->wall_ms / steps;
    step_rate_.record(report->finished, steps);
    stats_.record_step(report->steps.back());
  }
  if (tracing_) {
    const double wall_s = std::chrono::duration<double>(report->finished - start_).count();
    for (const StepStats& s : report->steps) {
      StepRecord r;
      r.step = step_rows_++;
      r.wall_s = wall_s;
      r.ms = report->wall_ms / steps;
      r.kernel_ms = s.total_ms;
      r.force_slices = s.force_slices;
      r.variant = job_variant_;
      trace_.record_step(std::move(r));
    }
    if (report->abandoned) {
      StepRecord r;
      r.step = step_rows_;
      r.wall_s = wall_s;
      r.ms = report->wall_ms;
      r.variant = job_variant_;
      r.abandoned = true;
      trace_.record_step(std::move(r));
    }
  }
  refresh_between_jobs();
  return report;
}

std::optional<Session::Applied> Session::apply_settings() {
  if (stepper_.busy()) return std::nullopt;
  Applied a;
  const std::string backend_before = simulation_.backend().name();
  const auto poll_started = Clock::now();
  if ((a.swapped = simulation_.poll())) {
    a.swap_ms = ms_between(poll_started, Clock::now());  // the swap call itself, teardown of the old build included
    if (!a.swapped->accepted) editor_.refused(simulation_);
  }
  if (editor_.take_comparison_change()) {  // A/B's B was started, edited or cleared
    a.comparison_changed = true;
    try {
      simulation_.set_comparison(editor_.comparison());
    } catch (const Error& e) {
      a.comparison_error = e.what();
      editor_.clear_comparison();
      editor_.take_comparison_change();
    }
  }
  if (auto refused = editor_.sync(simulation_, &a.restarted, /*asynchronous=*/true)) a.refused = *refused;
  a.backend_changed = simulation_.backend().name() != backend_before;
  if (a.backend_changed || a.restarted) stats_.clear_steps();
  if (a.restarted) state_replaced();
  refresh_between_jobs();
  return a;
}

bool Session::draft_leaves_running_variant() const {
  const Settings& a = simulation_.settings();
  const Settings& d = editor_.draft();
  return editor_.restart_pending(a) || !(d.toggles == a.toggles) || d.algorithm != a.algorithm ||
         d.backend != a.backend || d.opening_angle != a.opening_angle || d.dt != a.dt || d.softening != a.softening ||
         d.kernels_dir != a.kernels_dir;
}

bool Session::abandon_if_left(bool leaving, double after_ms) {
  if (!stepper_.busy() || stepper_.abandoning() || !leaving) return false;
  if (std::max(stepper_.running_ms(), last_step_ms_) <= after_ms) return false;
  stepper_.abandon();
  return true;
}

void Session::start_steps(int steps, bool compare, std::function<void(Simulation&)> after_steps, int tag) {
  job_variant_ = variant_label_;
  StepJob job;
  job.steps = steps;
  job.compare = compare;
  job.after_steps = std::move(after_steps);
  job.tag = tag;
  stepper_.start(simulation_, job);
}

bool Session::queue_steps(int steps, std::function<void(Simulation&)> after_steps, int tag) {
  StepJob job;
  job.steps = steps;
  job.after_steps = std::move(after_steps);
  job.tag = tag;
  return stepper_.queue(job);
}

void Session::stop_jobs() {
  stepper_.abandon();
  while (stepper_.wait()) {
  }
}

double Session::state_age_ms(Clock::time_point now) const { return ms_between(state_finished_, now); }

void Session::state_replaced() {
  state_finished_ = Clock::now();
  last_step_ms_ = 0;
  step_rate_.clear();
}

void Session::refresh_between_jobs() {
  comparison_ready_ = simulation_.comparison_ready();
  variant_label_ = simulation_.backend().variant_label();
  if (variant_label_.empty()) variant_label_ = simulation_.backend().name();
}

}  // namespace nbl
