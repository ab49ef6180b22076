#include "app/core/frame_sinks.hpp"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <sstream>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Frames go to a staging folder beside the target (.NAME.tmpPID) and move into the target only when
// all of them are written: a failed or interrupted render leaves the target as it was, and an
// --overwrite replaces the old frame_*.png files only then. A killed render's staging folder is
// removed by the next render into the same target.
class PngFolder : public FrameSink {
 public:
  explicit PngFolder(const std::filesystem::path& folder)
      : folder_(folder.has_filename() ? folder : folder.parent_path()), stage_(temporary_path_for(folder_)) {
    remove_stale_temporaries(folder_);
    std::error_code ec;
    std::filesystem::create_directories(stage_, ec);
    if (ec) throw Error("cannot create " + stage_.string() + " to stage the frames in: " + ec.message());
  }
  ~PngFolder() override {
    std::error_code ec;
    std::filesystem::remove_all(stage_, ec);
  }
  void write(const Image& image, int index) override {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%05d.png", index);
    write_png(stage_ / name, image);
  }
  void finish() override {
    std::error_code ec;
    if (!std::filesystem::exists(folder_, ec)) {
      std::filesystem::rename(stage_, folder_, ec);
      if (ec) throw Error("cannot move the frames from " + stage_.string() + " to " + folder_.string() + ": " + ec.message());
      return;
    }
    for (const auto& entry : std::filesystem::directory_iterator(folder_))  // validate() allowed this (--overwrite)
      if (is_frame_file(entry.path())) std::filesystem::remove(entry.path());
    for (const auto& entry : std::filesystem::directory_iterator(stage_)) {
      std::filesystem::rename(entry.path(), folder_ / entry.path().filename(), ec);
      if (ec) throw Error("cannot move " + entry.path().string() + " into " + folder_.string() + ": " + ec.message());
    }
  }
  std::string describe() const override { return folder_.string() + " (PNG frames)"; }

 private:
  std::filesystem::path folder_, stage_;
};

// A file written beside its target and renamed into place by finish(): a failed or interrupted
// recording never leaves half a video under the target's name. Named by its absolute path, so the
// panel's status line says where a recording went.
class StagedFile {
 public:
  explicit StagedFile(const std::string& out)
      : out_(std::filesystem::absolute(out).string()), temp_(temporary_path_for(out, std::filesystem::path(out).extension().string())) {
    remove_stale_temporaries(out);
  }
  ~StagedFile() {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);  // only still there when the output was not finished
  }
  void commit() const {
    std::error_code ec;
    std::filesystem::rename(temp_, out_, ec);
    if (ec) throw Error("cannot move " + temp_.string() + " to " + out_ + ": " + ec.message());
  }
  const std::string& out() const { return out_; }
  const std::filesystem::path& temp() const { return temp_; }

 private:
  std::string out_;
  std::filesystem::path temp_;
};

// Raw RGBA frames into ffmpeg's stdin; ffmpeg encodes H.264 (yuv420p, the format players accept).
class FfmpegPipe : public FrameSink {
 public:
  FfmpegPipe(const std::filesystem::path& ffmpeg, const std::string& out, int width, int height, int fps, bool live)
      : file_(out), width_(width), height_(height) {
    // ffmpeg writes beside the target (the extension kept, so it picks the container); finish() renames.
    const std::string command = shell_quoted(ffmpeg.string()) + " -hide_banner -loglevel error -y -f rawvideo -pixel_format rgba -video_size " +
                                std::to_string(width) + "x" + std::to_string(height) + " -framerate " + std::to_string(fps) +
                                " -i - -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264" + (live ? " -preset veryfast" : "") +
                                " -pix_fmt yuv420p -crf 18 " +
                                shell_quoted(file_.temp().string());
    previous_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // a dead ffmpeg is an error we report, not a crash
    pipe_ = popen(command.c_str(), "w");
    if (!pipe_) throw Error("cannot start ffmpeg (" + command + ")");
  }
  ~FfmpegPipe() override {
    if (pipe_) pclose(pipe_);
    std::signal(SIGPIPE, previous_sigpipe_);
  }
  void write(const Image& image, int) override {
    if (image.width != width_ || image.height != height_)
      throw Error("a " + std::to_string(image.width) + "x" + std::to_string(image.height) + " frame for a " +
                  std::to_string(width_) + "x" + std::to_string(height_) + " video");
    if (std::fwrite(image.rgba.data(), 1, image.rgba.size(), pipe_) != image.rgba.size())
      throw Error("ffmpeg stopped taking frames while writing " + file_.out() + " (see its message above)");
  }
  void finish() override {
    const int status = pclose(pipe_);
    pipe_ = nullptr;
    if (status != 0) throw Error("ffmpeg failed to write " + file_.out() + " (exit status " + std::to_string(status) + ")");
    file_.commit();
  }
  std::string describe() const override { return file_.out() + " (H.264 through ffmpeg)"; }

