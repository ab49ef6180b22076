// Recording while the session runs: each frame is read back through a ring of pixel-pack
// buffers (render/frame_capture.hpp), a frame or two later handed to an encoder thread, which flips it
// and writes it to a sink (app/core/frame_sinks.hpp: ffmpeg, raw frames, or nothing). The frame loop never
// waits for the GPU's copy or for the encoder: when every slot of the ring is still held by the encoder
// (ffmpeg fell behind), the frame is dropped and counted, and the video repeats the previous frame in
// its place, so its timing stays true.
//
// In the window one video frame stands for 1/fps of wall-clock time (pace_by_wall_clock): a display
// faster than the video skips frames, a slower one is filled with repeats, and the video plays at the
// speed the session ran. `nbodylab render --record` takes every frame instead.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "app/core/frame_sinks.hpp"
#include "render/frame_capture.hpp"
#include "render/gl_objects.hpp"

namespace nbl {

struct RecordOptions {
  std::string target;          // FILE.mp4 .mkv .webm .mov (ffmpeg), FILE.rgba (raw frames), or "null" (none)
  bool include_panel = false;  // the window's whole framebuffer, or the scene alone (the window only)
  int fps = 30;
  bool pace_by_wall_clock = true;
  // The window drops a frame when the encoder holds every slot (the session must not wait); `render`
  // waits for a slot instead, so an offline video has every frame.
  bool drop_when_busy = true;
  int ring_slots = 4;
};

struct RecordStats {
  std::int64_t captured = 0;       // readbacks started
  std::int64_t written = 0;        // frames the sink took (repeats included)
  std::int64_t dropped = 0;        // frames lost because the encoder had every slot
  std::int64_t repeated = 0;       // written again to fill a dropped or late frame's time
  std::int64_t scaled = 0;         // captured from an area of another size, scaled to fit the video
  std::vector<double> capture_ms;  // the frame loop's cost of each capture() call
};

class Recorder {
 public:
  // Checks the target before anything runs: a known kind, a writable place, ffmpeg for a video.
  // Throws InputError (the target) or Error (ffmpeg missing), with what to do instead.
  static void check(const RecordOptions& options);
  // Opens the sink (starts ffmpeg) and the encoder thread. width x height: the frames' size.
  Recorder(const RecordOptions& options, int width, int height);
  Recorder(std::unique_ptr<FrameSink> sink, const RecordOptions& options, int width, int height);  // tests
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // GL thread, once per frame after it is drawn into `framebuffer`: passes finished readbacks to the
  // encoder and starts this frame's. The video keeps the size the recording started with: a `region` of
  // another size (the window was resized, the panel widened) is scaled to fit it, its aspect kept and
  // centred on black, so one recording stays one playable video.
  void capture(GLuint framebuffer, const Viewport& region);
  // Waits for the readbacks in flight and the encoder, finishes the output. Throws Error when the sink
  // failed (ffmpeg died, the disk filled) at any point, or no frame was written; the target is then left
  // as it was. Idempotent.
  RecordStats stop();

  RecordStats stats() const;
  std::string error() const;  // the encoder's error ("" while all is well): recording has stopped
  const RecordOptions& options() const { return options_; }
  int width() const { return capture_.width(); }
  int height() const { return capture_.height(); }
  std::string describe() const { return sink_description_; }  // where the frames go

 private:
  void hand_over(std::vector<CapturedFrame> frames);
  // What to read for `region`: itself, or scaled into fit_ when its size is not the video's.
  std::pair<GLuint, Viewport> fitted(GLuint framebuffer, const Viewport& region);
  void encode();  // the worker thread

  RecordOptions options_;
  FrameCapture capture_;
  std::unique_ptr<GlRenderTarget> fit_;  // a frame of another size, scaled to the video's
  std::unique_ptr<FrameSink> sink_;
  std::string sink_description_;
  std::chrono::steady_clock::time_point started_{};
  bool started_clock_ = false;
  std::int64_t last_index_ = -1;  // the last video frame index captured or dropped
  bool stopped_ = false;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<CapturedFrame> queue_;
  bool closing_ = false;
  std::int64_t final_index_ = -1;  // set by stop(): the encoder pads the video to it with repeats
  std::string error_;
  RecordStats stats_;
  std::thread worker_;
};

}  // namespace nbl
