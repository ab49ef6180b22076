// The program as a new user meets it with bad or unusual input: the README's lecture command records the
// whole session into one playable video, Ctrl-C ends a session without losing its outputs, a botched video
// never replaces a good one, deep or duplicated JSON is refused (not a crash), no option is dropped, and
// every failure says so in the exit code: 0 done, 1 failed, 2 refused input, 3 the image check failed.
// Each test runs the real binary (NBODYLAB_BIN may point at another one, e.g. an older build, to show
// what it did).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/resources.hpp"
#include "sim/tipsy.hpp"
#include "xvfb_server.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;       // the exit status; -1 when the program was killed by a signal
  int killed_by = 0;   // the signal that killed it
  std::string output;  // stdout and stderr
  bool has(const std::string& text) const { return output.find(text) != std::string::npos; }
};

std::string binary() {
  const char* override_binary = std::getenv("NBODYLAB_BIN");
  return override_binary && *override_binary ? override_binary : NBL_EXECUTABLE;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Runs `nbodylab ARGUMENTS` in `folder` with `environment` (an `env ...` prefix); with `signal_number`,
// sends that signal to it after `signal_after_s` seconds, as Ctrl-C in its terminal would.
Outcome run_in(const fs::path& folder, const std::string& arguments, const std::string& environment = "",
               int signal_number = 0, double signal_after_s = 0) {
  const fs::path log = folder / ".output.log";
  const std::string command = "cd '" + folder.string() + "' && exec " + environment + " " + binary() + " " + arguments +
                              " > '" + log.string() + "' 2>&1 < /dev/null";
  Outcome r;
  const pid_t child = fork();
  if (child < 0) return r;
  if (child == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (signal_number != 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(signal_after_s));
    kill(child, signal_number);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) r.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.killed_by = WTERMSIG(status);
  r.output = read_file(log);
  fs::remove(log);
  return r;
}

std::string command_output(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return "";
  std::string out;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, got);
  pclose(pipe);
  return out;
}

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " > /dev/null 2>&1").c_str()) == 0;
}

// The frames ffprobe counts in a video's first video stream (-1: none, or not a video).
long video_frames(const fs::path& video) {
  const std::string out = command_output(
      "ffprobe -v error -select_streams v:0 -count_packets -show_entries "
      "stream=nb_read_packets -of csv=p=0 '" +
      video.string() + "'");
  try {
    return std::stol(out);
  } catch (...) {
    return -1;
  }
}

// A trace's wall_s column (seconds at each frame's end since the first frame began).
std::vector<double> trace_wall_seconds(const fs::path& trace) {
  std::ifstream in(trace);
  std::string header;
  std::getline(in, header);
  std::size_t column = 0;
  {
    std::istringstream names(header);
    for (std::string name; std::getline(names, name, ','); ++column)
      if (name == "wall_s") break;
  }
  std::vector<double> wall;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string field;
    for (std::size_t i = 0; i <= column && std::getline(fields, field, ','); ++i) {
    }
    wall.push_back(std::stod(field));
  }
  return wall;
}

class CliRobustness : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_robust_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!mounted_.empty()) umount2(mounted_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }
  Outcome run(const std::string& arguments, const std::string& environment = "") {
    return run_in(dir_, arguments, environment);
  }
  void write(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

  fs::path dir_;
  fs::path mounted_;
};

const std::string kNoDisplay = "env -u DISPLAY -u WAYLAND_DISPLAY";

// ---- 1. The README's lecture command records the whole session into one video -------------------------------

