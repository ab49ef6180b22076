// Bare `nbodylab`: the interactive window on the default scene (two colliding galaxies), with every
// option a run takes (scene, -n, toggles, --settings ...) plus the window's own; `--offscreen` runs the
// same lab, panel included, without a display; `--script` drives either, `--trace` records every frame.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/core/commands.hpp"
#include "app/core/frame_sinks.hpp"
#include "app/core/interrupt.hpp"
#include "app/lab/lab.hpp"
#include "app/core/options/run_options.hpp"
#include "app/core/script.hpp"
#include "app/core/options/view_options.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

Command add_window_command(CLI::App& root) {
  struct State {
    RunOptions run;
    ViewOptions view;
    std::string size = "1600x900";
    bool fullscreen = false, no_interop = false, paused = false, offscreen = false;
    double slice_ms = LabOptions{}.slice_ms, refresh_hz = 0;
    int frames = 0;
    std::string screenshot, screenshot_dir = ".", script, trace, tour;
    RecordOptions record;
  };
  auto state = std::make_shared<State>();
  state->run.add_to(root);
  state->view.add_to(root, true);
  const std::string group = "Window";
  root.add_option("--size", state->size, "Window size WIDTHxHEIGHT (offscreen: the frame's size in pixels)")
      ->capture_default_str()
      ->group(group);
  root.add_flag("--offscreen", state->offscreen,
                "Run the lab, panel included, without a display (EGL): needs --frames N or a --script that quits")
      ->group(group);
  root.add_option("--script", state->script,
                  "Drive the session from this JSON script (docs/scripts.md); a bare name is also looked up among "
                  "the shipped scripts (assets/scripts)")
      ->type_name("FILE")
      ->group(group);
  root.add_option("--trace", state->trace, "Write one CSV row per frame: timings, steps, kernel builds, swaps")
      ->type_name("FILE.csv")
      ->group(group);
  root.add_option("--tour", state->tour,
                  "Open the guided tour through Burtscher's CUDA optimization tutorial at its first step: the "
                  "all-pairs ladder or the "
                  "Barnes-Hut kernels (Right / Left or Page Down / Page Up walk it)")
      ->check(CLI::IsMember({"allpairs", "barneshut"}))
      ->type_name("allpairs|barneshut")
      ->group(group);
  root.add_flag("--fullscreen", state->fullscreen, "Start fullscreen (F11 toggles)")->group(group);
  root.add_flag("--no-interop", state->no_interop,
                "Copy the bodies through host memory even when CUDA-GL interop works")
      ->group(group);
  root.add_flag("--paused", state->paused, "Start paused (Space resumes)")->group(group);
  root.add_option("--slice-ms", state->slice_ms,
                  "Split a force pass slower than this into launches (on the GPU, each still filling it), so the "
                  "display draws between them and a slow step can be abandoned (0: whole launches)")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str()
      ->group(group);
  root.add_option("--refresh", state->refresh_hz,
                  "Offscreen: hand frames over at most at this display refresh rate while vsync is on, as a "
                  "window's swap does (0: as fast as they are drawn)")
      ->check(CLI::Range(0.0, 1000.0))
      ->type_name("HZ")
      ->group(group);
  root.add_option("--frames", state->frames, "Close after this many frames (scripts, tests)")->group(group);
  root.add_option("--screenshot", state->screenshot, "With --frames: save the last frame (panel included) as this PNG")
      ->type_name("FILE.png")
      ->group(group);
  root.add_option("--record", state->record.target,
                  "Record the window from the first frame (F10 stops): FILE.mp4 (" + video_extension_list() +
                      ", through ffmpeg), FILE.rgba (raw frames) or null (nothing written)")
      ->group(group);
  root.add_flag("--record-panel", state->record.include_panel, "Record the panel too, not the picture alone")
      ->group(group);
  root.add_option("--record-fps", state->record.fps, "Video frames per second of wall-clock time")
      ->capture_default_str()
      ->group(group);
  CLI::Option* screenshot_dir = root.add_option("--screenshot-dir", state->screenshot_dir, "Where F12 puts screenshots")
                                    ->capture_default_str()
                                    ->group(group);

  return {&root, [state, screenshot_dir] {
            // Outputs are checked before the window opens (the screenshot and the state are saved at the end).
            check_png_output(state->screenshot, "--screenshot");
            check_output_file(state->trace, "--trace");
            check_output_file(state->run.save_file(), "--save");
            if (!state->record.target.empty()) Recorder::check(state->record);
            std::vector<std::pair<std::string, std::filesystem::path>> outputs = {
                {"--screenshot", state->screenshot},
                {"--trace", state->trace},
                {"--save", state->run.save_file()},
                {"--record", state->record.target == kNullSinkName ? std::string() : state->record.target}};
            if (screenshot_dir->count() > 0)
              check_output_file(std::filesystem::path(state->screenshot_dir) / "nbodylab-screenshot.png",
                                "--screenshot-dir");
            LabOptions options;
            options.settings = state->run.resolve();
            state->view.apply(options.settings);
            const FrameSize size = parse_frame_size(state->size);
            options.window.width = size.width;
            options.window.height = size.height;
            options.window.fullscreen = state->fullscreen;
            options.load_file = state->run.load_file();
            options.allow_interop = !state->no_interop;
            options.slice_ms = state->slice_ms;
            if (state->refresh_hz > 0 && !state->offscreen)
              throw InputError("--refresh paces the offscreen lab; a window's refresh rate is its display's");
            options.refresh_hz = state->refresh_hz;
            options.frames = state->frames;
            options.final_screenshot = state->screenshot;
            options.screenshot_dir = state->screenshot_dir;
            options.start_paused = state->paused;
            options.record = state->record;
            options.offscreen = state->offscreen;
            options.trace_file = state->trace;
            if (!state->script.empty()) {
              options.script = load_script(state->script);
              for (const ScriptEntry& e : options.script->entries)
                if (e.action == ScriptAction::screenshot) outputs.emplace_back("the script's " + e.where(), e.file);
            }
            check_distinct_outputs(outputs);
            if (!state->tour.empty()) options.tour = tour_kind_from(state->tour);
            if (options.offscreen && options.window.fullscreen)
              throw InputError("--fullscreen has no screen to fill with --offscreen");
            if (options.frames < 0) throw InputError("--frames must be >= 0");
            if (!options.final_screenshot.empty() && options.frames == 0)
              throw InputError("--screenshot needs --frames N (the screenshot is of the last frame)");
            const InterruptScope interrupts;  // Ctrl-C ends the loop; what follows still runs
            Lab lab(options);
            int code = lab.run();
            if (!state->run.save_file().empty())
              write_snapshot(state->run.save_file(), lab.simulation().snapshot(),
                             static_cast<float>(lab.simulation().softening()));
            if (!lab.final_screenshot_error().empty()) throw Error(lab.final_screenshot_error());
            // A scripted run fails when an entry's settings did not apply (the panel only shows it).
            for (const SettingsEditor::Refusal& r : lab.editor().refusals()) {
              std::fprintf(stderr, "nbodylab: %s: not applied: %s\n", r.origin.c_str(), r.message.c_str());
              code = kExitError;
            }
            if (!lab.recording_failure().empty()) {
              std::fprintf(stderr, "nbodylab: %s\n", lab.recording_failure().c_str());
              code = kExitError;
            }
            if (const int signal_number = interrupt_signal(); signal_number != 0 && code == kExitOk) {
              std::cout.flush();  // after what the session printed (the trace, the recording)
              std::fflush(stdout);
              std::fprintf(stderr,
                           "nbodylab: interrupted (%s): the session ended early; what it was asked to write "
                           "was written\n",
                           signal_number == SIGINT ? "Ctrl-C" : "SIGTERM");
              code = interrupted_exit_code(signal_number);
            }
            return code;
          }};
}

}  // namespace nbl
