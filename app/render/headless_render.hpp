// `nbodylab render`: frames without a window. An EGL context (no display needed), the same SceneView
// the window draws through, an offscreen target, and the frames written as numbered PNGs or piped to
// ffmpeg. With `benchmark`, it reports where each frame's time went: simulate / vertices / render /
// readback / encode. A script (app/core/script.hpp) can change settings, pause, take screenshots and end the
// render early, as it does in the lab; `trace_file` records every frame as the lab's trace does.
#pragma once
#include <array>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/core/frame_sinks.hpp"
#include "app/core/recorder.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/script.hpp"
#include "app/core/options/view_options.hpp"
#include "render/body_vertices.hpp"
#include "render/gl_timer.hpp"
#include "render/picture_detail.hpp"
#include "sim/settings.hpp"

namespace nbl {

struct RenderJob {
  Settings settings;
  std::string load_file;
  int frames = 300;
  FrameSize size{1920, 1080};
  std::string out;         // a folder (frame_00000.png, ...) or a video file (kVideoExtensions)
  bool overwrite = false;  // `out` is a folder that holds files: replace its frame_*.png (else refuse)
  bool benchmark = false;  // report timings; `out` may then be empty (nothing is written)
  int warmup_frames = 10;  // left out of the benchmark's statistics
  bool allow_interop = true;
  float yaw_deg = -60.0f, pitch_deg = 50.0f;
  float zoom = 1.0f;  // > 1: closer than the fit
  float orbit_deg_per_frame = 0.0f;
  int video_fps = 30;
  std::string report_file;  // JSON with the benchmark figures ("" for none)
  std::string save_file;    // the final state as a snapshot, Tipsy or HDF5 by its name ("" for none)
  // The live recorder of the window (app/core/recorder.hpp), every frame through the pixel-buffer ring and
  // the encoder thread: `--record null --benchmark` times the capture path on a machine without ffmpeg.
  RecordOptions record;          // record.target empty: not recording
  bool check_picture = false;    // the image check (render/picture_detail.hpp) on the last frame
  std::optional<Script> script;  // drives the render (settings, pause, screenshots, quit)
  std::string trace_file;        // one CSV row per frame (app/core/frame_trace.hpp), "" for none
  // Overlapped frames: frame k is drawn, then step k+1 is enqueued without waiting for the
  // drawing, so the GPU simulates while it draws. false: the parts run one after the other, each timed to
  // its end (glFinish), to compare with.
  bool overlap = true;
};

// Median (and 90th and 95th percentile) milliseconds per frame of each part.
struct FrameSplit {
  double median = 0, p90 = 0, p95 = 0;
};

struct RenderReport {
  int frames_rendered = 0, frames_written = 0;
  std::string context;  // which EGL platform and GL
  std::string backend;
  std::size_t bodies = 0;
  VertexPath path = VertexPath::host_copy;
  std::string interop_note;  // why not interop, when not
  std::string body_path;     // how bodies were drawn: "sprites", "splat (CUDA)", "splat (host)"
  bool overlapped = false;
  FrameSplit splat;  // the splat itself (CUDA events, or the host loop); 0 with sprites
  // CPU, in the frame loop: queueing the drawing (SceneView::draw, before any wait for its end), and within
  // it the CUDA splat's hand-off: mapping the framebuffer's texture, queueing its kernels, unmapping (0
  // without a CUDA splat).
  FrameSplit render_queue, splat_map, splat_queue, splat_unmap;
  FrameSplit render_gpu;  // the GL passes' GPU time (timer queries, a few frames late)
  FrameSplit simulate, vertices, render, readback, encode, interactive, total;
  FrameSplit follow;       // the frame loop's part: the body sample to the estimate's worker, the camera moved
  FrameSplit follow_wait;  // offscreen only: waiting for the GPU to reach the sample and for the worker
  FrameSplit exposure;     // GPU: histogram + white point (timer queries, a few frames late)
  // GPU time of each pass of the picture (render/gl_timer.hpp, by RenderPass), and of the
  // post-processing passes together (kPostProcessingPasses, summed per frame).
  std::array<FrameSplit, kRenderPassCount> passes;
  FrameSplit post_processing;
  // The simulation step by stage (StepStats: CUDA events on the GPU), the last step of each frame, in
  // the order the backend reports them.
  std::vector<std::pair<std::string, FrameSplit>> step_stages;
  FrameSplit capture;  // the recorder's cost in the frame loop (with --record)
  RecordStats recorded;
  std::optional<PictureDetail> picture;          // with check_picture: the last frame's
  std::vector<SettingsEditor::Refusal> refused;  // a script's settings that did not apply (the run fails)
  // The wall-clock interval from one frame's start to the next's: what "FPS" means. The
  // parts above can overlap or leave gaps; their sum (`interactive`) is only a diagnostic. Without
  // --out nothing is read back, as in the window, where the frame is swapped instead.
  FrameSplit interval;
  double fps() const { return interval.median > 0 ? 1000.0 / interval.median : 0.0; }
};

// Checks the job before anything runs (InputError: bad frame count, missing --out, an output that
// cannot be written, an unknown video extension, a folder that holds files without --overwrite, a
// script entry render cannot run; Error: a video without ffmpeg). Called by render_frames; exposed for
// tests.
void validate(const RenderJob& job);

// Why `render` cannot run a script's `action` ("" when it can): it has no panel, keys or mouse, and runs
// one variant (A/B runs in the lab: `nbodylab --offscreen --script ...`).
std::string render_cannot(ScriptAction action);

// Renders the job; progress and the benchmark table go to `log`. Throws Error/InputError. With
// check_picture the report holds the last frame's measure (the caller decides what a failure means).
RenderReport render_frames(const RenderJob& job, std::ostream& log);

}  // namespace nbl