// The README's command for a class, verbatim, in a window under Xvfb; a script ends it after 10 s and the
// trace measures how long the recording ran. The panel widens after the first frame (the presenter's
// type), which used to stop the recorder and leave a video without a video stream.
void expect_the_lecture_is_recorded(const fs::path& dir, const std::string& extra, double seconds) {
  if (!testing::XvfbServer::installed() || !on_path("ffmpeg") || !on_path("ffprobe"))
    GTEST_SKIP() << "needs Xvfb and ffmpeg (scripts/setup.sh installs them)";
  testing::XvfbServer xvfb(1600, 900);
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  std::ofstream(dir / "end.json") << R"({"events": [{"time": )" << seconds << R"(, "action": "quit"}]})";
  const Outcome r = run_in(dir,
                           "--presenter --ui-scale 1.75 --theme high-contrast --record talk.mp4 " + extra +
                               " --script end.json --trace talk.csv",
                           "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<double> wall = trace_wall_seconds(dir / "talk.csv");
  ASSERT_GE(wall.size(), 2u) << r.output;
  const double recorded_s = wall.back() - wall.front();  // from the first frame's capture to the last's
  const long frames = video_frames(dir / "talk.mp4");
  EXPECT_NEAR(static_cast<double>(frames), 30 * recorded_s, 0.1 * 30 * recorded_s)
      << "a video of " << frames << " frames for " << recorded_s << " s at 30 frames per second\n"
      << r.output;
  EXPECT_TRUE(r.has("Recorded to " + (dir / "talk.mp4").string())) << r.output;
}

TEST_F(CliRobustness, TheReadmeLectureCommandRecordsTheWholeSession) { expect_the_lecture_is_recorded(dir_, "", 10); }

TEST_F(CliRobustness, TheLectureCommandWithTheTourRecordsTheWholeSession) {
  expect_the_lecture_is_recorded(dir_, "--tour allpairs", 5);
}

// ---- 2. A video that ffmpeg botches but calls finished never replaces the earlier one ---------------------

TEST_F(CliRobustness, ABotchedVideoNeverReplacesTheEarlierOne) {
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  // ffmpeg when the disk fills while it writes the MP4's trailer: a broken file, the error, exit status 0.
  write(bin / "ffmpeg", R"(#!/bin/sh
for last; do :; done
cat > /dev/null
printf 'ftyp, no moov' > "$last"
echo "[mp4 @ 0x5555] Error writing trailer of $last: No space left on device" >&2
exit 0
)");
  fs::permissions(bin / "ffmpeg", fs::perms::owner_all);
  write(dir_ / "talk.mp4", "the good video of last week");
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  const Outcome r = run("render --backend cpu -n 512 --frames 3 --size 64x64 --out talk.mp4",
                        "env PATH=" + bin.string() + ":" + path);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(r.has("No space left on device")) << r.output;
  EXPECT_EQ(read_file(dir_ / "talk.mp4"), "the good video of last week") << r.output;
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
}

// ---- 3. Deep, huge or duplicated JSON: refused, named, never echoed whole, never a crash --------------------

TEST_F(CliRobustness, DeeplyNestedJsonIsRefusedNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  write(dir_ / "settings.json", R"({"theta": )" + deep + "}");
  const Outcome settings = run("bench --backend cpu -n 64 --steps 1 --settings settings.json");
  EXPECT_EQ(settings.code, 2) << settings.output.substr(0, 2000);
  EXPECT_TRUE(settings.has("settings.json")) << settings.output.substr(0, 2000);
  EXPECT_TRUE(settings.has("nested more than")) << settings.output.substr(0, 2000);
  EXPECT_LT(settings.output.size(), 2000u) << "the value must not be echoed";

  write(dir_ / "script.json", R"({"events": [{"frame": 1, "action": "set", "settings": )" + deep + "}]}");
  const Outcome script = run("--offscreen --backend cpu -n 64 --script script.json", kNoDisplay);
  EXPECT_EQ(script.code, 2) << script.output.substr(0, 2000);
  EXPECT_TRUE(script.has("script.json")) << script.output.substr(0, 2000);
  EXPECT_LT(script.output.size(), 2000u);
}

TEST_F(CliRobustness, AHugeValueIsQuotedInPartNotWhole) {
  write(dir_ / "settings.json", R"({"theta": ")" + std::string(1000000, 'x') + R"("})");
  const Outcome settings = run("bench --backend cpu -n 64 --steps 1 --settings settings.json");
  EXPECT_EQ(settings.code, 2) << settings.output.substr(0, 2000);
  EXPECT_TRUE(settings.has("'theta'")) << settings.output.substr(0, 2000);
  EXPECT_TRUE(settings.has("1000000 characters")) << settings.output.substr(0, 2000);
  EXPECT_LT(settings.output.size(), 1000u);

  write(dir_ / "script.json", R"({"events": [{"frame": 1, "action": ")" + std::string(1000000, 'y') + R"("}]})");
  const Outcome script = run("--offscreen --backend cpu -n 64 --script script.json", kNoDisplay);
  EXPECT_EQ(script.code, 2) << script.output.substr(0, 2000);
  EXPECT_LT(script.output.size(), 1000u);
}

TEST_F(CliRobustness, AKeyGivenTwiceIsRefusedNamingTheKeyAndTheFile) {
  write(dir_ / "settings.json", R"({"theta": 0.5, "view": {"exposure": 1.0, "exposure": 2.0}})");
  const Outcome settings = run("bench --backend cpu -n 64 --steps 1 --settings settings.json");
  EXPECT_EQ(settings.code, 2) << settings.output;
  EXPECT_TRUE(settings.has("settings.json")) << settings.output;
  EXPECT_TRUE(settings.has("'view.exposure' is given twice")) << settings.output;

  write(dir_ / "script.json",
        R"({"events": [{"frame": 1, "action": "stats"}, {"frame": 2, "time": 1, "frame": 3, "action": "quit"}]})");
  const Outcome script = run("--offscreen --backend cpu -n 64 --script script.json", kNoDisplay);
  EXPECT_EQ(script.code, 2) << script.output;
  EXPECT_TRUE(script.has("script.json")) << script.output;
  EXPECT_TRUE(script.has("'events[1].frame' is given twice")) << script.output;
}

// ---- 4. No option is dropped: the window's options with a subcommand are handed over or refused ----------

TEST_F(CliRobustness, BenchRefusesEveryWindowOptionNamingIt) {
  for (const char* given : {"--trace t.csv", "--record talk.mp4", "--screenshot s.png", "--script s.json",
                            "--size garbage", "--ui-scale 99", "--fullscreen", "--frames 5", "--offscreen"}) {
    const std::string option = given;
    const Outcome r = run("bench --backend cpu -n 64 --steps 1 --error-sample 0 " + option);
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_TRUE(r.has(option.substr(0, option.find(' ')))) << option << ": " << r.output;
    EXPECT_FALSE(r.has("Per stage")) << option << ": nothing should run: " << r.output;
  }
}

TEST_F(CliRobustness, OptionsBeforeASubcommandApplyToItOrAreRefused) {
  const Outcome render = run("-n 5 render --backend cpu --frames 1 --size 64x64 --out frames");
  EXPECT_EQ(render.code, 0) << render.output;
  EXPECT_TRUE(render.has(", 5 bodies,")) << "-n 5 must reach render: " << render.output;

  const Outcome twice = run("-n 5 render -n 6 --backend cpu --frames 1 --size 64x64 --out frames2");
  EXPECT_EQ(twice.code, 2) << twice.output;
  EXPECT_TRUE(twice.has("--bodies")) << twice.output;

  const Outcome bad = run("--size 10x10 render --backend cpu -n 64 --frames 1 --out frames3");
  EXPECT_EQ(bad.code, 2) << "its checks run as if it came after the name: " << bad.output;
  EXPECT_TRUE(bad.has("--size")) << bad.output;

  const Outcome info = run("-n 5 info");
  EXPECT_EQ(info.code, 2) << info.output;
  EXPECT_TRUE(info.has("-n,--bodies")) << info.output;
}

TEST_F(CliRobustness, BenchModesRefuseCompareTheyWouldIgnore) {
  const Outcome r = run("bench ladder --compare unroll=8 unroll=128 --backend cpu -n 64");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(r.has("--compare")) << r.output;
}

// ---- 5. Ctrl-C ends a session cleanly; an export is all or nothing -----------------------------------------

TEST_F(CliRobustness, CtrlCEndsAnOffscreenSessionAndItsTraceAndSaveAreWritten) {
  for (const int signal_number : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(signal_number == SIGINT ? "SIGINT" : "SIGTERM");
    fs::remove(dir_ / "t.csv");
    fs::remove(dir_ / "s.tipsy");
    const Outcome r =
        run_in(dir_, "--offscreen --backend cpu -n 1024 --size 640x360 --frames 1000000 --trace t.csv --save s.tipsy",
               kNoDisplay, signal_number, 6.0);
    EXPECT_EQ(r.killed_by, 0) << "killed by the signal: " << r.output;
    EXPECT_EQ(r.code, 128 + signal_number) << r.output;
    EXPECT_TRUE(r.has("interrupted")) << r.output;
    ASSERT_TRUE(fs::exists(dir_ / "t.csv")) << r.output;
    EXPECT_GE(trace_wall_seconds(dir_ / "t.csv").size(), 2u);
    ASSERT_TRUE(fs::exists(dir_ / "s.tipsy")) << r.output;
    EXPECT_EQ(read_tipsy(dir_ / "s.tipsy").bodies.size(), 1024u);
  }
}

// The lecture command again, ended by Ctrl-C after about 10 s, as a lecturer would: the video is whole.
TEST_F(CliRobustness, CtrlCEndsTheLectureAndItsVideoIsWhole) {
  if (!testing::XvfbServer::installed() || !on_path("ffmpeg") || !on_path("ffprobe"))
    GTEST_SKIP() << "needs Xvfb and ffmpeg (scripts/setup.sh installs them)";
  testing::XvfbServer xvfb(1600, 900);
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  const Outcome r = run_in(dir_, "--presenter --ui-scale 1.75 --theme high-contrast --record talk.mp4 --trace talk.csv",
                           "env DISPLAY=" + xvfb.display(), SIGINT, 10.0);
  EXPECT_EQ(r.code, 130) << r.output;
  const std::vector<double> wall = trace_wall_seconds(dir_ / "talk.csv");
  ASSERT_GE(wall.size(), 2u) << r.output;
  const double recorded_s = wall.back() - wall.front();
  const long frames = video_frames(dir_ / "talk.mp4");
  EXPECT_NEAR(static_cast<double>(frames), 30 * recorded_s, 0.1 * 30 * recorded_s)
      << "a video of " << frames << " frames for " << recorded_s << " s\n"
      << r.output;
}

// An export onto a disk that fills before it is done leaves nothing that --kernels would take for one. Needs
// root to mount a small tmpfs (CI runs as root); the same failure through the export's file writer is in
// output_safety_test.cpp.
TEST_F(CliRobustness, AKernelExportOntoAFullDiskLeavesNothingKernelsWouldAccept) {
  const fs::path disk = dir_ / "disk";
  fs::create_directories(disk);
  // Room for the kernel sources and one page more: the physics headers they include do not fit.
  std::uintmax_t bytes = 4096;
  for (const auto& entry : fs::directory_iterator(resource_root() / "cuda" / "kernels"))
    if (entry.is_regular_file()) bytes += (entry.file_size() + 4095) / 4096 * 4096;
  const std::string options = "size=" + std::to_string(bytes);
  if (mount("tmpfs", disk.c_str(), "tmpfs", 0, options.c_str()) != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?): " << std::strerror(errno);
  mounted_ = disk;
  const Outcome exported = run("kernels --export disk/my-kernels");
  EXPECT_EQ(exported.code, 1) << exported.output;
  EXPECT_TRUE(exported.has("cannot export")) << exported.output;
  const Outcome uses = run("bench --backend cpu -n 64 --steps 1 --error-sample 0 --kernels disk/my-kernels");
  EXPECT_EQ(uses.code, 2) << "a half-written export must be refused: " << uses.output;
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(disk)) left.push_back(entry.path().filename().string());
  EXPECT_TRUE(left.empty()) << "left on the disk: " << left.front();
}

