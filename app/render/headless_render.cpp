#include "app/render/headless_render.hpp"

#include "app/core/session.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "app/core/frame_trace.hpp"
#include "app/core/script_runner.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/simulation.hpp"
#include "app/core/stats_history.hpp"
#include "app/core/text_format.hpp"
#include "render/egl_context.hpp"
#include "render/gl_objects.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"
#include "render/splatter.hpp"
#include "render/gl_errors.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// What a script does in `render`: settings through the panel's editor, pause, screenshots of the
// rendered frame, the stats, an early end. No panel, keys or mouse, and no A/B (render_cannot).
class RenderScriptTarget : public ScriptTarget {
 public:
  RenderScriptTarget(Simulation& simulation, SettingsEditor& editor, const LabStats& stats, std::ostream& log)
      : simulation_(simulation), editor_(editor), stats_(stats), log_(log) {}

  std::string cannot(ScriptAction action) const override { return render_cannot(action); }
  SettingsEditor& editor() override { return editor_; }
  void restart() override {
    if (editor_.restart_pending(simulation_.settings())) editor_.request_restart();
    else simulation_.reset();
    restarted_ = true;
  }
  void screenshot(const std::filesystem::path& file) override { screenshots_.push_back(file); }
  void print_stats() override { log_ << stats_line(frame_, seconds_, stats_, simulation_) << std::flush; }
  void set_paused(bool paused) override { paused_ = paused; }
  void quit() override { quit_ = true; }
  // render_cannot() refuses these before the render starts; they are here only to complete the interface.
  void press_key(int, bool) override { throw Error(render_cannot(ScriptAction::key)); }
  void drag(MouseButton, std::optional<std::array<float, 2>>, std::array<float, 2>, int) override {
    throw Error(render_cannot(ScriptAction::drag));
  }
  void scroll(std::optional<std::array<float, 2>>, float) override { throw Error(render_cannot(ScriptAction::wheel)); }
  void ab_start(const SettingsChange&) override { throw Error(render_cannot(ScriptAction::ab_start)); }
  void ab_stop() override { throw Error(render_cannot(ScriptAction::ab_stop)); }
  void ab_swap() override { throw Error(render_cannot(ScriptAction::ab_swap)); }
  void ab_make_current() override { throw Error(render_cannot(ScriptAction::ab_make_current)); }
  // No panel for the tour's window: the step's algorithm and toggles, so a lecture renders offline.
  void tour(TourKind kind, std::size_t step) override { apply_tour_step(kind, step, editor_); }

  void at(int frame, double seconds) {
    frame_ = frame;
    seconds_ = seconds;
  }
  bool paused() const { return paused_; }
  bool quit_requested() const { return quit_; }
  bool take_restarted() { return std::exchange(restarted_, false); }
  std::vector<std::filesystem::path> take_screenshots() { return std::exchange(screenshots_, {}); }

 private:
  Simulation& simulation_;
  SettingsEditor& editor_;
  const LabStats& stats_;
  std::ostream& log_;
  int frame_ = 0;
  double seconds_ = 0;
  bool paused_ = false, quit_ = false, restarted_ = false;
  std::vector<std::filesystem::path> screenshots_;
};

FrameSplit split(std::vector<double> values, int skip) {
  if (static_cast<int>(values.size()) > skip) values.erase(values.begin(), values.begin() + skip);
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values[std::min(values.size() - 1, values.size() * 9 / 10)],
          values[std::min(values.size() - 1, values.size() * 95 / 100)]};
}

