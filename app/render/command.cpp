// `nbodylab render`: frames without a window (EGL), to PNG files or through ffmpeg to a video, with an
// optional benchmark of where each frame's time goes.
#include <iostream>
#include <memory>

#include "app/core/commands.hpp"
#include "app/render/headless_render.hpp"
#include "app/core/options/run_options.hpp"
#include "app/core/script.hpp"
#include "app/core/options/view_options.hpp"

namespace nbl {

Command add_render_command(CLI::App& root) {
  struct State {
    RunOptions run;
    ViewOptions view;
    RenderJob job;
    std::string size = "1920x1080";
    bool no_interop = false;
    std::string script;
  };
  auto state = std::make_shared<State>();
  CLI::App* app = root.add_subcommand(
      "render",
      "Render frames without a window (EGL: no display needed) to numbered PNGs or, through ffmpeg, to a video.\n"
      "  nbodylab render --scene collision -n 65536 --frames 300 --out frames/\n"
      "  nbodylab render --frames 600 --out collision.mp4 --orbit 0.2\n"
      "  nbodylab render -n 1048576 --frames 300 --benchmark   (where a frame's time goes)");
  state->run.add_to(*app);
  state->view.add_to(*app, false);
  RenderJob& job = state->job;
  app->add_option("--frames", job.frames, "Frames to render (the first shows the initial conditions)")
      ->capture_default_str();
  app->add_option("--size", state->size, "Frame size WIDTHxHEIGHT")->capture_default_str();
  app->add_option("--out", job.out,
                  "A folder for frame_00000.png ... (new or empty; the frames move in when all are written) or a video "
                  "file (" +
                      video_extension_list() + "; needs ffmpeg)");
  app->add_flag("--overwrite", job.overwrite, "--out names a folder that holds files: replace its frame_*.png files");
  app->add_flag("--benchmark", job.benchmark,
                "Print the median time of each part of a frame: simulate, vertices, render, readback, encode");
  app->add_option("--warmup", job.warmup_frames, "Frames the benchmark leaves out at the start")->capture_default_str();
  app->add_option("--report", job.report_file, "Write the benchmark figures to this JSON file");
  app->add_flag(
      "--sequential", [&job](std::int64_t) { job.overlap = false; },
      "Run each frame's parts one after the other, each to its end (the default overlaps the next step "
      "with drawing this frame)");
  app->add_flag("--no-interop", state->no_interop,
                "Copy the bodies through host memory even when CUDA-GL interop works");
  app->add_option("--script", state->script,
                  "Drive the render from this JSON script (docs/scripts.md): settings, pause, screenshots, quit")
      ->type_name("FILE");
  app->add_option("--trace", job.trace_file, "Write one CSV row per frame: timings, steps, kernel builds, swaps")
      ->type_name("FILE.csv");
  app->add_option("--yaw", job.yaw_deg, "Camera yaw around the z axis, degrees")
      ->capture_default_str()
      ->group("Camera");
  app->add_option("--pitch", job.pitch_deg, "Camera elevation above the xy plane, degrees")
      ->capture_default_str()
      ->group("Camera");
  app->add_option("--zoom", job.zoom, "Closer (>1) or farther (<1) than the fit to the bodies")
      ->capture_default_str()
      ->group("Camera");
  app->add_option("--orbit", job.orbit_deg_per_frame, "Turn the camera this many degrees per frame")->group("Camera");
  app->add_option("--fps", job.video_fps, "Video frame rate")->capture_default_str();
  app->add_option(
      "--record", job.record.target,
      "Also record through the window's live recorder (pixel-buffer ring, encoder thread; drops frames when "
      "the encoder falls behind): FILE.mp4 (" +
          video_extension_list() +
          ", ffmpeg), FILE.rgba (raw frames) or "
          "null (nothing written). With --benchmark: what capturing costs the frame loop");
  app->add_flag("--check-picture", job.check_picture,
                "Run the image check on the last frame (local contrast over the scene, docs/window.md) and exit 3 when "
                "it fails");

  return {app, [state] {
            RenderJob job = state->job;
            job.settings = state->run.resolve();
            state->view.apply(job.settings);
            job.size = parse_frame_size(state->size);
            job.load_file = state->run.load_file();
            job.save_file = state->run.save_file();
            job.allow_interop = !state->no_interop;
            job.record.fps = job.video_fps;
            if (!state->script.empty()) job.script = load_script(state->script);
            const RenderReport report = render_frames(job, std::cout);
            for (const SettingsEditor::Refusal& r : report.refused)
              std::cerr << "nbodylab: " << r.origin << ": not applied: " << r.message << "\n";
            if (!report.refused.empty()) return kExitError;
            if (report.picture && !passes(*report.picture)) {
              std::cerr << "nbodylab render: the last frame fails the image check: " << describe(*report.picture)
                        << "\n";
              return kExitImageCheck;
            }
            return kExitOk;
          }};
}

}  // namespace nbl