TEST_F(CliRobustness, KernelsRefusesAFolderLackingItsMarkerOrAFile) {
  ASSERT_EQ(run("kernels --export my-kernels").code, 0);
  const std::string bench = "bench --backend cpu -n 64 --steps 1 --error-sample 0 --kernels my-kernels";
  ASSERT_EQ(run(bench).code, 0);
  fs::remove(dir_ / "my-kernels" / "physics" / "gravity.hpp");
  const Outcome missing = run(bench);
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(missing.has("physics/gravity.hpp")) << missing.output;
  // What a copy stopped half-way leaves: files, but not the list a finished export writes last.
  fs::remove_all(dir_ / "my-kernels");
  ASSERT_EQ(run("kernels --export my-kernels").code, 0);
  fs::remove(dir_ / "my-kernels" / kKernelsManifest);
  const Outcome unfinished = run(bench);
  EXPECT_EQ(unfinished.code, 2) << unfinished.output;
  EXPECT_TRUE(unfinished.has("did not finish")) << unfinished.output;
}

// ---- 6. Quiet failures speak ----------------------------------------------------------------------------------

TEST_F(CliRobustness, AScriptsSettingsThatCannotApplyFailTheRunNamingTheEntry) {
  write(dir_ / "kernels.json", R"({"events": [
  {"frame": 2, "action": "set", "settings": {"kernels_dir": "/nonexistent/kernels"}},
  {"frame": 4, "action": "quit"}
]})");
  write(dir_ / "bodies.json", R"({"events": [
  {"frame": 2, "action": "set", "settings": {"bodies": 2000000000000}},
  {"frame": 4, "action": "quit"}
]})");
  for (const char* script : {"kernels.json", "bodies.json"}) {
    SCOPED_TRACE(script);
    const Outcome lab = run(
        std::string("--offscreen --backend cpu -n 1024 --size 640x360 --save s.tipsy --script ") + script, kNoDisplay);
    EXPECT_EQ(lab.code, 1) << lab.output;
    EXPECT_TRUE(lab.has(std::string(script) + ": entry 1 (line 2), \"set\" at frame 2: not applied")) << lab.output;
    EXPECT_TRUE(fs::exists(dir_ / "s.tipsy")) << "the rest of the session is still written";
    fs::remove(dir_ / "s.tipsy");
  }
  const Outcome render = run("render --backend cpu -n 1024 --size 64x64 --frames 6 --out frames --script bodies.json");
  EXPECT_EQ(render.code, 1) << render.output;
  EXPECT_TRUE(render.has("bodies.json: entry 1 (line 2)")) << render.output;
}