void print_benchmark(const RenderReport& r, const RenderJob& job, int skipped, std::ostream& log) {
  auto line = [&](const char* name, const FrameSplit& s, const std::string& note = "") {
    char text[160];
    std::snprintf(text, sizeof text, "  %-17s %9.3f ms  (p90 %8.3f)%s\n", name, s.median, s.p90, note.c_str());
    log << text;
  };
  log << "benchmark: " << with_commas(r.bodies) << " bodies, " << job.size.width << "x" << job.size.height << ", "
      << job.settings.steps_per_frame << " step(s)/frame, medians over " << r.frames_rendered - skipped
      << " frames after " << skipped << " warm-up\n";
  char head[200];
  std::snprintf(head, sizeof head, "  FPS %.1f: wall-clock frame interval %.3f ms median, p95 %.3f ms%s\n", r.fps(),
                r.interval.median, r.interval.p95, job.out.empty() ? "" : " (with readback and encode)");
  log << head;
  log << "  frames "
      << (r.overlapped ? "overlapped: the next step runs while the GPU draws this frame"
                       : "sequential: each part runs to its end before the next")
      << (r.overlapped || !job.overlap ? "" : " (a script's entries act on exact frames)") << "\n  bodies drawn as "
      << r.body_path << "\n";
  line("simulate", r.simulate, r.overlapped ? "  (the next step, enqueued while the GPU draws)" : "");
  line("vertices", r.vertices, std::string("  ") + to_string(r.path));
  line("render", r.render,
       !r.overlapped                   ? "  (glFinish)"
       : r.body_path == "splat (CUDA)" ? "  (GPU: the splat's CUDA events + the GL passes after the bodies)"
                                       : "  (GPU: GL timer queries)");
  if (r.body_path != "sprites") line("splat", r.splat, "  (" + r.body_path + ", part of render)");
  line("render queue", r.render_queue, "  (CPU: queueing the drawing, before any wait for its end)");
  if (r.body_path == "splat (CUDA)") {
    line("  splat map", r.splat_map, "  (CPU: the framebuffer's texture mapped for CUDA)");
    line("  splat queue", r.splat_queue, "  (CPU: the splat's kernels and copy queued)");
    line("  splat unmap", r.splat_unmap, "  (CPU: the texture handed back to GL)");
  }
  line("render GL", r.render_gpu, "  (GPU: GL timer queries, the passes below)");
  line("readback", r.readback);
  line("encode", r.encode, job.out.empty() ? "  (nothing written)" : "");
  line("follow", r.follow, "  (frame loop: hand the body sample to the estimate's worker, move the camera)");
  line("follow wait", r.follow_wait,
       "  (offscreen only: the GPU reaching the last frame's sample, the worker's last estimate)");
  line("exposure", r.exposure, "  (GPU: histogram + white point, timer queries)");
  log << "  GL passes (GPU timestamps between the passes, a few frames late; a pass holds what the GPU waited "
         "for within it):\n";
  for (std::size_t k = 0; k < kRenderPassCount; ++k) {
    const auto pass = static_cast<RenderPass>(k);
    const char* note = "";
    if (pass == RenderPass::bodies)
      note = r.body_path == "sprites" ? "  (clear + point sprites)" : "  (the splat: GL waits for its CUDA stream)";
    else if (pass == RenderPass::lines) note = "  (overlays; not post-processing)";
    line((std::string("  ") + pass_name(pass)).c_str(), r.passes[k], note);
  }
  line("  post-processing", r.post_processing, "  (quarter + histogram + exposure + glow + tone map, per frame)");
  if (!r.step_stages.empty()) {
    log << "  simulation step by stage (the last step of each frame; CUDA events on the GPU):\n";
    for (const auto& [name, stage] : r.step_stages) line(("  " + name).c_str(), stage);
  }
  if (!job.record.target.empty())
    line("capture", r.capture,
         "  (--record: readback ring + hand-off, in the frame loop; " + std::to_string(r.recorded.dropped) +
             " dropped)");
  char text[200];
  std::snprintf(
      text, sizeof text,
      "  diagnostic, the parts' sum (simulate + vertices + render): %.3f ms (not the FPS: parts may overlap)\n",
      r.interactive.median);
  log << text;
  std::snprintf(text, sizeof text, "  diagnostic, the parts' sum with readback and encode: %.3f ms\n", r.total.median);
  log << text;
}

