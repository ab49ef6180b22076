#include "app/lab/lab.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <thread>

#include "app/core/commands.hpp"
#include "app/core/text_format.hpp"
#include "app/lab/offscreen_surface.hpp"
#include "app/lab/screenshot.hpp"
#include "app/core/text_format.hpp"
#include "render/gl.hpp"
#include "render/gl_errors.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

namespace {

constexpr double kKernelInfoRefreshS = 0.5;
constexpr std::size_t kForceErrorBudget = std::size_t(1) << 28;  // sample x n interactions per measurement
constexpr std::size_t kLadderBodies = std::size_t(1) << 16;      // as `nbodylab bench ladder` by default
constexpr std::size_t kTourBarnesHutBodies = std::size_t(1) << 18;
constexpr double kSlowStepMs = 100;  // a step slower than this is said to be slow, at the top of the panel
// A frame that would show the picture on screen draws nothing, but at least this often one draws: the
// panel's live figures (frame times, the state's age, build progress) move at that rate while nothing
// else does.
constexpr std::chrono::milliseconds kLiveFiguresPeriod{100};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

WindowOptions window_options(const LabOptions& o) {
  WindowOptions w = o.window;
  w.vsync = o.settings.view.vsync;
  return w;
}

// What can be refused without opening anything: a session that could never end, a script this lab
// cannot run, a trace that could not be written.
const LabOptions& checked(const LabOptions& o) {
  if (o.frames < 0) throw InputError("--frames must be >= 0");
  if (o.offscreen && o.frames == 0 && !(o.script && o.script->quits()))
    throw InputError("--offscreen has no window to close: give --frames N, or a --script with a \"quit\" entry");
  if (o.script) ScriptRunner(*o.script).check(Lab::script_cannot);
  check_output_file(o.trace_file, "--trace");
  return o;
}

// What a script cannot ask of a lab running `simulation`: A/B on a CPU backend.
std::string cannot_on(const Simulation& simulation, ScriptAction action) {
  const bool ab =
      action == ScriptAction::ab_start || action == ScriptAction::ab_swap || action == ScriptAction::ab_make_current;
  if (ab && !simulation.backend().on_gpu())
    return "A/B compares two GPU kernel variants on the same state, and this session runs on " +
           simulation.backend().name() + (simulation.notice().empty() ? "" : " (" + simulation.notice() + ")");
  return Lab::script_cannot(action);
}

// The script's runner, checked against the simulation it will drive, before a window or context opens.
std::optional<ScriptRunner> checked_runner(const LabOptions& o, const Simulation& simulation) {
  if (!o.script) return std::nullopt;
  ScriptRunner runner(*o.script);
  runner.check([&simulation](ScriptAction a) { return cannot_on(simulation, a); });
  return runner;
}

std::unique_ptr<Surface> open_surface(const LabOptions& o) {
  if (o.offscreen) return std::make_unique<OffscreenSurface>(FrameSize{o.window.width, o.window.height}, o.refresh_hz);
  return std::make_unique<Window>(window_options(o));
}

}  // namespace

Lab::Lab(const LabOptions& options)
    : options_(checked(options)),
      session_(options.settings, options.load_file, options.backend_factory, options.slice_ms),
      script_(checked_runner(options, simulation_)),
      surface_(open_surface(options)),
      ui_(*surface_),
      scene_(options.allow_interop),
      tuner_(simulation_.body_count(), cost_exponent(simulation_.settings().algorithm), !simulation_.backend().on_gpu(),
             options.tune_body_count && !options.settings.body_count && options.load_file.empty()),
      device_(query_device()),
      paused_(options.start_paused),
      tracing_(options.offscreen || options.script || !options.trace_file.empty()) {
  panel_.set_width(Panel::kWidth * surface_->content_scale());
  session_.set_tracing(tracing_);
  bookmarks_ = list_bookmarks(options_.bookmark_dir);
  if (!options_.record.target.empty()) start_recording(options_.record);  // a bad target stops before the first frame
  if (options.tour) {
    open_tour(*options.tour);
    if (!tour_) throw InputError(error_);  // --tour asked for it: a tour that cannot open ends the run
  }
}

Lab::~Lab() { session_.stop_jobs(); }

int Lab::run() {
  while (!surface_->should_close()) {
    if (options_.frames > 0 && frame_count_ == options_.frames - 1 && !options_.final_screenshot.empty())
      screenshots_.push_back({options_.final_screenshot, ScreenshotOwner::final});
    frame();
    if (options_.frames > 0 && frame_count_ >= options_.frames) break;
  }
  if (session_.stepping()) {  // the last job's steps count; an unfinished step is discarded
    session_.abandon_if_left(true, -1);
    wait_for_steps();
  }
  if (tracing_) finish_session(std::cout);
  if (recorder_ && !stop_recording()) {
    std::fprintf(stderr, "nbodylab: %s\n", error_.c_str());
    return kExitError;
  }
  if (!status_.empty() && status_.rfind("Recorded to ", 0) == 0) std::printf("%s\n", status_.c_str());
  return kExitOk;
}

void Lab::finish_session(std::ostream& out) {
  if (!options_.trace_file.empty()) {
    trace_.write_csv(options_.trace_file);
    out << "trace: " << trace_.records().size() << " frame(s) written to " << options_.trace_file.string();
    if (!trace_.steps().empty())
      out << ", " << trace_.steps().size() << " step(s) to " << FrameTrace::steps_file(options_.trace_file).string();
    out << "\n";
  }
  if (script_) {
    if (const std::string note = script_->unfinished_note(frame_count_); !note.empty())
      out << "script: " << note << "\n";
  }
  trace_.print_summary(out);
}

