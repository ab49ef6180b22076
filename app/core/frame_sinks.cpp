#include "app/core/frame_sinks.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

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
      if (ec)
        throw Error("cannot move the frames from " + stage_.string() + " to " + folder_.string() + ": " + ec.message());
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
      : out_(std::filesystem::absolute(out).string()),
        temp_(temporary_path_for(out, std::filesystem::path(out).extension().string())) {
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

// A program run with a pipe to its stdin and its stderr (and stdout, with `capture_stdout`) read into a
// string on a thread of its own, so it can never block on a full pipe. It runs in a process group of
// its own: Ctrl-C in the terminal reaches nbodylab alone, which then finishes the output in order
// (app/core/interrupt.hpp), instead of killing the encoder in the middle of a video.
class Child {
 public:
  Child(const std::vector<std::string>& argv, bool capture_stdout) {
    int input[2], output[2];
    if (::pipe2(input, O_CLOEXEC) != 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(errno));
    if (::pipe2(output, O_CLOEXEC) != 0) {
      const int err = errno;
      ::close(input[0]), ::close(input[1]);
      throw Error("cannot start " + argv[0] + ": " + std::strerror(err));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input[0], 0);
    posix_spawn_file_actions_adddup2(&actions, output[1], 2);
    if (capture_stdout) posix_spawn_file_actions_adddup2(&actions, output[1], 1);
    else posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);  // ignored here while a pipe is open; the child gets the default back
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int spawned = posix_spawn(&pid_, argv[0].c_str(), &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(input[0]);
    ::close(output[1]);
    if (spawned != 0) {
      ::close(input[1]), ::close(output[0]);
      throw Error("cannot start " + argv[0] + ": " + std::strerror(spawned));
    }
    stdin_ = input[1];
    reader_ = std::thread([this, fd = output[0]] {
      char buffer[4096];
      for (ssize_t got; (got = ::read(fd, buffer, sizeof buffer)) != 0;) {
        if (got < 0) {
          if (errno == EINTR) continue;
          break;
        }
        if (output_.size() < kMaxOutput)
          output_.append(buffer, static_cast<std::size_t>(std::min<ssize_t>(got, kMaxOutput)));
      }
      ::close(fd);
    });
  }
  ~Child() {
    try {
      wait();
    } catch (...) {
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // All of `bytes` into the child's stdin; false when it stopped reading (it exited).
  bool write(const void* bytes, std::size_t size) {
    const char* at = static_cast<const char*>(bytes);
    while (size > 0) {
      const ssize_t put = ::write(stdin_, at, size);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return false;
      at += put;
      size -= static_cast<std::size_t>(put);
    }
    return true;
  }
  // Closes its stdin, waits for it to exit and for its output. Returns the wait status (as waitpid's).
  int wait() {
    if (stdin_ >= 0) ::close(stdin_), stdin_ = -1;
    if (pid_ > 0) {
      while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
    }
    if (reader_.joinable()) reader_.join();
    return status_;
  }
  const std::string& output() const { return output_; }  // after wait()

 private:
  static constexpr std::size_t kMaxOutput = 64 * 1024;
  pid_t pid_ = -1;
  int stdin_ = -1;
  int status_ = -1;
  std::thread reader_;
  std::string output_;
};

std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// Raw RGBA frames into ffmpeg's stdin; ffmpeg encodes H.264 (yuv420p, the format players accept). ffmpeg
// can exit 0 and still leave a broken file (the disk filled while it wrote the trailer), so finish()
// trusts the video only after ffmpeg said nothing at all (it runs at -loglevel error) and ffprobe, where
// it is installed, finds a video stream holding every frame written: only then does the video replace
// the target.
class FfmpegPipe : public FrameSink {
 public:
  FfmpegPipe(const std::filesystem::path& ffmpeg, const std::string& out, int width, int height, int fps, bool live)
      : file_(out), width_(width), height_(height) {
    // ffmpeg writes beside the target (the extension kept, so it picks the container); finish() renames.
    std::vector<std::string> argv = {ffmpeg.string(),
                                     "-hide_banner",
                                     "-loglevel",
                                     "error",
                                     "-y",
                                     "-f",
                                     "rawvideo",
                                     "-pixel_format",
                                     "rgba",
                                     "-video_size",
                                     std::to_string(width) + "x" + std::to_string(height),
                                     "-framerate",
                                     std::to_string(fps),
                                     "-i",
                                     "-",
                                     "-vf",
                                     "pad=ceil(iw/2)*2:ceil(ih/2)*2",
                                     "-c:v",
                                     "libx264"};
    if (live) argv.insert(argv.end(), {"-preset", "veryfast"});
    argv.insert(argv.end(), {"-pix_fmt", "yuv420p", "-crf", "18", file_.temp().string()});
    previous_sigpipe_ = std::signal(SIGPIPE, SIG_IGN);  // a dead ffmpeg is an error we report, not a crash
    try {
      ffmpeg_ = std::make_unique<Child>(argv, /*capture_stdout=*/false);
    } catch (...) {
      std::signal(SIGPIPE, previous_sigpipe_);
      throw;
    }
  }
  ~FfmpegPipe() override {
    ffmpeg_.reset();
    std::signal(SIGPIPE, previous_sigpipe_);
  }
  void write(const Image& image, int) override {
    if (image.width != width_ || image.height != height_)
      throw Error("a " + std::to_string(image.width) + "x" + std::to_string(image.height) + " frame for a " +
                  std::to_string(width_) + "x" + std::to_string(height_) + " video");
    if (!ffmpeg_->write(image.rgba.data(), image.rgba.size())) {
      ffmpeg_->wait();
      throw Error("ffmpeg stopped taking frames while writing " + file_.out() + " (" + ffmpeg_message() + ")");
    }
    ++frames_;
  }
  void finish() override {
    const int status = ffmpeg_->wait();
    const std::string kept = "; " + file_.out() + " was left as it was";
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw Error("ffmpeg failed to write " + file_.out() + " (" + describe_status(status) + ": " + ffmpeg_message() +
                  ")" + kept);
    if (!trimmed(ffmpeg_->output()).empty())
      throw Error("ffmpeg exited 0 but reported an error while writing " + file_.out() + ": " + ffmpeg_message() +
                  kept);
    if (const std::string problem = verify_video(file_.temp(), frames_); !problem.empty())
      throw Error("ffmpeg exited 0 but the video it wrote for " + file_.out() + " is not whole: " + problem + kept);
    file_.commit();
  }
  std::string describe() const override { return file_.out() + " (H.264 through ffmpeg)"; }

 private:
  std::string ffmpeg_message() const {
    const std::string said = trimmed(ffmpeg_->output());
    return said.empty() ? "it said nothing" : "it said: " + said;
  }

  StagedFile file_;
  int width_, height_;
  std::int64_t frames_ = 0;
  std::unique_ptr<Child> ffmpeg_;
  void (*previous_sigpipe_)(int) = SIG_DFL;
};

// Frames back to back, top row first, 4 bytes a pixel: what the encoder would have been fed.
class RawFrames : public FrameSink {
 public:
  RawFrames(const std::string& out, int width, int height, int fps)
      : file_(out), width_(width), height_(height), fps_(fps) {
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
    return file_.out() + " (raw RGBA " + std::to_string(width_) + "x" + std::to_string(height_) +
           "; to a video: ffmpeg -f rawvideo "
           "-pixel_format rgba -video_size " +
           std::to_string(width_) + "x" + std::to_string(height_) + " -framerate " + std::to_string(fps_) + " -i " +
           file_.out() + " -pix_fmt yuv420p video.mp4)";
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
  const std::string head = option + " " + out +
                           " asks for a video, which needs ffmpeg, and ffmpeg is not on PATH. Install it "
                           "(apt-get install ffmpeg), or ";
  if (option == "--out")
    return head +
           "write PNG frames: --out frames/ (then: ffmpeg -framerate 30 -i frames/frame_%05d.png -pix_fmt yuv420p "
           "run.mp4)";
  return head + "record raw frames and encode them where ffmpeg is: " + option + " " +
         std::filesystem::path(out).replace_extension(kRawFrameExtension).string();
}

std::string verify_video(const std::filesystem::path& file, std::int64_t frames) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec || size == 0) return file.string() + " is missing or empty";
  const auto ffprobe = find_program("ffprobe");
  if (!ffprobe) return "";  // ffmpeg's silence and its exit status are all there is to go on
  Child probe({ffprobe->string(), "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
               "stream=codec_type,nb_read_packets", "-of", "default=noprint_wrappers=1", file.string()},
              /*capture_stdout=*/true);
  const int status = probe.wait();
  const std::string said = trimmed(probe.output());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "ffprobe cannot read it (" + describe_status(status) + (said.empty() ? "" : ": " + said) + ")";
  if (said.find("codec_type=video") == std::string::npos) return "ffprobe finds no video stream in it";
  const auto at = said.find("nb_read_packets=");
  const std::string count = at == std::string::npos ? "" : said.substr(at + 16, said.find('\n', at) - at - 16);
  if (count != std::to_string(frames))
    return "ffprobe finds " + (count.empty() ? std::string("no") : count) + " frame(s) in it, not the " +
           std::to_string(frames) + " written";
  return "";
}

void check_png_output(const std::filesystem::path& file, std::string_view option) {
  if (file.empty()) return;
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (extension != ".png")
    throw InputError(
        std::string(option) + " " + file.string() + ": a screenshot is written as a PNG, which this name " +
        (extension.empty() ? std::string("does not say") : "would hide behind '" + file.extension().string() + "'") +
        "; name it " + std::filesystem::path(file).replace_extension(".png").string());
  check_output_file(file, option);
}

std::unique_ptr<FrameSink> make_png_folder(const std::filesystem::path& folder) {
  return std::make_unique<PngFolder>(folder);
}
std::unique_ptr<FrameSink> make_ffmpeg_pipe(const std::filesystem::path& ffmpeg, const std::string& out, int width,
                                            int height, int fps, bool live) {
  return std::make_unique<FfmpegPipe>(ffmpeg, out, width, height, fps, live);
}
std::unique_ptr<FrameSink> make_raw_frames(const std::string& out, int width, int height, int fps) {
  return std::make_unique<RawFrames>(out, width, height, fps);
}
std::unique_ptr<FrameSink> make_null_sink() { return std::make_unique<NullSink>(); }

}  // namespace nbl