void write_report(const RenderReport& r, const RenderJob& job, const std::string& file) {
  using nlohmann::json;
  auto part = [](const FrameSplit& s) { return json{{"median_ms", s.median}, {"p90_ms", s.p90}, {"p95_ms", s.p95}}; };
  json passes = json::object();
  for (std::size_t k = 0; k < kRenderPassCount; ++k) passes[pass_name(static_cast<RenderPass>(k))] = part(r.passes[k]);
  json stages = json::array();
  for (const auto& [name, stage] : r.step_stages) {
    json entry = part(stage);
    entry["stage"] = name;
    stages.push_back(entry);
  }
  json j{{"bodies", r.bodies},
         {"backend", r.backend},
         {"context", r.context},
         {"vertex_path", to_string(r.path)},
         {"body_path", r.body_path},
         {"overlapped", r.overlapped},
         {"splat", part(r.splat)},
         {"render_gl_gpu", part(r.render_gpu)},
         {"render_queue_cpu", part(r.render_queue)},
         {"splat_handoff_cpu",
          json{{"map", part(r.splat_map)}, {"queue", part(r.splat_queue)}, {"unmap", part(r.splat_unmap)}}},
         {"interop_note", r.interop_note},
         {"width", job.size.width},
         {"height", job.size.height},
         {"frames", r.frames_rendered},
         {"warmup_frames", job.warmup_frames},
         {"steps_per_frame", job.settings.steps_per_frame},
         {"simulate", part(r.simulate)},
         {"vertices", part(r.vertices)},
         {"render", part(r.render)},
         {"readback", part(r.readback)},
         {"encode", part(r.encode)},
         {"follow", part(r.follow)},
         {"follow_sample_wait", part(r.follow_wait)},
         {"exposure_gpu", part(r.exposure)},
         {"passes_gpu", passes},
         {"post_processing_gpu", part(r.post_processing)},
         {"step_stages", stages},
         {"capture", part(r.capture)},
         {"recorded", json{{"target", job.record.target},
                           {"captured", r.recorded.captured},
                           {"written", r.recorded.written},
                           {"dropped", r.recorded.dropped},
                           {"repeated", r.recorded.repeated}}},
         {"picture_local_contrast", r.picture ? json(r.picture->local_contrast) : json(nullptr)},
         {"picture_content_share", r.picture ? json(r.picture->content_share) : json(nullptr)},
         {"interactive_frame", part(r.interactive)},
         {"frame_interval", part(r.interval)},
         {"fps", r.fps()},
         // The parts' sum as a rate: a diagnostic kept for comparing with earlier builds' reports.
         {"interactive_fps", r.interactive.median > 0 ? 1000.0 / r.interactive.median : 0.0},
         {"total", part(r.total)}};
  write_file_atomically(file, j.dump(2) + "\n");
}

}  // namespace

std::string render_cannot(ScriptAction action) {
  switch (action) {
    case ScriptAction::key:
    case ScriptAction::drag:
    case ScriptAction::wheel:
      return "render has no panel, keys or mouse (its camera follows --yaw, --pitch, --zoom, --orbit); run the script "
             "in the lab instead: nbodylab --offscreen --script FILE";
    case ScriptAction::ab_start:
    case ScriptAction::ab_stop:
    case ScriptAction::ab_swap:
    case ScriptAction::ab_make_current:
      return "render runs one variant; A/B comparison is the lab's (nbodylab --offscreen --script FILE)";
    case ScriptAction::predict:
    case ScriptAction::export_predictions:
      return "predict, then measure is the guided tour's, in the lab (nbodylab --offscreen --tour allpairs --script "
             "FILE)";
    default: return "";
  }
}