// The frame loop, one turn. The simulation steps on its own thread (app/core/stepper.hpp): a frame
// draws the newest finished state and never waits for a step.
void Lab::frame() {
  surface_->poll_events();
  ui_.set_look(editor_.draft().view.ui_scale, editor_.draft().view.panel_theme);  // presenter type size, theme
  run_script();  // a script's entries due now: settings, input, screenshots, A/B
  ui_.begin_frame();
  handle_input();    // keys and mouse: the camera moves, commands queue up
  collect_steps();   // finished jobs: their statistics and A/B samples; the newest state becomes the one drawn
  apply_settings();  // between jobs, the panel's edits reach the simulation; a slow job the user left is stopped
  prepare_scene();   // the newest finished state into the vertex buffer (between jobs)
  between_jobs();    // energy, the kernels' report: the backend's own work, before the next job
  // Between jobs the next one starts on the stepping thread, so its step runs while this frame draws;
  // while one runs, the next may queue behind it; an A/B job starts after the drawing instead, on an
  // idle GPU (simulate()).
  const bool ab_job = comparing();
  if (!ab_job) simulate();
  scene_.follow(camera_, editor_.draft().view);  // a bound camera moves with its bodies
  // A frame whose picture would be the one on screen draws nothing and waits for the display's next
  // refresh: the GPU's time goes to the steps (each frame's turn on the GPU costs a slow step more than
  // the frame's own work: docs/scripts.md).
  drawn_ = !picture_unchanged();
  if (drawn_) render_scene();  // the vertex buffer: sprites or splat, overlays, tone map
  else times_.render_ms = 0;
  if (ab_job) simulate();
  build_panel();   // widgets and live numbers, then ImGui draws them (when the frame draws)
  run_commands();  // buttons and keys (a screenshot sees this whole frame)
  record_frame();  // recording: this frame into the readback ring, finished ones to the encoder
  pace_beside_cpu_steps();
  if (drawn_) {
    surface_->swap_buffers();
    last_drawn_ = Clock::now();
    last_drawn_size_ = surface_->framebuffer();
    drawn_rate_.record(last_drawn_, 1);
  } else {
    surface_->skip_frame();
  }
  last_swap_ = Clock::now();
  finish_frame();  // timings, trace, energy, background jobs, N tuning
}

bool Lab::picture_unchanged() {
  // Only where frames wait for a display's refresh anyway (vsync; offscreen with --refresh): unpaced, the
  // lab draws as fast as it can, as a benchmark of the frame.
  if (!surface_->paced() || recorder_ || frame_count_ < 3) return false;
  if (ui_.had_input() || !script_ran_.empty() || !pending_.empty() || !screenshots_.empty()) {
    settling_frames_ = 2;
    return false;
  }
  if (settling_frames_ > 0) {
    --settling_frames_;
    return false;
  }
  const Viewport size = surface_->framebuffer();
  if (Clock::now() - last_drawn_ >= kLiveFiguresPeriod || size.width != last_drawn_size_.width ||
      size.height != last_drawn_size_.height)
    return false;
  return scene_.would_repeat(camera_, editor_.draft().view, scene_viewport());
}

void Lab::pace_beside_cpu_steps() const {
  // On the CPU backend the display's drawing (a software renderer's, on a machine without a GPU) and the
  // steps share the cores: while a step runs, a frame is handed over no sooner than a 60 Hz display's
  // vsync would take it, and the steps keep the rest (docs/scripts.md, "Measuring the never-freeze
  // targets": drawing as fast as it could, the lab kept 0.40 of the step rate on two cores; so, 0.55).
  // A paced surface waits for the display's refresh itself: waiting here too would take two.
  if (session_.stepping() && !simulation_.backend().on_gpu() && !surface_->paced())
    std::this_thread::sleep_until(last_swap_ + kCpuStepFramePeriod);
}

void Lab::run_script() {
  const Clock::time_point now = Clock::now();
  if (!session_started_) {
    session_started_ = now;
    session_.set_start(now);
  }
  script_ran_.clear();
  if (script_)
    script_ran_ = script_->run_due(frame_count_, std::chrono::duration<double>(now - *session_started_).count(), *this);
}

void Lab::handle_input() {
  const ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    for (const auto& binding : kKeyBindings)
      if (ImGui::IsKeyPressed(binding.key, false) && io.KeyCtrl == binding.ctrl) request(binding.command);
  }
  if (io.WantCaptureMouse) return;
  if (io.MouseDown[0]) camera_.orbit(io.MouseDelta.x, io.MouseDelta.y);
  if (io.MouseDown[1] || io.MouseDown[2])
    camera_.pan(io.MouseDelta.x, io.MouseDelta.y, static_cast<int>(io.DisplaySize.y));
  if (io.MouseWheel != 0.0f) camera_.zoom(io.MouseWheel);
}

void Lab::apply_settings() {
  if (surface_->vsync() != editor_.view().vsync)
    surface_->set_vsync(editor_.view().vsync);  // a view setting the window owns
  // While a job steps, settings wait for its end; a slow job of a variant the user has left (edits, or
  // commands waiting for the backend) is stopped now, its unfinished step discarded.
  if (session_.stepping()) {
    session_.abandon_if_left(session_.draft_leaves_running_variant() || !deferred_.empty(), kAbandonAfterMs);
    return;
  }
  run_deferred();
  if (tour_) tour_->sync(editor_, simulation_);  // the tour's A/B, once the step's algorithm runs
  if (editor_.pending()) vertices_stale_ = true;
  std::optional<Session::Applied> a = session_.apply_settings();
  if (!a) return;
  if (a->comparison_changed) ab_history_.clear();
  // A kernel build requested earlier finished on its worker thread and was swapped in (or refused).
  swapped_this_frame_ = a->swapped;
  swap_ms_ = a->swap_ms;
  if (a->swapped) {
    char latency[32];
    std::snprintf(latency, sizeof latency, "%.2f s", a->swapped->latency_s);
    if (a->swapped->accepted) {
      status_ = "Now running " + a->swapped->label + " (built and checked in " + latency + ")";
      vertices_stale_ = true;
      kernels_refreshed_s_ = -1;
    } else {
      error_ = "Not applied: " + a->swapped->label + ": " + a->swapped->message;
    }
    last_build_ = *a->swapped;
  }
  if (!a->comparison_error.empty()) {
    error_ = "A/B: " + a->comparison_error;
    ab_error_ = "B was cleared: " + error_;
  }
  if (!a->refused.empty()) error_ = "Not applied: " + a->refused;
  if (ab_after_swap_ && !editor_.pending() && !simulation_.building()) {  // the swap's A runs (or was refused)
    if (same_ab_settings(simulation_.settings(), editor_.comparison().value_or(*ab_after_swap_)))
      editor_.start_comparison(*ab_after_swap_);
    ab_after_swap_.reset();
  }
  if (a->restarted) bodies_replaced();
  if (a->restarted && editor_.comparison()) editor_.start_comparison(*editor_.comparison());  // B on the new backend
  if (a->backend_changed) {  // new algorithm or backend: old timings do not apply
    kernels_refreshed_s_ = -1;
    if (const auto& b = editor_.comparison()) {  // B lived in the old backend
      if (b->algorithm == simulation_.settings().algorithm) editor_.start_comparison(*b);
      else {
        ab_error_ = "B was cleared when the algorithm changed";
        editor_.clear_comparison();
      }
    }
  }
}

