// Nothing lost, nothing half-written, through the code's own seams: a video that ffmpeg botches but calls
// finished (its program is a parameter of the sink), a kernel export whose disk fills (its file writer is a
// parameter of the export), and a recording whose area changes size in the middle of a session.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "app/core/frame_sinks.hpp"
#include "app/lab/lab.hpp"
#include "sim/error.hpp"
#include "sim/resources.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_output_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // An executable shell script standing in for a program.
  fs::path program(const std::string& name, const std::string& body) const {
    const fs::path file = dir_ / name;
    std::ofstream(file) << "#!/bin/sh\n" << body;
    fs::permissions(file, fs::perms::owner_all);
    return file;
  }
  static std::string contents(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  // Entries of dir_ whose name holds ".tmp": what a write stages before it renames.
  int staged_leftovers() const {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(dir_))
      n += entry.path().filename().string().find(".tmp") != std::string::npos;
    return n;
  }

  fs::path dir_;
};

Image gray_frame(int width, int height) {
  Image image;
  image.width = width;
  image.height = height;
  image.rgba.assign(static_cast<std::size_t>(width) * height * 4, 128);
  return image;
}

// What ffmpeg does when the disk fills while it writes the MP4's trailer: it reads every frame, leaves a
// file without the index a player needs, prints the error and exits 0.
TEST_F(OutputSafety, AVideoFfmpegBotchesButCallsFinishedNeverReplacesTheEarlierOne) {
  const fs::path video = dir_ / "talk.mp4";
  std::ofstream(video) << "the good video of last week";
  const fs::path trailer_fails = program("ffmpeg-trailer", R"(for last; do :; done
cat > /dev/null
printf 'ftyp, no moov' > "$last"
echo "[mp4 @ 0x5555] Error writing trailer of $last: No space left on device" >&2
exit 0
)");
  const fs::path silent_junk = program("ffmpeg-silent", R"(for last; do :; done
cat > /dev/null
printf 'not a video' > "$last"
exit 0
)");
  for (const fs::path& ffmpeg : {trailer_fails, silent_junk}) {
    SCOPED_TRACE(ffmpeg.filename().string());
    if (ffmpeg == silent_junk && !find_program("ffprobe"))
      GTEST_SKIP() << "only ffprobe can tell this file is not a video";
    {
      auto sink = make_ffmpeg_pipe(ffmpeg, video.string(), 32, 16, 30);
      for (int i = 0; i < 3; ++i) sink->write(gray_frame(32, 16), i);
      try {
        sink->finish();
        ADD_FAILURE() << "a broken video was accepted";
      } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("talk.mp4 was left as it was"), std::string::npos) << what;
        if (ffmpeg == trailer_fails) {
          EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
        }
      }
    }
    EXPECT_EQ(contents(video), "the good video of last week");
    EXPECT_EQ(staged_leftovers(), 0) << "the broken file is removed";
  }
}

TEST_F(OutputSafety, AWholeVideoFromTheRealFfmpegIsCheckedAndKept) {
  const auto ffmpeg = find_program("ffmpeg");
  if (!ffmpeg || !find_program("ffprobe")) GTEST_SKIP() << "ffmpeg is not installed (scripts/setup.sh installs it)";
  const fs::path video = dir_ / "talk.mp4";
  auto sink = make_ffmpeg_pipe(*ffmpeg, video.string(), 32, 16, 30);
  for (int i = 0; i < 5; ++i) sink->write(gray_frame(32, 16), i);
  ASSERT_NO_THROW(sink->finish());
  EXPECT_EQ(verify_video(video, 5), "");
  EXPECT_NE(verify_video(video, 6), "") << "a frame missing is a broken video";
}

// The export's disk fills after a few files: nothing is left under the target's name or beside it, and a
// folder that an older, unstaged export left half-written is refused by --kernels.
TEST_F(OutputSafety, AKernelExportThatRunsOutOfDiskLeavesNothingBehind) {
  const fs::path workspace = dir_ / "my-kernels";
  int copied = 0;
  const ExportFileCopier fills_after_three = [&copied](const fs::path& from, const fs::path& to) {
    if (++copied > 3) throw fs::filesystem_error("copy", from, to, std::make_error_code(std::errc::no_space_on_device));
    copy_file_for_export(from, to);
  };
  try {
    export_kernel_sources(workspace, fills_after_three);
    ADD_FAILURE() << "the export should fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("nothing was left"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(workspace));
  EXPECT_EQ(staged_leftovers(), 0);

  // A whole export, then what a half-written one would be: the marker gone, or a file of it.
  ASSERT_GT(export_kernel_sources(workspace), 10);
  EXPECT_NO_THROW(check_kernels_workspace(workspace));
  fs::remove(workspace / "physics" / "gravity.hpp");
  EXPECT_THROW(check_kernels_workspace(workspace), InputError);
  fs::remove(workspace / kKernelsManifest);
  try {
    check_kernels_workspace(workspace);
    ADD_FAILURE() << "a folder without the export's list is not an export";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish"), std::string::npos) << e.what();
  }
}

// The presenter's larger type widens the panel after the first frame, so the scene the recording started
// with shrinks: the recording goes on at its first size, the new area scaled to fit, one frame per frame.
TEST_F(OutputSafety, ARecordingSurvivesTheRecordedAreaChangingSize) {
  LabOptions o;
  o.offscreen = true;
  o.window.width = 960;
  o.window.height = 540;
  o.settings.scene = Scene::galaxy;
  o.settings.body_count = 2048;
  o.settings.backend = BackendKind::cpu;
  o.tune_body_count = false;
  o.frames = 6;
  const fs::path raw = dir_ / "talk.rgba";
  o.record.target = raw.string();
  o.record.pace_by_wall_clock = false;  // every frame a video frame: the count is exact
  Lab lab(o);
  const Viewport first = lab.scene_viewport();
  lab.frame();
  lab.frame();
  lab.editor().view().ui_scale = 1.75;  // the panel widens: the scene's area shrinks
  for (int i = 0; i < 4; ++i) lab.frame();
  ASSERT_NE(lab.scene_viewport().width, first.width) << "the test needs the area to change";
  EXPECT_TRUE(lab.recorder()) << "the recording stopped: " << lab.last_error();
  EXPECT_TRUE(lab.recording_failure().empty()) << lab.recording_failure();
  EXPECT_NE(lab.last_status().find("scaled to fit"), std::string::npos) << lab.last_status();
  ASSERT_TRUE(lab.stop_recording()) << lab.last_error();
  const std::size_t frame_bytes = static_cast<std::size_t>(first.width) * first.height * 4;
  EXPECT_EQ(fs::file_size(raw), 6 * frame_bytes) << "six frames, each of the size the recording started with";
}

}  // namespace
}  // namespace nbl