void validate(const RenderJob& job) {
  if (job.frames < 1 || job.frames > 1000000)
    throw InputError("--frames must lie in [1, 1000000] (got " + std::to_string(job.frames) + ")");
  if (job.out.empty() && !job.benchmark)
    throw InputError("--out is required: a folder for PNG frames (e.g. --out frames/) or a video file (--out run.mp4)");
  if (job.warmup_frames < 0) throw InputError("--warmup must be >= 0");
  // NaN passes every comparison and inf turns the camera's matrix into NaNs: the frames come out black.
  for (const auto& [option, value] : {std::pair{"--yaw", job.yaw_deg}, std::pair{"--pitch", job.pitch_deg},
                                      std::pair{"--zoom", job.zoom}, std::pair{"--orbit", job.orbit_deg_per_frame}})
    if (!std::isfinite(value))
      throw InputError(std::string(option) + " takes a finite number (got " + std::to_string(value) + ")");
  if (!(job.zoom > 0) || job.zoom > 1e4) throw InputError("--zoom must be a positive factor");
  if (job.video_fps < 1 || job.video_fps > 240) throw InputError("--fps must lie in [1, 240]");
  const std::filesystem::path out(job.out);
  if (!job.out.empty() && !is_video_path(job.out) && out.has_filename() && out.has_extension())
    throw InputError("--out " + job.out + ": '" + out.extension().string() +
                     "' is not a video format nbodylab writes; " + "the known ones are " + video_extension_list() +
                     " (through ffmpeg). For PNG frames give a folder: " +
                     "a name without an extension, or one ending in '/' (--out " + job.out + "/)");
  if (!job.out.empty() && !is_video_path(job.out)) {
    check_output_folder(out, "--out");
    const std::filesystem::path folder = out.has_filename() ? out : out.parent_path();
    std::error_code ec;
    if (std::filesystem::is_directory(folder, ec)) {
      int files = 0, frames = 0;
      for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        ++files;
        frames += is_frame_file(entry.path());
      }
      if (files > 0 && !job.overwrite)
        throw InputError(
            "--out " + job.out + " already holds " + std::to_string(files) + " file(s) (" + std::to_string(frames) +
            " of them frame_*.png), which would mix with this render's frames. Give a new or empty folder, " +
            "or add --overwrite to replace its frame_*.png files (other files are kept)");
    }
  }
  if (is_video_path(job.out)) check_output_file(out, "--out");
  check_output_file(job.report_file, "--report");
  if (!job.record.target.empty()) Recorder::check(job.record);
  check_output_file(job.save_file, "--save");
  check_output_file(job.trace_file, "--trace");
  if (job.script) ScriptRunner(*job.script).check(render_cannot);
  std::vector<std::pair<std::string, std::filesystem::path>> outputs = {
      {"--out", is_video_path(job.out) ? job.out : std::string()},
      {"--report", job.report_file},
      {"--save", job.save_file},
      {"--trace", job.trace_file},
      {"--record", job.record.target == kNullSinkName ? std::string() : job.record.target}};
  if (job.script)
    for (const ScriptEntry& e : job.script->entries)
      if (e.action == ScriptAction::screenshot) outputs.emplace_back("the script's " + e.where(), e.file);
  check_distinct_outputs(outputs);
  if (const std::string missing = missing_ffmpeg_message(job.out, "--out"); !missing.empty()) throw Error(missing);
}