void Lab::wait_for_steps() {
  // Every job, a queued one included: what runs next reads the state.
  while (std::optional<StepReport> report = session_.collect(/*wait=*/true)) job_finished(*report);
}

void Lab::collect_steps() {
  steps_this_frame_ = 0;
  ab_sample_.reset();
  // Every finished job, oldest first (a queued job may have ended too); the newest state is drawn from
  // the vertices its job wrote aside, or written from the backend once no job runs (prepare_scene).
  std::optional<StepReport> staged;
  while (std::optional<StepReport> report = session_.collect()) {
    job_finished(*report);
    if (report->after_steps_ran) staged = std::move(report);
    else if (!report->steps.empty()) staged.reset();
    if (!report->after_steps_error.empty())
      error_ = "The vertices could not be written aside: " + report->after_steps_error;
  }
  if (!staged || state_broken_) return;
  const int slot = staged->tag;
  try {
    scene_.adopt_staged(slot, staged_view_[static_cast<std::size_t>(slot & 1)],
                        {staged->sim_time, simulation_.body_groups()});
    times_.vertices_ms += scene_.vertices().update_ms();
    drawn_view_ = staged_view_[static_cast<std::size_t>(slot & 1)];
    vertices_stale_ = false;
  } catch (const Error& e) {
    pause_because(std::string("Cannot read the bodies for drawing: ") + e.what());
  }
}

void Lab::job_finished(StepReport& report) {
  times_.simulate_ms = report.wall_ms;
  const int steps = static_cast<int>(report.steps.size());
  if (report.abandoned)
    abandoned_note_ = "A step of " + session_.job_variant() + " was abandoned after " + fmt_ms(report.wall_ms) +
                      " when you switched: its result was discarded, and the state is the last finished one.";
  if (steps > 0) {
    steps_this_frame_ += steps;
    vertices_stale_ = true;
    if (!paused_ && !state_broken_) {  // N tuning: the steps should keep up with the display
      const double fixed_ms = std::max(drawn_render_ms_, render_cpu_ms_) + times_.ui_ms;  // the last drawn frame's
      const double step_ms = session_.last_step_ms() * simulation_.settings().steps_per_frame;
      if (auto n = tuner_.observe(step_ms + times_.vertices_ms, fixed_ms)) {
        editor_.set_body_count(static_cast<std::int64_t>(*n));
        editor_.request_restart();
      }
    }
  }
  if (report.non_finite) {
    state_broken_ = true;
    char text[256];
    std::snprintf(text, sizeof text,
                  "NaN or inf appeared in the bodies at t = %.4g: paused rather than draw garbage. Reset (R) to "
                  "start over; a smaller dt or a larger softening keeps close encounters finite.",
                  simulation_.time());
    pause_because(text);
  }
  if (!report.error.empty())
    pause_because("The simulation stopped: " + report.error +
                  "\nThe window stays open: change settings, Reset (R), or resume (Space) to try again.");
  if (report.comparison) {
    ab_history_.add(*report.comparison);
    ab_sample_ = std::move(report.comparison);
  }
  if (!report.comparison_error.empty()) {
    error_ = "A/B stopped: " + report.comparison_error;
    ab_error_ = "B was cleared: " + error_;
    ab_stop();
  }
}

void Lab::simulate() {
  const bool run = (!paused_ || step_once_) && !state_broken_ && !ladder_.running() && deferred_.empty();
  const int steps = paused_ ? 1 : simulation_.settings().steps_per_frame;
  if (session_.stepping()) {
    // A frame that finds a job running queues the next behind it (at most one), so the steps follow
    // each other without waiting for a frame: each writes its vertices aside for the display to take.
    // A queued job that has not started is dropped when the frame wants the time between jobs after
    // all (an edit, a command, a view to rewrite), so that a slow step does not delay it twice; the
    // staging buffers then go on in turn as before it.
    if (!run || !may_queue_steps()) {
      if (session_.unqueue_steps()) next_stage_slot_ ^= 1;
    } else if (!session_.steps_queued()) {
      const int slot = next_stage_slot_;
      if (std::function<void(Simulation&)> after = staged_vertices(slot);
          after && session_.queue_steps(steps, std::move(after), slot))
        next_stage_slot_ ^= 1;
    }
    return;
  }
  if (!run) return;
  step_once_ = false;
  // A/B times A's step and then B's pass on the same state: the job starts on an idle GPU, after the
  // frame's drawing, which would otherwise overlap A's kernels alone (at 65,536 bodies on the H200 it
  // added 0.6 ms to A's 2.3 ms force pass, and the tour's live speed-ups read 0.74x for steps that gain).
  // Its vertices are written once B's keys are known (prepare_scene).
  const bool compare = comparing();
  if (compare) glFinish();
  const int slot = next_stage_slot_;
  std::function<void(Simulation&)> after = compare ? nullptr : staged_vertices(slot);
  if (after) next_stage_slot_ ^= 1;
  session_.start_steps(steps, compare, std::move(after), after ? slot : -1);
}

std::function<void(Simulation&)> Lab::staged_vertices(int slot) {
  const ViewSettings& view = editor_.draft().view;
  if (!session_.stepping()) scene_.prepare_staging(simulation_.backend());  // the buffers, between jobs
  if (!scene_.can_stage(simulation_.backend(), view)) return nullptr;
  staged_view_[static_cast<std::size_t>(slot & 1)] = view;
  return [this, slot, view](Simulation& simulation) { scene_.stage(simulation.backend(), view, slot); };
}

bool Lab::may_queue_steps() const {
  const ViewSettings& view = editor_.draft().view;
  if (paused_ || state_broken_ || comparing() || editor_.pending() || !deferred_.empty() || simulation_.building() ||
      vertices_stale_ || session_.abandoning() || fit_pending_ || !scene_.can_stage(simulation_.backend(), view))
    return false;
  // A measurement of the energy starts, and the kernels' report is read, between jobs while steps are
  // fast; slow steps follow each other, and they wait.
  const double now = seconds_since_start();
  const bool slow = std::max(session_.last_step_ms(), session_.running_ms()) > kSlowStepMs;
  return slow || (!energy_.due(now) && now - kernels_refreshed_s_ <= kKernelInfoRefreshS);
}