 private:
  StagedFile file_;
  int width_, height_;
  FILE* pipe_ = nullptr;
  void (*previous_sigpipe_)(int) = SIG_DFL;
};

// Frames back to back, top row first, 4 bytes a pixel: what the encoder would have been fed.
class RawFrames : public FrameSink {
 public:
  RawFrames(const std::string& out, int width, int height, int fps) : file_(out), width_(width), height_(height), fps_(fps) {
    stream_ = std::fopen(file_.temp().c_str(), "wb");
    if (!stream_) throw Error("cannot write " + file_.temp().string());
  }
  ~RawFrames() override {
    if (stream_) std::fclose(stream_);
  }
  void write(const Image& image, int) override {
    if (image.width != width_ || image.height != height_) throw Error("a frame of another size for " + file_.out());
    if (std::fwrite(image.rgba.data(), 1, image.rgba.size(), stream_) != image.rgba.size())
      throw Error("cannot write to " + file_.out() + " (disk full?)");
  }
  void finish() override {
    const bool ok = std::fclose(stream_) == 0;
    stream_ = nullptr;
    if (!ok) throw Error("cannot finish " + file_.out());
    file_.commit();
  }
  std::string describe() const override {
    return file_.out() + " (raw RGBA " + std::to_string(width_) + "x" + std::to_string(height_) + "; to a video: ffmpeg -f rawvideo "
           "-pixel_format rgba -video_size " + std::to_string(width_) + "x" + std::to_string(height_) + " -framerate " +
           std::to_string(fps_) + " -i " + file_.out() + " -pix_fmt yuv420p video.mp4)";
  }

 private:
  StagedFile file_;
  int width_, height_, fps_;
  FILE* stream_ = nullptr;
};

class NullSink : public FrameSink {
 public:
  void write(const Image&, int) override {}
  std::string describe() const override { return "nowhere (the null sink: the capture path alone)"; }
};

}  // namespace

std::string video_extension_list() {
  std::string list;
  for (const char* ext : kVideoExtensions) list += (list.empty() ? "" : " ") + std::string(ext);
  return list;
}

bool is_video_path(const std::string& out) {
  const std::string ext = std::filesystem::path(out).extension().string();
  return std::any_of(std::begin(kVideoExtensions), std::end(kVideoExtensions), [&](const char* v) { return ext == v; });
}

bool is_raw_frames_path(const std::string& out) { return std::filesystem::path(out).extension() == kRawFrameExtension; }

std::optional<std::filesystem::path> find_program(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const auto candidate = std::filesystem::path(dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

bool is_frame_file(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.rfind("frame_", 0) == 0 && path.extension() == ".png";
}

std::string missing_ffmpeg_message(const std::string& out, const std::string& option) {
  if (!is_video_path(out) || find_program("ffmpeg")) return "";
  const std::string head = option + " " + out + " asks for a video, which needs ffmpeg, and ffmpeg is not on PATH. Install it "
                           "(apt-get install ffmpeg), or ";
  if (option == "--out")
    return head + "write PNG frames: --out frames/ (then: ffmpeg -framerate 30 -i frames/frame_%05d.png -pix_fmt yuv420p run.mp4)";
  return head + "record raw frames and encode them where ffmpeg is: " + option + " " +
         std::filesystem::path(out).replace_extension(kRawFrameExtension).string();
}

std::unique_ptr<FrameSink> make_png_folder(const std::filesystem::path& folder) { return std::make_unique<PngFolder>(folder); }
std::unique_ptr<FrameSink> make_ffmpeg_pipe(const std::filesystem::path& ffmpeg, const std::string& out, int width, int height,
                                            int fps, bool live) {
  return std::make_unique<FfmpegPipe>(ffmpeg, out, width, height, fps, live);
}
std::unique_ptr<FrameSink> make_raw_frames(const std::string& out, int width, int height, int fps) {
  return std::make_unique<RawFrames>(out, width, height, fps);
}
std::unique_ptr<FrameSink> make_null_sink() { return std::make_unique<NullSink>(); }

}  // namespace nbl