RenderReport render_frames(const RenderJob& job, std::ostream& log) {
  validate(job);
  // Bad settings are refused before any GL work. Whole force passes, never abandoned: each output frame
  // shows the state after exactly its steps (app/core/session.hpp).
  Session session(job.settings, job.load_file, {}, /*slice_ms=*/std::nullopt);
  Simulation& simulation = session.simulation();
  EglContext context;
  std::unique_ptr<FrameSink> sink;
  if (is_video_path(job.out))
    sink = make_ffmpeg_pipe(*find_program("ffmpeg"), job.out, job.size.width, job.size.height, job.video_fps);
  else if (!job.out.empty()) sink = make_png_folder(job.out);

  RenderReport report;
  report.context = context.description();
  report.backend = simulation.backend().name();
  report.bodies = simulation.body_count();
  log << "nbodylab render: " << job.frames << " frame(s) of " << job.size.width << "x" << job.size.height << ", "
      << (job.load_file.empty() ? std::string(to_string(job.settings.scene)) : job.load_file) << ", "
      << with_commas(report.bodies) << " bodies"
      << (simulation.body_count_origin().empty() ? "" : " (" + simulation.body_count_origin() + ")") << ", "
      << report.backend << "\n"
      << "  " << report.context << "\n";
  if (!simulation.notice().empty()) log << "  " << simulation.notice() << "\n";
  for (const std::string& line : simulation.file_description()) log << "  " << line << "\n";

  SceneView scene(job.allow_interop);
  GlRenderTarget frame_target(job.size.width, job.size.height, GL_RGBA8);
  const Viewport viewport{0, 0, job.size.width, job.size.height};
  OrbitCamera camera;
  camera.set_angles(job.yaw_deg, job.pitch_deg);

  std::unique_ptr<Recorder> recorder;
  if (!job.record.target.empty()) {
    RecordOptions record = job.record;
    record.pace_by_wall_clock = false;  // every rendered frame is a video frame
    record.drop_when_busy = false;      // and none is dropped: an offline render can wait for the encoder
    recorder = std::make_unique<Recorder>(record, job.size.width, job.size.height);
    log << "  recording to " << recorder->describe() << "\n";
  }

  // Settings reach the simulation as the lab's do (a script's edits; kernel builds beside the running code).
  SettingsEditor& editor = session.editor();
  LabStats& stats = session.stats();
  FrameTrace& trace = session.trace();
  std::optional<ScriptRunner> script;
  if (job.script) script.emplace(*job.script);
  RenderScriptTarget target(simulation, editor, stats, log);
  const bool tracing = job.script || !job.trace_file.empty();
  const auto session_start = Clock::now();

  std::vector<double> simulate, vertices, render, readback, encode, interactive, total, interval, follow, follow_wait,
      exposure, splat, render_gpu, render_queue, splat_map, splat_queue, splat_unmap;
  std::array<std::vector<double>, kRenderPassCount> passes;
  std::vector<double> post_processing;
  // Per frame, each stage's time in the frame's last step (0 in a frame without a step), in the order the
  // stages first appeared.
  std::vector<std::pair<std::string, std::vector<double>>> stages;
  std::optional<StepStats> frame_step;
  // A script's entries act on exact frames (pause at frame 5: frame 5 takes no step), and an overlapped
  // frame has already enqueued its next step when the next frame's entries run: scripted renders run
  // sequentially.
  const bool overlap = job.overlap && !job.script;
  report.overlapped = overlap;

  // The frame's parts, the lab's skeleton (app/core/session.hpp) with every frame waiting for its own
  // steps. Sequential: step (to its end), vertices, draw (to its end), read back. Overlapped: write the
  // vertices of the state reached so far, start the next steps on the stepping thread, then draw and
  // read back while they run, and take them at the next frame's start.
  session.set_tracing(tracing);
  session.set_start(session_start);
  int steps_this_frame = 0;
  auto start_steps = [&] {
    if (!target.paused()) session.start_steps(simulation.settings().steps_per_frame, false);
  };
  auto finish_steps = [&](int frame) {
    steps_this_frame = 0;
    std::optional<StepReport> r = session.collect(/*wait=*/true);
    if (!r) return 0.0;
    if (!r->error.empty()) throw Error(r->error);
    if (r->non_finite)
      throw Error("NaN or inf appeared in the bodies at frame " + std::to_string(frame) +
                  " (t = " + std::to_string(simulation.time()) + "); " + std::to_string(report.frames_written) +
                  " frame(s) were written. A smaller --dt or a larger --eps keeps close encounters finite.");
    steps_this_frame = static_cast<int>(r->steps.size());
    if (!r->steps.empty()) frame_step = r->steps.back();
    return r->wall_ms;
  };
  bool vertices_fresh = false;  // the vertex buffer holds the current state
  double vertices_ms = 0;
  auto update_vertices = [&]() {
    scene.update(simulation.backend(), editor.draft().view, {simulation.time(), simulation.body_groups()});
    vertices_ms = scene.vertices().update_ms();
    vertices_fresh = true;
  };

  auto previous_start = Clock::now();
  for (int frame = 0; frame < job.frames; ++frame) {
    const auto frame_start = Clock::now();
    if (frame > 0) interval.push_back(std::chrono::duration<double, std::milli>(frame_start - previous_start).count());
    previous_start = frame_start;
    FrameRecord record;
    record.frame = frame;
    if (script) {
      const double seconds = std::chrono::duration<double>(frame_start - session_start).count();
      target.at(frame, seconds);
      for (ScriptAction a : script->run_due(frame, seconds, target))
        record.script += (record.script.empty() ? "" : "+") + std::string(to_string(a));
    }
    // Frame 0 shows the initial conditions; every later frame is steps_per_frame steps further.
    double simulate_ms = 0;
    vertices_ms = 0;
    if (overlap && session.stepping()) {
      simulate_ms = finish_steps(frame);  // this frame's steps, started while the last frame was drawn
      vertices_fresh = false;
    }
    std::optional<Session::Applied> applied = session.apply_settings();
    std::optional<ConfigureOutcome> swapped = applied ? applied->swapped : std::nullopt;
    if (swapped && !swapped->accepted)
      log << "  frame " << frame << ": not applied: " << swapped->label << ": " << swapped->message << "\n";
    if (applied && !applied->refused.empty())
      log << "  frame " << frame << ": not applied: " << applied->refused << "\n";
    if (target.take_restarted() || (applied && applied->restarted)) {
      stats.clear_steps();
      vertices_fresh = false;  // a new state: its vertices are written before drawing
    }
    if (!overlap && frame > 0) {
      start_steps();
      simulate_ms = finish_steps(frame);
      vertices_fresh = false;
    }
    if (!vertices_fresh) update_vertices();
    record.steps = steps_this_frame;

    const ViewSettings& view = editor.draft().view;
    if (frame == 0) {
      camera.fit(scene.measure_extent());
      camera.set_distance(camera.distance() / job.zoom);
      report.path = scene.vertices().path();
      report.interop_note = scene.vertices().interop_unavailable_reason();
      log << "  vertices: " << to_string(report.path)
          << (report.interop_note.empty() ? "" : " (" + report.interop_note + ")") << "\n";
    }
    const bool last = frame + 1 == job.frames;
    // Overlapped: the next frame's steps start now, queued on the backend's stream behind this frame's
    // vertex write; the follow, the drawing and the read-back below use the vertices alone.
    if (overlap && !last && !target.quit_requested()) start_steps();
    scene.follow(camera, view, /*fixed_lag=*/true);
    follow.push_back(scene.follow_cpu_ms());
    follow_wait.push_back(scene.follow_wait_ms());
    camera.set_angles(camera.yaw_deg() + (frame > 0 ? job.orbit_deg_per_frame : 0.0f), camera.pitch_deg());

    auto start = Clock::now();
    scene.draw(camera, view, viewport, frame_target.framebuffer(), 1.0 / job.video_fps);
    render_queue.push_back(ms_since(start));
    {
      const bool handed = scene.splatter() && scene.body_path() == "splat (CUDA)";
      const Splatter::Handoff handoff = handed ? scene.splatter()->handoff() : Splatter::Handoff{};
      splat_map.push_back(handoff.map_ms);
      splat_queue.push_back(handoff.queue_ms);
      splat_unmap.push_back(handoff.unmap_ms);
    }
    if (overlap) glFlush();  // the drawing starts now; nothing waits for it
    else glFinish();
    if (const std::string gl_error = take_gl_error(); !gl_error.empty())
      throw GlError("OpenGL error while drawing frame " + std::to_string(frame) + ": " + gl_error);
    const double draw_ms = ms_since(start);
    if (recorder) recorder->capture(frame_target.framebuffer(), viewport);

    simulate.push_back(simulate_ms);
    vertices.push_back(vertices_ms);
    // Sequential: the draw's wall time to its end. Overlapped: its GPU time, since nothing waits for its
    // end: the GL timer queries, or with the CUDA splat the splat's events plus the GL passes after it
    // (GL's bodies pass is then only its wait for the splat's stream, which waits for the step too).
    const bool cuda_splat = scene.body_path() == "splat (CUDA)";
    const double gl_ms = scene.render_gpu_ms() - (cuda_splat ? scene.pass_times().pass_ms(RenderPass::bodies) : 0.0);
    render.push_back(overlap ? gl_ms + (cuda_splat ? scene.splat_ms() : 0.0) : draw_ms);
    render_gpu.push_back(scene.render_gpu_ms());
    splat.push_back(scene.splat_ms());
    exposure.push_back(scene.exposure_gpu_ms());
    const PassTimes& pass_times = scene.pass_times();
    for (std::size_t k = 0; k < kRenderPassCount; ++k) passes[k].push_back(pass_times.ms[k]);
    post_processing.push_back(pass_times.post_processing_ms());
    for (auto& [name, series] : stages) series.push_back(0.0);
    if (frame_step) {
      for (const StageTime& t : frame_step->stages) {
        auto found = std::find_if(stages.begin(), stages.end(), [&](const auto& s) { return s.first == t.name; });
        if (found == stages.end()) {
          stages.emplace_back(t.name, std::vector<double>(simulate.size(), 0.0));
          found = std::prev(stages.end());
        }
        found->second.back() += t.ms;
      }
      frame_step.reset();
    }

    // The synchronous readback `--out` and the image check need; the recorder reads back on its own.
    start = Clock::now();
    // Read back only what is written (frames or a script's screenshot): a benchmark without --out
    // shows the frame and moves on.
    std::vector<std::filesystem::path> shots = target.take_screenshots();
    const bool needed = sink || !shots.empty() || (last && job.check_picture);
    Image image;
    if (needed) image = read_pixels(frame_target.framebuffer(), viewport);
    readback.push_back(needed ? ms_since(start) : 0.0);
    for (const std::filesystem::path& file : shots) {
      try {
        write_png(file, image);
      } catch (const Error& e) {
        throw Error("the script's screenshot was not saved: " + std::string(e.what()));
      }
      log << "  frame " << frame << ": screenshot saved to " << file.string() << "\n";
    }
    if (last && job.check_picture) report.picture = picture_detail(image);

    start = Clock::now();
    if (sink) {
      sink->write(image, frame);
      ++report.frames_written;
    }
    encode.push_back(ms_since(start));
    interactive.push_back(simulate.back() + vertices.back() + follow.back() + render.back());
    total.push_back(ms_since(frame_start));
    ++report.frames_rendered;
    stats.record_frame({simulate.back(), vertices.back(), render.back(), 0.0, total.back()});
    if (tracing) {
      record.wall_s = std::chrono::duration<double>(Clock::now() - session_start).count();
      record.interval_ms = total.back();  // frames follow each other: a frame's time is the interval
      record.simulate_ms = simulate.back();
      record.vertices_ms = vertices.back();
      record.render_ms = render.back();
      record.building = simulation.building() || swapped.has_value();
      if (simulation.building()) {
        const std::vector<BuildProgress> builds = simulation.builds();
        if (!builds.empty()) {
          record.build_state = to_string(builds.back().state);
          record.build_label = builds.back().label;
        }
      }
      record.variant = simulation.backend().variant_label();
      if (record.variant.empty()) record.variant = simulation.backend().name();
      if (swapped) {
        record.swap = swapped->accepted ? "accepted" : "refused";
        record.swap_latency_s = swapped->latency_s;
      }
      trace.record(std::move(record));
    }
    if (!job.benchmark && (frame + 1) % 50 == 0) log << "  frame " << frame + 1 << " / " << job.frames << "\n";
    if (target.quit_requested()) {
      log << "  the script quit at frame " << frame << "\n";
      break;
    }
  }
  if (sink) sink->finish();
  if (recorder) {
    report.recorded = recorder->stop();
    report.capture = split(report.recorded.capture_ms, std::min(job.frames - 1, std::max(job.warmup_frames, 1)));
    log << "recorded " << report.recorded.written << " frame(s) to " << recorder->describe() << ": "
        << report.recorded.dropped << " dropped (the encoder held every slot of the ring), " << report.recorded.repeated
        << " repeated in their place\n";
  }

  // Frame 0 takes no step; the benchmark leaves it and the warm-up out.
  const int skip = std::min(job.frames - 1, std::max(job.warmup_frames, 1));
  report.simulate = split(simulate, skip);
  report.vertices = split(vertices, skip);
  report.render = split(render, skip);
  report.readback = split(readback, skip);
  report.encode = split(encode, skip);
  report.interactive = split(interactive, skip);
  report.total = split(total, skip);
  report.follow = split(follow, skip);
  report.follow_wait = split(follow_wait, skip);
  report.exposure = split(exposure, skip);
  report.splat = split(splat, skip);
  report.render_queue = split(render_queue, skip);
  report.splat_map = split(splat_map, skip);
  report.splat_queue = split(splat_queue, skip);
  report.splat_unmap = split(splat_unmap, skip);
  report.render_gpu = split(render_gpu, skip);
  for (std::size_t k = 0; k < kRenderPassCount; ++k) report.passes[k] = split(passes[k], skip);
  report.post_processing = split(post_processing, skip);
  for (const auto& [name, series] : stages) report.step_stages.emplace_back(name, split(series, skip));
  report.body_path = scene.body_path();
  // interval[k]: from frame k's start to frame k + 1's (the last one's ends with the loop), so the same
  // frames as the parts after the warm-up.
  interval.push_back(std::chrono::duration<double, std::milli>(Clock::now() - previous_start).count());
  report.interval = split(interval, skip);
  if (job.benchmark) print_benchmark(report, job, skip, log);
  if (!job.report_file.empty()) write_report(report, job, job.report_file);
  if (!job.out.empty()) log << "wrote " << report.frames_written << " frame(s) to " << job.out << "\n";
  if (report.picture)
    log << "image check of the last frame (t = " << simulation.time() << "): " << describe(*report.picture) << "\n";
  if (!job.save_file.empty())
    write_snapshot(job.save_file, simulation.snapshot(), static_cast<float>(simulation.softening()));
  if (!job.trace_file.empty()) {
    trace.write_csv(job.trace_file);
    log << "trace: " << trace.records().size() << " frame(s) written to " << job.trace_file << "\n";
  }
  if (script) {
    if (const std::string note = script->unfinished_note(report.frames_rendered); !note.empty())
      log << "script: " << note << "\n";
  }
  if (tracing) trace.print_summary(log);
  report.refused = editor.refusals();
  return report;
}

}  // namespace nbl