void Lab::between_jobs() {
  const double now = seconds_since_start();
  // The device's energy pass runs on a stream of its own beside the steps (but not beside A/B's timed
  // passes); a measurement starts between jobs (it copies the state).
  const bool stepping = session_.stepping();
  if (!state_broken_ && !ladder_.running() && !(stepping && comparing()))
    energy_.poll(simulation_, now, energy_budget_ms(), !stepping);
  if (stepping) return;
  if (now - kernels_refreshed_s_ > kKernelInfoRefreshS) {
    kernels_ = simulation_.backend().kernel_info();
    kernels_refreshed_s_ = now;
  }
}

double Lab::energy_budget_ms() const {
  return energy_slice_ms({stats_.step_ms.median(), stats_.frame_ms.median(), session_.steps_per_s(Clock::now()),
                          simulation_.settings().steps_per_frame});
}

bool Lab::comparing() const { return editor_.comparison() && simulation_.backend().on_gpu(); }

void Lab::prepare_scene() {
  // The next job's steps are queued on the backend's stream behind this write, so a frame's step runs
  // while the frame draws (a 1M Barnes-Hut step then fits a 240 Hz frame).
  times_.vertices_ms = 0;
  const ViewSettings& view = editor_.draft().view;
  if (view.color_mode != drawn_view_.color_mode || view.octree_depth != drawn_view_.octree_depth ||
      view.show_bounding_box != drawn_view_.show_bounding_box || view.show_axes != drawn_view_.show_axes)
    vertices_stale_ = true;
  update_vertices();  // a finished job's state, a new view, a restart, a loaded state
  if (fit_pending_ && scene_.vertices().count() > 0) {
    camera_.fit(scene_.measure_extent());
    fit_pending_ = false;
  }
}

void Lab::render_scene() {
  const auto start = Clock::now();
  const Viewport full = surface_->framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, surface_->draw_framebuffer());
  glViewport(0, 0, full.width, full.height);
  glClearColor(0.02f, 0.02f, 0.035f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  const ViewSettings& view = editor_.draft().view;
  const Viewport viewport = scene_viewport();
  if (viewport.width > 0 && viewport.height > 0) scene_.draw(camera_, view, viewport, surface_->draw_framebuffer());
  glFlush();  // the GPU starts drawing now
  render_cpu_ms_ = ms_since(start);
  times_.render_ms = scene_.render_gpu_ms() > 0 ? scene_.render_gpu_ms() : render_cpu_ms_;
  drawn_render_ms_ = times_.render_ms;
}

void Lab::update_vertices() {
  // Paused and unchanged: draw what the buffer holds. While a job steps, the buffer keeps the newest
  // finished state (the backend's bodies are mid-step); it is rewritten when the job ends.
  if (!vertices_stale_ || state_broken_ || session_.stepping()) return;
  const ViewSettings& view = editor_.draft().view;
  try {
    scene_.update(simulation_.backend(), view, {simulation_.time(), simulation_.body_groups()});
    times_.vertices_ms += scene_.vertices().update_ms();
    drawn_view_ = view;
    vertices_stale_ = false;
  } catch (const Error& e) {
    pause_because(std::string("Cannot read the bodies for drawing: ") + e.what());
  }
}

void Lab::build_panel() {
  const auto start = Clock::now();
  PanelFacts facts;
  facts.simulation = &simulation_;
  facts.stats = &stats_;
  facts.energy = &energy_;
  facts.force_error = &force_error_;
  if (force_error_) facts.current_variant = settings_to_json(simulation_.settings());
  facts.ladder = &ladder_;
  facts.kernels = &kernels_;
  facts.scene = &scene_;
  facts.device = &device_;
  facts.gl_description = surface_->gl_description();
  facts.paused = paused_ || state_broken_;
  facts.pause_reason = pause_reason_;
  if (ladder_.running()) facts.pause_reason = "Paused while the ladder runs.";
  facts.status = status_;
  facts.error = error_;
  facts.gl_error = gl_error_;
  facts.builds = simulation_.builds();
  facts.ab_history = &ab_history_;
  facts.ab_builds = simulation_.comparison_builds();
  facts.ab_ready = session_.comparison_ready();
  facts.auto_n_note = tuner_.note();
  {
    SteppingFacts& st = facts.stepping;
    const auto now = Clock::now();
    st.steps_per_s = session_.steps_per_s(now);
    st.step_ms = session_.last_step_ms();
    st.state_age_ms = session_.state_age_ms(now);
    st.running_ms = session_.running_ms();
    st.drawn_per_s = drawn_rate_.per_second(now);
    const double slow_ms = std::max(st.step_ms, st.running_ms);
    if (slow_ms > kSlowStepMs && !paused_)
      st.slow_notice = "This variant takes " + fmt_ms(slow_ms) + " a step" +
                       (st.step_ms >= st.running_ms ? "" : " so far") +
                       ": the picture moves that slowly, while the window, the camera and this panel stay live.";
    st.abandoned_note = abandoned_note_;
  }
  facts.unicode_font = ui_.unicode_font();
  facts.recording = recorder_ != nullptr;
  if (recorder_) {
    const RecordStats r = recorder_->stats();
    facts.record_line = "Recording " + std::to_string(recorder_->width()) + "x" + std::to_string(recorder_->height()) +
                        " to " + recorder_->describe() + ": " + std::to_string(r.written) + " frames, " +
                        std::to_string(r.dropped) + " dropped";
  }
  facts.bookmarks = &bookmarks_;
  const Caption caption = this->caption();
  facts.caption_title = caption.title;
  facts.caption_figure = caption.figure;
  facts.caption_font = ui_.caption_font();
  const ViewSettings& view = editor_.draft().view;
  panel_.set_width(Panel::kWidth * surface_->content_scale() * view.ui_scale *
                   (view.presenter ? Panel::kPresenterWidthShare : 1.0f));
  for (LabCommand c : panel_.build(facts, editor_)) request(c);
  if (tour_) {
    TourFacts tf;
    tf.session = &*tour_;
    tf.live = tour_live();
    tour_->note_live(tf.live);  // predict, then measure: the open step's row takes the newest measurement
    if (simulation_.building()) tf.running = "Building this step's kernels; the previous ones keep running meanwhile.";
    tf.lab_error = error_;
    const ImGuiIO& io = ImGui::GetIO();
    tour_view_.set_width(
        std::min(TourView::kWidth * surface_->content_scale(), 0.5f * (io.DisplaySize.x - panel_.width())));
    for (LabCommand c : tour_view_.build(tf, io.DisplaySize.y)) request(c);
    if (auto jump = tour_view_.take_jump()) tour_->request(*jump, editor_, simulation_);
  }
  ui_.render(drawn_);
  times_.ui_ms = ms_since(start);
}

