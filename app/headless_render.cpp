#include "app/headless_render.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <vector>

#include "app/simulation.hpp"
#include "app/text_format.hpp"
#include "render/egl_context.hpp"
#include "render/gl_objects.hpp"
#include "render/image.hpp"
#include "render/scene_view.hpp"
#include "render/gl_errors.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/tipsy.hpp"

namespace nbl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

FrameSplit split(std::vector<double> values, int skip) {
  if (static_cast<int>(values.size()) > skip) values.erase(values.begin(), values.begin() + skip);
  if (values.empty()) return {};
  std::sort(values.begin(), values.end());
  return {values[values.size() / 2], values[std::min(values.size() - 1, values.size() * 9 / 10)]};
}

void print_benchmark(const RenderReport& r, const RenderJob& job, int skipped, std::ostream& log) {
  auto line = [&](const char* name, const FrameSplit& s, const std::string& note = "") {
    char text[160];
    std::snprintf(text, sizeof text, "  %-12s %9.3f ms  (p90 %8.3f)%s\n", name, s.median, s.p90, note.c_str());
    log << text;
  };
  log << "benchmark: " << with_commas(r.bodies) << " bodies, " << job.size.width << "x" << job.size.height << ", "
      << job.settings.steps_per_frame << " step(s)/frame, medians over " << r.frames_rendered - skipped << " frames after "
      << skipped << " warm-up\n";
  line("simulate", r.simulate);
  line("vertices", r.vertices, std::string("  ") + to_string(r.path));
  line("render", r.render, "  (glFinish)");
  line("readback", r.readback);
  line("encode", r.encode, job.out.empty() ? "  (nothing written)" : "");
  line("follow", r.follow, "  (CPU: bound centre from the body sample)");
  line("exposure", r.exposure, "  (GPU: histogram + white point, timer queries)");
  if (!job.record.target.empty())
    line("capture", r.capture, "  (--record: readback ring + hand-off, in the frame loop; " +
                                   std::to_string(r.recorded.dropped) + " dropped)");
  char text[200];
  std::snprintf(text, sizeof text, "  interactive frame (simulate + vertices + render): %.3f ms = %.1f FPS\n", r.interactive.median,
                r.interactive.median > 0 ? 1000.0 / r.interactive.median : 0.0);
  log << text;
  std::snprintf(text, sizeof text, "  whole frame with readback and encode: %.3f ms = %.1f FPS\n", r.total.median,
                r.total.median > 0 ? 1000.0 / r.total.median : 0.0);
  log << text;
}

void write_report(const RenderReport& r, const RenderJob& job, const std::string& file) {
  using nlohmann::json;
  auto part = [](const FrameSplit& s) { return json{{"median_ms", s.median}, {"p90_ms", s.p90}}; };
  json j{{"bodies", r.bodies},
         {"backend", r.backend},
         {"context", r.context},
         {"vertex_path", to_string(r.path)},
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
         {"exposure_gpu", part(r.exposure)},
         {"capture", part(r.capture)},
         {"recorded", json{{"target", job.record.target}, {"captured", r.recorded.captured}, {"written", r.recorded.written},
                           {"dropped", r.recorded.dropped}, {"repeated", r.recorded.repeated}}},
         {"picture_local_contrast", r.picture ? json(r.picture->local_contrast) : json(nullptr)},
         {"picture_content_share", r.picture ? json(r.picture->content_share) : json(nullptr)},
         {"interactive_frame", part(r.interactive)},
         {"interactive_fps", r.interactive.median > 0 ? 1000.0 / r.interactive.median : 0.0},
         {"total", part(r.total)}};
  write_file_atomically(file, j.dump(2) + "\n");
}

}  // namespace

void validate(const RenderJob& job) {
  if (job.frames < 1 || job.frames > 1000000) throw InputError("--frames must lie in [1, 1000000] (got " + std::to_string(job.frames) + ")");
  if (job.out.empty() && !job.benchmark)
    throw InputError("--out is required: a folder for PNG frames (e.g. --out frames/) or a video file (--out run.mp4)");
  if (job.warmup_frames < 0) throw InputError("--warmup must be >= 0");
  if (!(job.zoom > 0) || job.zoom > 1e4) throw InputError("--zoom must be a positive factor");
  if (job.video_fps < 1 || job.video_fps > 240) throw InputError("--fps must lie in [1, 240]");
  const std::filesystem::path out(job.out);
  if (!job.out.empty() && !is_video_path(job.out) && out.has_filename() && out.has_extension())
    throw InputError("--out " + job.out + ": '" + out.extension().string() + "' is not a video format nbodylab writes; " +
                     "the known ones are " + video_extension_list() + " (through ffmpeg). For PNG frames give a folder: " +
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
        throw InputError("--out " + job.out + " already holds " + std::to_string(files) + " file(s) (" + std::to_string(frames) +
                         " of them frame_*.png), which would mix with this render's frames. Give a new or empty folder, " +
                         "or add --overwrite to replace its frame_*.png files (other files are kept)");
    }
  }
  if (is_video_path(job.out)) check_output_file(out, "--out");
  check_output_file(job.report_file, "--report");
  if (!job.record.target.empty()) Recorder::check(job.record);
  check_output_file(job.save_file, "--save");
  if (const std::string missing = missing_ffmpeg_message(job.out, "--out"); !missing.empty()) throw Error(missing);
}

