// Where finished frames go, shared by `nbodylab render` (every frame, in order) and the recorder
// (app/core/recorder.hpp: the window's frames while the session runs, from a worker thread):
//   PngFolder   numbered PNGs, moved into the target folder when all are written;
//   FfmpegPipe  raw RGBA into ffmpeg's stdin, H.264 into a video file (kVideoExtensions);
//   RawFrames   raw RGBA frames back to back in one file (.rgba), for machines without ffmpeg;
//   NullSink    nothing: times the capture path alone.
// A sink is used from one thread at a time.
#pragma once
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "render/image.hpp"

namespace nbl {

class FrameSink {
 public:
  virtual ~FrameSink() = default;
  virtual void write(const Image& image, int index) = 0;  // top row first
  // Completes the output (closes the video, moves the frames in). Throws Error when that fails.
  virtual void finish() {}
  virtual std::string describe() const = 0;  // "collision.mp4 (H.264 through ffmpeg)"
};

// The video containers written through ffmpeg.
inline constexpr const char* kVideoExtensions[] = {".mp4", ".mkv", ".webm", ".mov"};
inline constexpr const char* kRawFrameExtension = ".rgba";
inline constexpr const char* kNullSinkName = "null";
std::string video_extension_list();  // ".mp4 .mkv .webm .mov"
bool is_video_path(const std::string& out);
bool is_raw_frames_path(const std::string& out);
std::optional<std::filesystem::path> find_program(const std::string& name);  // on PATH

// True when `out` names a folder of PNGs (no known file extension).
bool is_frame_file(const std::filesystem::path& path);  // frame_*.png

std::unique_ptr<FrameSink> make_png_folder(const std::filesystem::path& folder);
// live: the session runs while it encodes (the window's recorder): x264's veryfast preset, about 3x the
// frames per second of its default for a somewhat larger file at the same quality (CRF 18); offline
// renders take the default.
std::unique_ptr<FrameSink> make_ffmpeg_pipe(const std::filesystem::path& ffmpeg, const std::string& out, int width,
                                            int height, int fps, bool live = false);
std::unique_ptr<FrameSink> make_raw_frames(const std::string& out, int width, int height, int fps);
std::unique_ptr<FrameSink> make_null_sink();

// Whether `file` is a whole video of `frames` frames, as far as can be told: not empty, and where ffprobe
// is installed, a video stream that ffprobe reads to the end with that many frames. "" when it is; else
// what is wrong with it.
std::string verify_video(const std::filesystem::path& file, std::int64_t frames);

// The check of a screenshot's path (--screenshot, a script's screenshot): check_output_file, and a name
// ending in .png (any case): a screenshot is always a PNG, and a .jpg of PNG bytes would fool a reader.
void check_png_output(const std::filesystem::path& file, std::string_view option);

// ffmpeg is needed for `out` (a video) and is not on PATH: the message that says so and what to do
// instead ("" when nothing is missing). `option` names the option in the message.
std::string missing_ffmpeg_message(const std::string& out, const std::string& option);

}  // namespace nbl