void Lab::run_commands() {
  const auto commands = std::move(pending_);
  pending_.clear();
  for (LabCommand c : commands) execute(c);
  if (!drawn_) return;  // a screenshot waits for a frame that draws (the next: picture_unchanged)
  const auto screenshots = std::move(screenshots_);
  screenshots_.clear();
  for (const PendingScreenshot& shot : screenshots) {
    try {
      save_screenshot(shot.file, surface_->framebuffer(), surface_->draw_framebuffer());
      status_ = "Screenshot saved to " + shot.file.string();
    } catch (const Error& e) {
      error_ = e.what();
      if (shot.owner == ScreenshotOwner::final) final_screenshot_error_ = "the screenshot was not saved: " + error_;
      // A script that asked for a picture is a test or a measurement: without it, the run failed.
      if (shot.owner == ScreenshotOwner::script) throw Error("the script's screenshot was not saved: " + error_);
    }
  }
}

void Lab::finish_frame() {
  if (std::string gl_error = take_gl_error(); !gl_error.empty() && gl_error_.empty()) gl_error_ = std::move(gl_error);
  times_.frame_ms = ms_since(frame_started_);
  frame_started_ = Clock::now();
  stats_.record_frame(times_);
  if (tracing_) record_trace();
  ++frame_count_;

  if (ladder_.poll()) status_ = ladder_.error().empty() ? "Ladder finished." : "";
}

// Commands that need the backend between two steps (a reset, a bookmark, the force error) wait here
// while a job runs; a slow job the user has left is stopped for them (apply_settings).
bool Lab::defer_while_stepping(LabCommand command) {
  if (!session_.stepping()) return false;
  deferred_.push_back(command);
  return true;
}

void Lab::run_deferred() {
  const auto commands = std::move(deferred_);
  deferred_.clear();
  for (LabCommand c : commands) execute(c);
}

void Lab::compare_ab() {
  if (!editor_.comparison()) return;
  try {
    if (auto sample = simulation_.compare()) {
      ab_history_.add(*sample);
      ab_sample_ = std::move(*sample);
    }
  } catch (const Error& e) {
    error_ = std::string("A/B stopped: ") + e.what();
    ab_error_ = "B was cleared: " + error_;
    ab_stop();
  }
}

// B is the draft (what A will run once its pending edits apply) with the entry's toggles and the rows of
// kSettings that vary in an A/B (theta).
void Lab::ab_start(const SettingsChange& change) {
  ab_error_.clear();
  ab_after_swap_.reset();
  Settings b = editor_.draft();
  const std::string algorithm(to_string(b.algorithm));
  for (const auto& [setting, value] : change.settings) {
    if (setting->only_for && *setting->only_for != b.algorithm)
      throw Error("B's " + std::string(setting->key) + " needs " + std::string(to_string(*setting->only_for)) +
                  "; this session runs " + algorithm);
    setting->access.set(b, value);
  }
  for (const auto& [toggle, value] : change.toggles) {
    if (toggle->algorithm != b.algorithm &&
        value != b.toggles.values[static_cast<std::size_t>(toggle - kToggles.data())])
      throw Error(std::string(toggle->key) + " is a " + std::string(to_string(toggle->algorithm)) +
                  " toggle; this session runs " + algorithm);
    b.toggles.values[static_cast<std::size_t>(toggle - kToggles.data())] = value;
  }
  editor_.start_comparison(b);
}

void Lab::ab_stop() {
  ab_after_swap_.reset();
  editor_.clear_comparison();
}

// Why there is no B for a script's A/B entry: never started, or stopped (with the lab's reason).
std::string Lab::no_b_reason(const char* what) const {
  return std::string("there is no B to ") + what +
         (ab_error_.empty() ? ": start one with \"ab_start\" first" : ": " + ab_error_);
}

void Lab::ab_swap() {
  if (!editor_.comparison()) throw Error(no_b_reason("swap with"));
  const Settings a = simulation_.requested();
  const Settings b = *editor_.comparison();
  copy_ab_settings(editor_.draft(), b);
  editor_.changed();
  Settings next_b = a;
  next_b.view = b.view;
  ab_after_swap_ = next_b;  // apply_settings() makes it B once the new A runs
}

void Lab::ab_make_current() {
  if (!editor_.comparison()) throw Error(no_b_reason("make current"));
  copy_ab_settings(editor_.draft(), *editor_.comparison());
  editor_.changed();
  editor_.clear_comparison();
}

