#include "app/core/recorder.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

std::unique_ptr<FrameSink> open_sink(const RecordOptions& o, int width, int height) {
  if (o.target == kNullSinkName) return make_null_sink();
  if (is_raw_frames_path(o.target)) return make_raw_frames(o.target, width, height, o.fps);
  return make_ffmpeg_pipe(*find_program("ffmpeg"), o.target, width, height, o.fps, /*live=*/o.drop_when_busy);
}

}  // namespace

void Recorder::check(const RecordOptions& o) {
  if (o.fps < 1 || o.fps > 240)
    throw InputError("--record-fps must lie in [1, 240] (got " + std::to_string(o.fps) + ")");
  if (o.target.empty())
    throw InputError("--record needs a target: FILE.mp4 (" + video_extension_list() + "), FILE.rgba or null");
  if (o.target == kNullSinkName) return;
  if (!is_video_path(o.target) && !is_raw_frames_path(o.target))
    throw InputError("--record " + o.target + ": record into a video (" + video_extension_list() +
                     ", through ffmpeg), raw frames (" + kRawFrameExtension +
                     ") or null (nothing written: times the capture alone)");
  check_output_file(o.target, "--record");
  if (const std::string missing = missing_ffmpeg_message(o.target, "--record"); !missing.empty()) throw Error(missing);
}

Recorder::Recorder(const RecordOptions& options, int width, int height)
    : Recorder((check(options), open_sink(options, width, height)), options, width, height) {}

Recorder::Recorder(std::unique_ptr<FrameSink> sink, const RecordOptions& options, int width, int height)
    : options_(options),
      capture_(width, height, options.ring_slots),
      sink_(std::move(sink)),
      sink_description_(sink_->describe()) {
  worker_ = std::thread([this] { encode(); });
}

Recorder::~Recorder() {
  try {
    stop();
  } catch (...) {  // the caller did not ask; the output stays unfinished (its temporary file is removed)
  }
}

void Recorder::capture(GLuint framebuffer, const Viewport& region) {
  if (stopped_ || region.width <= 0 || region.height <= 0) return;  // nothing to read (a minimized window)
  const auto start = std::chrono::steady_clock::now();
  hand_over(capture_.finished());
  std::int64_t index = last_index_ + 1;
  if (options_.pace_by_wall_clock) {
    if (!started_clock_) {
      started_ = start;
      started_clock_ = true;
    }
    index =
        static_cast<std::int64_t>(std::floor(std::chrono::duration<double>(start - started_).count() * options_.fps));
  }
  if (index > last_index_) {
    const auto [source, source_region] = fitted(framebuffer, region);
    bool taken = capture_.capture(source, source_region, index);
    while (!taken && !options_.drop_when_busy) {  // offline: wait for the encoder to give a slot back
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      hand_over(capture_.finished());
      if (!error().empty()) break;
      taken = capture_.capture(source, source_region, index);
    }
    last_index_ = index;
    std::lock_guard lock(mutex_);
    (taken ? stats_.captured : stats_.dropped) += 1;
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard lock(mutex_);
  stats_.capture_ms.push_back(ms);
}

std::pair<GLuint, Viewport> Recorder::fitted(GLuint framebuffer, const Viewport& region) {
  const int width = capture_.width(), height = capture_.height();
  if (region.width == width && region.height == height) return {framebuffer, region};
  // Scaled to fit the video's size, the aspect kept, centred on black: one GPU blit, filtered.
  if (!fit_) fit_ = std::make_unique<GlRenderTarget>(width, height, GL_RGBA8);
  const double scale = std::min(static_cast<double>(width) / region.width, static_cast<double>(height) / region.height);
  const int w = std::clamp(static_cast<int>(std::lround(region.width * scale)), 1, width);
  const int h = std::clamp(static_cast<int>(std::lround(region.height * scale)), 1, height);
  const int x = (width - w) / 2, y = (height - h) / 2;
  const float black[4] = {0, 0, 0, 1};
  glClearNamedFramebufferfv(fit_->framebuffer(), GL_COLOR, 0, black);
  glBlitNamedFramebuffer(framebuffer, fit_->framebuffer(), region.x, region.y, region.x + region.width,
                         region.y + region.height, x, y, x + w, y + h, GL_COLOR_BUFFER_BIT, GL_LINEAR);
  std::lock_guard lock(mutex_);
  ++stats_.scaled;
  return {fit_->framebuffer(), Viewport{0, 0, width, height}};
}

void Recorder::hand_over(std::vector<CapturedFrame> frames) {
  if (frames.empty()) return;
  {
    std::lock_guard lock(mutex_);
    for (const CapturedFrame& f : frames) queue_.push_back(f);
  }
  wake_.notify_one();
}

void Recorder::encode() {
  Image image;
  image.width = capture_.width();
  image.height = capture_.height();
  image.rgba.resize(static_cast<std::size_t>(image.width) * image.height * 4);
  const std::size_t row = static_cast<std::size_t>(image.width) * 4;
  std::int64_t written_index = -1;
  while (true) {
    CapturedFrame frame;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return !queue_.empty() || closing_; });
      if (queue_.empty()) {  // closing, and everything written: frames dropped at the end are repeats too
        const bool failed = !error_.empty();
        const std::int64_t final_index = final_index_;
        lock.unlock();
        if (failed || written_index < 0) return;
        try {
          std::int64_t repeats = 0;
          for (; written_index < final_index; ++written_index, ++repeats)
            sink_->write(image, static_cast<int>(written_index + 1));
          std::lock_guard again(mutex_);
          stats_.written += repeats;
          stats_.repeated += repeats;
        } catch (const std::exception& e) {
          std::lock_guard again(mutex_);
          error_ = e.what();
        }
        return;
      }
      frame = queue_.front();
      queue_.pop_front();
    }
    // GL's rows run bottom-up; video frames top-down.
    for (int y = 0; y < image.height; ++y)
      std::memcpy(&image.rgba[static_cast<std::size_t>(y) * row],
                  frame.pixels + static_cast<std::size_t>(image.height - 1 - y) * row, row);
    capture_.release(frame.slot);
    bool failed;
    {
      std::lock_guard lock(mutex_);
      failed = !error_.empty();
    }
    if (failed) continue;  // keep releasing slots; nothing more is written
    try {
      // A gap (dropped frames, or a frame that took longer than 1/fps) is filled with the frame before it.
      std::int64_t repeats = 0;
      if (written_index >= 0)
        for (; written_index + 1 < frame.index; ++written_index, ++repeats)
          sink_->write(image, static_cast<int>(written_index + 1));
      sink_->write(image, static_cast<int>(frame.index));
      written_index = frame.index;
      std::lock_guard lock(mutex_);
      stats_.written += repeats + 1;
      stats_.repeated += repeats;
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      error_ = e.what();
    }
  }
}

RecordStats Recorder::stop() {
  if (stopped_) return stats();
  stopped_ = true;
  hand_over(capture_.finished(/*wait=*/true));
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    final_index_ = last_index_;
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
  if (!error_.empty()) throw Error("recording to " + sink_description_ + " failed: " + error_);
  if (stats_.written == 0)  // nothing reached the sink: finishing would make an empty, unplayable file
    throw Error("recording to " + sink_description_ +
                " failed: no frame was recorded, and the target was left as it was");
  sink_->finish();
  return stats();
}

RecordStats Recorder::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::string Recorder::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

}  // namespace nbl