TEST_F(CliRobustness, NonFiniteCameraNumbersAreRefused) {
  for (const char* given : {"--yaw nan", "--orbit inf", "--pitch -inf", "--zoom nan"}) {
    const std::string option = given;
    const Outcome r = run("render --backend cpu -n 64 --frames 1 --size 64x64 --out frames " + option);
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_TRUE(r.has(option.substr(0, option.find(' ')))) << option << ": " << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "frames")) << option;
  }
}

TEST_F(CliRobustness, KernelsListWithAKernelThatDoesNotCompilePrintsItsLogAndFails) {
  if (!run("info").has("NVRTC 1")) GTEST_SKIP() << "NVRTC is not installed";
  ASSERT_EQ(run("kernels --export my-kernels").code, 0);
  // A header every all-pairs variant includes: they all fail, fast (the Barnes-Hut ones come from the cache).
  std::ofstream(dir_ / "my-kernels" / "allpairs_common.cuh", std::ios::app) << "\nthis is not CUDA;\n";
  const char* cache_env = std::getenv("NBODYLAB_KERNEL_CACHE");
  const std::string cache =
      std::string("env NBODYLAB_KERNEL_CACHE=") + (cache_env && *cache_env ? cache_env : NBL_TEST_KERNEL_CACHE);
  const Outcome r = run("kernels --list --kernels my-kernels", cache);
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(r.has("does not compile")) << r.output;
  EXPECT_TRUE(r.has("allpairs_common.cuh(")) << "the compiler's log, with the line: " << r.output;
}