void Lab::execute(LabCommand command) {
  switch (command) {
    case LabCommand::reset:
    case LabCommand::measure_force_error:
    case LabCommand::save_bookmark:
    case LabCommand::load_bookmark:
      if (defer_while_stepping(command)) return;
      break;
    default: break;
  }
  switch (command) {
    case LabCommand::ab_swap:  // the panel offers these only while B exists
      if (editor_.comparison()) ab_swap();
      break;
    case LabCommand::ab_make_current:
      if (editor_.comparison()) ab_make_current();
      break;
    case LabCommand::ab_clear: ab_stop(); break;
    case LabCommand::tour_allpairs: open_tour(TourKind::allpairs); break;
    case LabCommand::tour_barneshut: open_tour(TourKind::barneshut); break;
    case LabCommand::tour_next:  // keys without a tour open do nothing
      if (tour_ && tour_->awaiting())
        execute(tour_view_.typed_prediction() ? LabCommand::tour_run_step : LabCommand::tour_skip_prediction);
      else if (tour_ && tour_->has_next()) tour_->request(tour_->step() + 1, editor_, simulation_);
      break;
    case LabCommand::tour_previous:  // back from a step that waits for its prediction: the open step stays
      if (tour_ && tour_->awaiting()) tour_->cancel_prediction();
      else if (tour_ && tour_->has_previous()) tour_->go(tour_->step() - 1, editor_, simulation_);
      break;
    case LabCommand::tour_toggle_predicting:
      if (tour_) tour_->set_predicting(!tour_->predicting());
      break;
    case LabCommand::tour_run_step:
    case LabCommand::tour_skip_prediction:
      if (tour_ && tour_->awaiting()) {
        const auto typed = command == LabCommand::tour_run_step ? tour_view_.typed_prediction() : std::nullopt;
        tour_->predict(typed, typed ? "the class" : "skipped", editor_, simulation_);
        tour_view_.clear_prediction();
      }
      break;
    case LabCommand::tour_export_predictions:
      if (tour_) {
        try {
          const std::string base = "tour-" + std::string(to_string(tour_->tour().kind)) + "-predictions";
          for (const char* extension : {".csv", ".md"})
            export_predictions(options_.screenshot_dir / (base + extension));
          status_ = "Predictions written to " + (options_.screenshot_dir / (base + ".csv")).string() + " and .md";
        } catch (const Error& e) {
          error_ = std::string("Predictions: ") + e.what();
        }
      }
      break;
    case LabCommand::tour_close:
      if (tour_) tour_->close(editor_);
      tour_.reset();
      break;
    case LabCommand::toggle_pause:
      if (state_broken_) {
        error_ = "The bodies hold NaN or inf: Reset (R) first.";
        break;
      }
      paused_ = !paused_;
      if (!paused_) pause_reason_.clear();
      break;
    case LabCommand::step:
      if (paused_) step_once_ = true;
      break;
    case LabCommand::reset:
      if (editor_.restart_pending(simulation_.settings())) {
        editor_.request_restart();  // applied by the next frame's sync
      } else {
        simulation_.reset();
        bodies_replaced();
      }
      break;
    case LabCommand::fit_camera: fit_pending_ = true; break;
    case LabCommand::toggle_fullscreen: surface_->toggle_fullscreen(); break;
    case LabCommand::toggle_vsync:
      editor_.view().vsync = !editor_.view().vsync;  // the next frame hands it to the window
      status_ = std::string("VSync ") + (editor_.view().vsync ? "on" : "off");
      break;
    case LabCommand::screenshot: request_screenshot(next_screenshot_path(options_.screenshot_dir)); break;
    case LabCommand::toggle_panel: panel_.toggle_visible(); break;
    case LabCommand::quit: surface_->request_close(); break;
    case LabCommand::measure_force_error: measure_force_error(); break;
    case LabCommand::run_ladder:
      ladder_.start(editor_.current(simulation_), kLadderBodies);
      status_ = "Running the all-pairs ladder...";
      break;
    case LabCommand::save_settings:
      try {
        save_settings(panel_.settings_file(), editor_.current(simulation_));
        status_ = "Settings saved to " + std::filesystem::absolute(panel_.settings_file()).string();
      } catch (const Error& e) {
        error_ = e.what();
      }
      break;
    case LabCommand::load_settings: load_settings_from(panel_.settings_file()); break;
    case LabCommand::load_preset: load_settings_from(panel_.preset_file()); break;
    case LabCommand::toggle_recording:
      if (recorder_) {
        stop_recording();
      } else {
        try {
          RecordOptions o;
          o.target = panel_.record_target();
          o.include_panel = panel_.record_include_panel();
          start_recording(o);
        } catch (const Error& e) {
          error_ = e.what();
        }
      }
      break;
    case LabCommand::toggle_presenter:
      editor_.view().presenter = !editor_.view().presenter;
      status_ = std::string("Presenter layout ") + (editor_.view().presenter ? "on (F9 to leave)" : "off");
      break;
    case LabCommand::toggle_follow:
      editor_.view().follow_bound = !editor_.view().follow_bound;
      status_ =
          std::string("Camera ") + (editor_.view().follow_bound ? "follows the bound bodies" : "stays where it is");
      break;
    case LabCommand::save_bookmark: save_bookmark(panel_.bookmark_name()); break;
    case LabCommand::load_bookmark:
      if (const auto* b = panel_.selected_bookmark(bookmarks_)) restore_bookmark(*b);
      break;
  }
}

void Lab::start_recording(const RecordOptions& options) {
  if (recorder_) stop_recording();
  record_region_ = options.include_panel ? surface_->framebuffer() : scene_viewport();
  if (record_region_.width <= 0 || record_region_.height <= 0)
    throw InputError("nothing to record: the scene has no room");
  recorder_ = std::make_unique<Recorder>(options, record_region_.width, record_region_.height);
  status_ = "Recording to " + recorder_->describe() + " (F10 stops)";
  error_.clear();
}

bool Lab::stop_recording() {
  if (!recorder_) return true;
  std::unique_ptr<Recorder> recorder = std::move(recorder_);
  try {
    const RecordStats r = recorder->stop();
    char text[160];
    std::snprintf(text, sizeof text, ": %lld frames (%lld dropped and %lld repeated in their place)",
                  static_cast<long long>(r.written), static_cast<long long>(r.dropped),
                  static_cast<long long>(r.repeated));
    status_ = "Recorded to " + recorder->describe() + text;
    return true;
  } catch (const Error& e) {
    error_ = e.what();
    return false;
  }
}

void Lab::record_frame() {
  if (!recorder_) return;
  const Viewport region = recorder_->options().include_panel ? surface_->framebuffer() : scene_viewport();
  try {
    if (const std::string failed = recorder_->error(); !failed.empty()) throw Error(failed);
    const bool resized = region.width != record_region_.width || region.height != record_region_.height;
    if (resized && region.width > 0 && region.height > 0) {
      // The panel widened (presenter type size), the window was resized: the video keeps its size, and
      // the new area is scaled to fit it (Recorder::capture). Said once for each new size.
      status_ = "Recording " + recorder_->describe() + " at " + std::to_string(recorder_->width()) + "x" +
                std::to_string(recorder_->height()) + ": the recorded area is now " + std::to_string(region.width) +
                "x" + std::to_string(region.height) + ", scaled to fit (black around it)";
      record_region_ = region;
    }
    recorder_->capture(surface_->draw_framebuffer(), region);
  } catch (const Error& e) {
    const std::string why = e.what();
    stop_recording();  // keeps what was written, or says why not
    error_ = "Recording stopped: " + why + (error_.empty() ? "" : "; " + error_);
    recording_failure_ = error_;
  }
}

void Lab::save_bookmark(const std::string& name) {
  wait_for_steps();  // from the panel this runs between jobs; called directly, it waits for one
  try {
    const Bookmark b = nbl::save_bookmark(options_.bookmark_dir, name, editor_.current(simulation_), simulation_);
    bookmarks_ = list_bookmarks(options_.bookmark_dir);
    status_ = "Bookmark saved: " + b.tipsy.string() + " and " + b.settings.filename().string();
  } catch (const Error& e) {
    error_ = e.what();
  }
}