RenderReport render_frames(const RenderJob& job, std::ostream& log) {
  validate(job);
  Simulation simulation(job.settings, job.load_file);  // bad settings are refused before any GL work
  EglContext context;
  std::unique_ptr<FrameSink> sink;
  if (is_video_path(job.out)) sink = make_ffmpeg_pipe(*find_program("ffmpeg"), job.out, job.size.width, job.size.height, job.video_fps);
  else if (!job.out.empty()) sink = make_png_folder(job.out);

  RenderReport report;
  report.context = context.description();
  report.backend = simulation.backend().name();
  report.bodies = simulation.body_count();
  log << "nbodylab render: " << job.frames << " frame(s) of " << job.size.width << "x" << job.size.height << ", "
      << (job.load_file.empty() ? std::string(to_string(job.settings.scene)) : job.load_file) << ", " << with_commas(report.bodies) << " bodies"
      << (simulation.body_count_origin().empty() ? "" : " (" + simulation.body_count_origin() + ")") << ", "
      << report.backend << "\n"
      << "  " << report.context << "\n";
  if (!simulation.notice().empty()) log << "  " << simulation.notice() << "\n";

  SceneView scene(job.allow_interop);
  GlRenderTarget target(job.size.width, job.size.height, GL_RGBA8);
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

  std::vector<double> simulate, vertices, render, readback, encode, interactive, total, follow, exposure;
  for (int frame = 0; frame < job.frames; ++frame) {
    const auto frame_start = Clock::now();
    // Frame 0 shows the initial conditions; every later frame is steps_per_frame steps further.
    auto start = Clock::now();
    if (frame > 0) {
      for (int s = 0; s < job.settings.steps_per_frame; ++s) {
        if (simulation.step().non_finite)
          throw Error("NaN or inf appeared in the bodies at frame " + std::to_string(frame) + " (t = " +
                      std::to_string(simulation.time()) + "); " + std::to_string(report.frames_written) +
                      " frame(s) were written. A smaller --dt or a larger --eps keeps close encounters finite.");
      }
    }
    simulate.push_back(ms_since(start));

    scene.update(simulation.backend(), job.settings.view, {simulation.time(), simulation.body_groups()});
    vertices.push_back(scene.vertices().update_ms());
    if (frame == 0) {
      camera.fit(scene.measure_extent());
      camera.set_distance(camera.distance() / job.zoom);
      report.path = scene.vertices().path();
      report.interop_note = scene.vertices().interop_unavailable_reason();
      log << "  vertices: " << to_string(report.path)
          << (report.interop_note.empty() ? "" : " (" + report.interop_note + ")") << "\n";
    }
    scene.follow(camera, job.settings.view, /*wait_for_newest=*/true);
    follow.push_back(scene.follow_cpu_ms());
    camera.set_angles(camera.yaw_deg() + (frame > 0 ? job.orbit_deg_per_frame : 0.0f), camera.pitch_deg());

    start = Clock::now();
    scene.draw(camera, job.settings.view, viewport, target.framebuffer(), 1.0 / job.video_fps);
    glFinish();
    if (const std::string gl_error = take_gl_error(); !gl_error.empty())
      throw GlError("OpenGL error while drawing frame " + std::to_string(frame) + ": " + gl_error);
    render.push_back(ms_since(start));
    exposure.push_back(scene.exposure_gpu_ms());
    if (recorder) recorder->capture(target.framebuffer(), viewport);

    // The synchronous readback `--out` and the image check need; the recorder reads back on its own.
    const bool last = frame + 1 == job.frames;
    Image image;
    start = Clock::now();
    if (sink || (!recorder && job.benchmark) || (last && job.check_picture)) image = read_pixels(target.framebuffer(), viewport);
    readback.push_back(ms_since(start));
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
    if (!job.benchmark && (frame + 1) % 50 == 0) log << "  frame " << frame + 1 << " / " << job.frames << "\n";
  }
  if (sink) sink->finish();
  if (recorder) {
    report.recorded = recorder->stop();
    report.capture = split(report.recorded.capture_ms, std::min(job.frames - 1, std::max(job.warmup_frames, 1)));
    log << "recorded " << report.recorded.written << " frame(s) to " << recorder->describe() << ": " << report.recorded.dropped
        << " dropped (the encoder held every slot of the ring), " << report.recorded.repeated << " repeated in their place\n";
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
  report.exposure = split(exposure, skip);
  if (job.benchmark) print_benchmark(report, job, skip, log);
  if (!job.report_file.empty()) write_report(report, job, job.report_file);
  if (!job.out.empty()) log << "wrote " << report.frames_written << " frame(s) to " << job.out << "\n";
  if (report.picture) log << "image check of the last frame (t = " << simulation.time() << "): " << describe(*report.picture) << "\n";
  if (!job.save_file.empty())
    write_tipsy(job.save_file, simulation.bodies(), simulation.time(), static_cast<float>(simulation.softening()));
  return report;
}

}  // namespace nbl