TEST_F(CliRobustness, PictureChecksEveryFileAndTheExitCodeSaysWhatWentWrong) {
  ASSERT_EQ(run("render --backend cpu -n 5 --frames 1 --size 64x64 --out empty").code, 0);  // five bodies: no detail
  const std::string empty = "empty/frame_00000.png";
  write(dir_ / "text.png", "not a picture");
  const Outcome failed = run("picture " + empty);
  EXPECT_EQ(failed.code, 3) << failed.output;
  const Outcome mixed = run("picture text.png " + empty + " missing.png");
  EXPECT_EQ(mixed.code, 2) << "an unreadable file is bad input: " << mixed.output;
  for (const std::string& file : {std::string("text.png"), empty, std::string("missing.png")})
    EXPECT_TRUE(mixed.has(file + ":")) << "every file is reported: " << mixed.output;
  const Outcome render = run("render --backend cpu -n 5 --frames 1 --size 64x64 --out again --check-picture");
  EXPECT_EQ(render.code, 3) << render.output;
}

TEST_F(CliRobustness, ScriptKeysAreNamedAsTheirKeyCaps) {
  write(dir_ / "keys.json",
        R"({"events": [{"frame": 1, "action": "key", "key": "f9"}, {"frame": 2, "action": "key", "key": "F10"},
  {"frame": 3, "action": "key", "key": "f10"}, {"frame": 4, "action": "quit"}]})");
  const Outcome keys = run("--offscreen --backend cpu -n 1024 --size 960x540 --script keys.json", kNoDisplay);
  EXPECT_EQ(keys.code, 0) << keys.output;
  write(dir_ / "star.json",
        R"({"events": [{"frame": 1, "action": "key", "key": "*"}, {"frame": 2, "action": "quit"}]})");
  const Outcome star = run("--offscreen --backend cpu -n 1024 --script star.json", kNoDisplay);
  EXPECT_EQ(star.code, 2) << star.output;
  EXPECT_TRUE(star.has("f9, f10")) << "the list of keys names them: " << star.output;
}