void Lab::restore_bookmark(const Bookmark& bookmark) {
  wait_for_steps();
  try {
    LoadedBookmark loaded = read_bookmark(bookmark, editor_.current(simulation_));
    // The look of the room stays: presenter mode, type size and theme are the presenter's, not the moment's.
    const ViewSettings here = editor_.draft().view;
    loaded.settings.view.ui_scale = here.ui_scale;
    loaded.settings.view.panel_theme = here.panel_theme;
    loaded.settings.view.presenter = here.presenter;
    loaded.settings.view.vsync = here.vsync;
    editor_.clear_comparison();
    simulation_.restore(loaded.settings, std::move(loaded.snapshot));
    editor_.adopt(simulation_.settings());
    tuner_.stop();
    bodies_replaced();
    char time[32];
    std::snprintf(time, sizeof time, "%.3g", simulation_.time());
    status_ = "Bookmark " + bookmark.name + ": " + with_commas(static_cast<std::int64_t>(simulation_.body_count())) +
              " bodies at t = " + time;
    error_.clear();
  } catch (const Error& e) {
    error_ = "Bookmark " + bookmark.name + ": " + e.what();
  }
}

LiveSpeedup Lab::tour_live() const {
  const auto force =
      std::find_if(stats_.stages.begin(), stats_.stages.end(), [](const auto& s) { return s.first == "force"; });
  const double force_ms = force != stats_.stages.end() && force->second.count() > 0 ? force->second.median() : 0.0;
  return tour_->live(simulation_, ab_history_, session_.comparison_ready(), force_ms);
}

Caption Lab::caption() const {
  if (caption_) return *caption_;
  Caption c;
  if (tour_) {  // the tour's step and its live speed-up over the step it builds on
    c.title = "Step " + std::to_string(tour_->step() + 1) + ": " + tour_->current().title;
    c.figure = tour_live().text;
    return c;
  }
  const Settings& s = simulation_.settings();
  c.title = std::string(s.algorithm == Algorithm::barneshut ? "Barnes-Hut" : "All-pairs") + ", " +
            with_commas(static_cast<std::int64_t>(simulation_.body_count())) + " bodies";
  if (ab_history_.size() > 0) {
    const auto rows = ab_history_.rows();
    if (!rows.empty() && !rows.back().speedup.empty()) {
      c.figure = "B is " + rows.back().speedup.describe() + " than A";
      return c;
    }
  }
  if (stats_.has_step) {
    char text[128];
    const double ms = stats_.step_ms.median();
    const double rate = stats_.median_interactions_per_s();
    std::snprintf(text, sizeof text, "%.3g ms per step", ms);
    c.figure = text;
    if (rate > 0) c.figure += ", " + si(rate, "interactions/s");
    c.figure += simulation_.backend().on_gpu() ? "" : " (CPU)";
  }
  return c;
}

void Lab::load_settings_from(const std::string& file) {
  try {
    editor_.load(load_settings(file, editor_.current(simulation_)));
    status_ = "Settings loaded from " + file;
    error_.clear();
  } catch (const Error& e) {
    error_ = e.what();
  }
}

void Lab::measure_force_error() {
  wait_for_steps();
  const std::size_t n = std::max<std::size_t>(simulation_.body_count(), 1);
  const std::size_t sample = std::clamp<std::size_t>(kForceErrorBudget / n, 64, 1024);
  const auto start = Clock::now();
  try {
    ForceErrorReading reading;
    reading.error = simulation_.force_error(sample);
    reading.sample = std::min(sample, n);
    reading.ms = ms_since(start);
    reading.variant = settings_to_json(simulation_.settings());
    reading.sim_time = simulation_.time();
    force_error_ = reading;
  } catch (const Error& e) {
    error_ = std::string("Force error: ") + e.what();
  }
}

void Lab::pause_because(const std::string& reason) {
  paused_ = true;
  pause_reason_ = reason;
}

void Lab::bodies_replaced() {
  state_broken_ = false;
  session_.state_replaced();     // the new initial state is the newest finished one
  if (!pause_reason_.empty()) {  // it paused itself; new bodies are a fresh start
    paused_ = options_.start_paused;
    pause_reason_.clear();
  }
  energy_.restart();
  stats_.clear_steps();
  force_error_.reset();
  fit_pending_ = true;
  vertices_stale_ = true;
}

Viewport Lab::scene_viewport() const {
  Viewport v = surface_->framebuffer();
  const float display_width = ImGui::GetIO().DisplaySize.x;
  const float to_pixels = display_width > 0 ? static_cast<float>(v.width) / display_width : 1.0f;
  v.width = std::max(0, v.width - static_cast<int>(panel_.width() * to_pixels));
  if (tour_) {  // the tour's window at the left edge: the scene is what is left between it and the panel
    const int tour = std::min(v.width, static_cast<int>(tour_view_.width() * to_pixels));
    v.x += tour;
    v.width -= tour;
  }
  return v;
}

void Lab::tour(TourKind kind, std::size_t step) {
  if (tour_ && tour_->tour().kind == kind) {
    tour_->cancel_prediction();  // the script names the step: it opens, predicted or not
    tour_->go(step, editor_, simulation_);
    return;
  }
  open_tour(kind, step);
  if (!tour_) throw Error(error_);
}

void Lab::open_tour(TourKind kind, std::size_t step) {
  try {
    Tour tour = load_tour(kind);
    if (tour_) tour_->close(editor_);
    tour_.emplace(std::move(tour));
    tour_->go(step, editor_, simulation_);
    status_ = "Tour: " + tour_->tour().title;
    // The tour's early steps are its slowest (N threads without tiles, Barnes-Hut with nothing tuned): at
    // the N this machine picked for the default scene they would step seconds apart. Unless the user chose
    // N, the tour runs at the ladder's N (all-pairs) or a quarter million (Barnes-Hut), and N stays put.
    const std::size_t cap = kind == TourKind::allpairs ? kLadderBodies : kTourBarnesHutBodies;
    if (tuner_.active()) tuner_ = BodyCountTuner(simulation_.body_count(), 1.0, false, false);
    if (!options_.settings.body_count && options_.load_file.empty() && simulation_.body_count() > cap) {
      editor_.set_body_count(static_cast<std::int64_t>(cap));
      editor_.request_restart();
      status_ += " (at " + with_commas(static_cast<std::int64_t>(cap)) +
                 " bodies, so that its slowest steps still run several times a second; -n chooses)";
    }
  } catch (const Error& e) {
    error_ = std::string("Tour: ") + e.what();
  }
}

void Lab::predict(std::optional<double> speedup, bool tutorial) {
  if (!tour_) throw Error("no guided tour is open: open one with --tour or a \"tour\" entry before \"predict\"");
  std::string source = speedup ? "the class" : "skipped";
  if (tutorial) {
    speedup = tour_->tutorial_prediction();
    source = speedup ? "the tutorial's figure" : "skipped: the tutorial did not measure this step";
  }
  tour_->predict(speedup, source, editor_, simulation_);
}

void Lab::set_predicting(bool on) {
  if (!tour_) throw Error("no guided tour is open: open one with --tour or a \"tour\" entry before \"predict\"");
  tour_->set_predicting(on);
}

void Lab::export_predictions(const std::filesystem::path& file) {
  if (!tour_) throw Error("no guided tour is open, so there are no predictions to export");
  const std::string heading = "Predict, then measure: " + tour_->tour().title + " (" + simulation_.backend().name() +
                              ", " + with_commas(static_cast<std::int64_t>(simulation_.body_count())) + " bodies)";
  tour_->predictions().write(file, heading);
  status_ = "Predictions written to " + file.string();
}

double Lab::seconds_since_start() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

void Lab::record_trace() {
  FrameRecord r;
  r.frame = frame_count_;
  r.wall_s = session_started_ ? std::chrono::duration<double>(Clock::now() - *session_started_).count() : 0.0;
  r.interval_ms = times_.frame_ms;
  r.simulate_ms = times_.simulate_ms;
  r.vertices_ms = times_.vertices_ms;
  r.render_ms = times_.render_ms;
  r.panel_ms = times_.ui_ms;
  r.steps = steps_this_frame_;
  if (simulation_.building()) {
    const std::vector<BuildProgress> builds = simulation_.builds();
    if (!builds.empty()) {  // the newest: the one pending
      r.build_state = to_string(builds.back().state);
      r.build_label = builds.back().label;
    }
  }
  r.building = simulation_.building() || swapped_this_frame_.has_value();
  r.variant = session_.variant_label();
  r.state_age_ms = session_.state_age_ms(Clock::now());
  r.steps_completed = session_.steps_completed();
  r.stepping = session_.stepping();
  r.camera_yaw_deg = camera_.yaw_deg();
  r.camera_pitch_deg = camera_.pitch_deg();
  r.camera_distance = camera_.distance();
  r.drawn = drawn_;
  if (swapped_this_frame_) {
    r.swap = swapped_this_frame_->accepted ? "accepted" : "refused";
    r.swap_latency_s = swapped_this_frame_->latency_s;
    r.swap_ms = swap_ms_;
    r.teardown_ms = swapped_this_frame_->teardown_ms;
  }
  for (ScriptAction a : script_ran_) r.script += (r.script.empty() ? "" : "+") + std::string(to_string(a));
  if (const auto& b = editor_.comparison()) {
    const Settings& a = simulation_.settings();
    r.ab_b = ab_changes(a, *b);
    r.ab_state = session_.comparison_ready() ? "ready" : "building";
  }
  if (ab_sample_) {
    auto total = [](const std::vector<StageTime>& stages) {
      double ms = 0;
      for (const StageTime& s : stages) ms += s.ms;
      return ms;
    };
    r.ab_a_ms = total(ab_sample_->a);
    r.ab_b_ms = total(ab_sample_->b);
    r.ab_difference = ab_sample_->difference_relative_norm;
  }
  trace_.record(std::move(r));
}

// ---- ScriptTarget ---------------------------------------------------------------------------------

std::string Lab::script_cannot(ScriptAction) { return ""; }  // the lab does everything a script can ask

std::string Lab::cannot(ScriptAction action) const { return cannot_on(simulation_, action); }

void Lab::print_stats() {
  std::string line = stats_line(
      frame_count_, session_started_ ? std::chrono::duration<double>(Clock::now() - *session_started_).count() : 0.0,
      stats_, simulation_);
  line.pop_back();  // the newline: the lab adds A/B and the last error to the line
  if (const auto& b = editor_.comparison()) {
    const std::string changes = ab_changes(simulation_.settings(), *b);
    line += "; A/B, B = " + (changes.empty() ? std::string("a copy of A") : changes) + ": ";
    const auto rows = ab_history_.rows();
    if (rows.empty() || rows.back().speedup.empty()) {
      line += session_.comparison_ready() ? "no frame compared yet" : "B building";
    } else {
      char text[160];
      std::snprintf(text, sizeof text, "%d frames, total A %.3f ms, B %.3f ms, B is %s, forces differ by %.2g",
                    static_cast<int>(ab_history_.size()), rows.back().a_ms.median, rows.back().b_ms.median,
                    rows.back().speedup.describe().c_str(), ab_history_.difference_relative_norm().median);
      line += text;
    }
  } else if (!ab_error_.empty()) {
    line += "; A/B: " + ab_error_;
  }
  if (const auto& drift = energy_.drift(); !drift.empty()) {
    char text[96];
    std::snprintf(text, sizeof text, "; energy drift %.2e at t = %.3g (%d readings)", drift.back().drift,
                  drift.back().sim_time, static_cast<int>(drift.size()));
    line += text;
  } else {
    line += "; energy: no reading yet";
  }
  if (!error_.empty()) line += "; last error: " + error_;
  std::cout << line << "\n" << std::flush;
}

void Lab::set_paused(bool paused) {
  if (paused != paused_) execute(LabCommand::toggle_pause);  // as Space does: a NaN state stays paused, and says so
}

std::array<float, 2> Lab::scene_centre() const {
  const Viewport v = scene_viewport();
  const ImVec2 scale = ImGui::GetIO().DisplayFramebufferScale;
  const float sx = scale.x > 0 ? scale.x : 1.0f, sy = scale.y > 0 ? scale.y : 1.0f;
  return {(static_cast<float>(v.x) + 0.5f * static_cast<float>(v.width)) / sx,
          0.5f * static_cast<float>(v.height) / sy};
}

void Lab::drag(MouseButton button, std::optional<std::array<float, 2>> from, std::array<float, 2> by, int frames) {
  const std::array<float, 2> start = from.value_or(scene_centre());
  ui_.drag(static_cast<int>(button), start[0], start[1], by[0], by[1], frames);
}

void Lab::scroll(std::optional<std::array<float, 2>> at, float steps) {
  const std::array<float, 2> where = at.value_or(scene_centre());
  ui_.scroll(where[0], where[1], steps);
}

}  // namespace nbl