TEST_F(CliRobustness, AScreenshotNamedOtherThanPngIsRefused) {
  const Outcome jpg = run("--offscreen --backend cpu -n 64 --frames 2 --screenshot shot.jpg", kNoDisplay);
  EXPECT_EQ(jpg.code, 2) << jpg.output;
  EXPECT_TRUE(jpg.has("shot.png")) << "it says what to name it: " << jpg.output;
  EXPECT_FALSE(fs::exists(dir_ / "shot.jpg"));
  write(dir_ / "shot.json",
        R"({"events": [{"frame": 1, "action": "screenshot", "file": "a.jpeg"}, {"frame": 2, "action": "quit"}]})");
  const Outcome script = run("--offscreen --backend cpu -n 64 --script shot.json", kNoDisplay);
  EXPECT_EQ(script.code, 2) << script.output;
  EXPECT_TRUE(script.has("entry 1")) << script.output;
}

TEST_F(CliRobustness, TwoOutputsNamingTheSameFileAreRefused) {
  const Outcome lab = run("--offscreen --backend cpu -n 64 --frames 2 --save x.out --trace ./x.out", kNoDisplay);
  EXPECT_EQ(lab.code, 2) << lab.output;
  EXPECT_TRUE(lab.has("--save") && lab.has("--trace")) << lab.output;
  EXPECT_FALSE(fs::exists(dir_ / "x.out"));
  const Outcome bench = run("bench --backend cpu -n 64 --steps 1 --json r.txt --csv r.txt");
  EXPECT_EQ(bench.code, 2) << bench.output;
  EXPECT_FALSE(bench.has("Per stage")) << bench.output;
  const Outcome render =
      run("render --backend cpu -n 64 --frames 1 --size 64x64 --out frames --trace t.csv --report t.csv --benchmark");
  EXPECT_EQ(render.code, 2) << render.output;
}

TEST_F(CliRobustness, BenchScalingSizesAreChecked) {
  for (const char* sizes : {"-5", "0", "1024,-1"}) {
    const Outcome r = run(std::string("bench scaling --sizes ") + sizes);
    EXPECT_EQ(r.code, 2) << sizes << ": " << r.output;
    EXPECT_TRUE(r.has("--sizes")) << sizes << ": " << r.output;
    EXPECT_FALSE(r.has("vector::")) << r.output;
  }
}

TEST_F(CliRobustness, CommandLineErrorsComeFromNbodylab) {
  for (const char* arguments : {"bench --frobnicate", "render --frames", "--tour nowhere", "kernels --jobs 0"}) {
    const Outcome r = run(arguments, kNoDisplay);
    EXPECT_EQ(r.code, 2) << arguments << ": " << r.output;
    EXPECT_EQ(r.output.rfind("nbodylab: ", 0), 0u) << arguments << ": " << r.output;
  }
}

TEST_F(CliRobustness, HelpListsTheExitCodes) {
  for (const char* arguments : {"--help", "render --help", "bench scaling --help", "picture --help"}) {
    const Outcome r = run(arguments);
    EXPECT_EQ(r.code, 0) << arguments;
    EXPECT_TRUE(r.has("Exit codes: 0 done; 1 failed while running; 2 refused input")) << arguments << ": " << r.output;
    EXPECT_TRUE(r.has("3 the image check failed")) << arguments;
  }
}

}  // namespace
}  // namespace nbl
