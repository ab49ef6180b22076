// `nbodylab render` in-process: the job is checked before anything runs, and a small job writes
// numbered PNGs with the bodies in them.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "app/render/headless_render.hpp"
#include "png_file.hpp"
#include "sim/error.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

RenderJob small_job(const fs::path& out) {
  RenderJob job;
  job.settings.scene = Scene::galaxy;
  job.settings.body_count = 3000;
  job.settings.backend = BackendKind::cpu;
  job.frames = 3;
  job.size = {320, 180};
  job.out = out.string();
  job.pitch_deg = 89;  // face-on
  return job;
}

TEST(RenderJob, WritesNumberedPngsWithTheBodiesInThem) {
  const fs::path dir = fs::temp_directory_path() / ("nbl_render_" + std::to_string(getpid()));
  std::ostringstream log;
  const RenderReport report = render_frames(small_job(dir), log);
  EXPECT_EQ(report.frames_written, 3);
  EXPECT_EQ(report.path, VertexPath::host_copy);
  EXPECT_NE(log.str().find("EGL"), std::string::npos) << log.str();
  for (const char* name : {"frame_00000.png", "frame_00001.png", "frame_00002.png"})
    EXPECT_TRUE(fs::exists(dir / name)) << name;
  const Image image = testing::load_png(dir / "frame_00002.png");
  EXPECT_EQ(image.width, 320);
  EXPECT_EQ(image.height, 180);
  const double centre = testing::fraction(image, 140, 70, 180, 110, [](auto p) { return testing::luma(p) > 80; });
  const double corner = testing::fraction(image, 0, 0, 20, 20, [](auto p) { return testing::luma(p) > 30; });
  EXPECT_GT(centre, 0.2);
  EXPECT_EQ(corner, 0.0);
  fs::remove_all(dir);
}

TEST(RenderJob, BenchmarkReportsEveryPartOfTheFrame) {
  for (const bool overlap : {false, true}) {
    SCOPED_TRACE(overlap ? "overlapped" : "sequential");
    RenderJob job = small_job({});
    job.benchmark = true;
    job.frames = 4;
    job.warmup_frames = 1;
    job.overlap = overlap;
    std::ostringstream log;
    const RenderReport report = render_frames(job, log);
    EXPECT_EQ(report.overlapped, overlap);
    EXPECT_EQ(report.frames_written, 0);
    EXPECT_GT(report.simulate.median, 0.0);
    EXPECT_GT(report.render.median, 0.0);
    EXPECT_EQ(report.readback.median, 0.0) << "nothing is written, so nothing is read back";
    // FPS is the wall-clock frame interval; the parts' sum is a diagnostic. Sequential frames draw to
    // their end (glFinish) inside the interval. Overlapped ones start the next step before they draw and
    // only enqueue the drawing: a frame holds neither whole (OverlappedFramesAreTheSequentialOnes).
    if (!overlap) EXPECT_GE(report.interval.median, report.render.median);
    EXPECT_GE(report.interval.p95, report.interval.median);
    EXPECT_NEAR(report.fps(), 1000.0 / report.interval.median, 1e-9);
    for (const char* part : {"simulate", "vertices", "render", "readback", "wall-clock frame interval", "diagnostic"})
      EXPECT_NE(log.str().find(part), std::string::npos) << part;
    EXPECT_NE(log.str().find(overlap ? "frames overlapped" : "frames sequential"), std::string::npos) << log.str();
  }
}

// Overlapped, a frame's steps start right after its vertices are written, and the camera follows the
// bodies from the sample a frame old: the written frames are the sequential run's, byte for byte.
TEST(RenderJob, OverlappedFramesAreTheSequentialOnes) {
  const fs::path root = fs::temp_directory_path() / ("nbl_render_overlap_" + std::to_string(getpid()));
  std::vector<Image> frames[2];
  fs::create_directories(root);
  for (const bool overlap : {false, true}) {
    const fs::path dir = root / (overlap ? "overlapped" : "sequential");
    RenderJob job = small_job(dir);
    job.settings.algorithm = Algorithm::allpairs;
    job.frames = 8;
    job.orbit_deg_per_frame = 2;
    job.overlap = overlap;
    std::ostringstream log;
    const RenderReport report = render_frames(job, log);
    ASSERT_EQ(report.frames_written, 8) << log.str();
    ASSERT_EQ(report.overlapped, overlap);
    for (int f = 0; f < 8; ++f) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05d.png", f);
      frames[overlap].push_back(testing::load_png(dir / name));
    }
  }
  for (int f = 0; f < 8; ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    EXPECT_EQ(frames[0][f].width, frames[1][f].width);
    EXPECT_TRUE(frames[0][f].rgba == frames[1][f].rgba);
  }
  EXPECT_FALSE(frames[0][1].rgba == frames[0][7].rgba) << "the frames move: the check compares something";
  fs::remove_all(root);
}

TEST(RenderJob, BadJobsAreRefusedBeforeAnythingRuns) {
  RenderJob job = small_job("frames");
  job.frames = 0;
  EXPECT_THROW(validate(job), InputError);
  job = small_job("");
  try {
    validate(job);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--out"), std::string::npos);
  }
  job = small_job("frames");
  job.zoom = 0;
  EXPECT_THROW(validate(job), InputError);
}

TEST(RenderJob, AVideoWithoutFfmpegSaysHowToGetFrames) {
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  try {
    validate(small_job("run.mp4"));
    ADD_FAILURE() << "no ffmpeg on PATH";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ffmpeg"), std::string::npos);
    EXPECT_NE(msg.find("--out frames/"), std::string::npos);
  }
  setenv("PATH", path.c_str(), 1);
}

// ---- recording through the live recorder (pixel-buffer ring, encoder thread) ----

TEST(RenderJob, RecordsRawFramesThroughTheRingInOrder) {
  const fs::path raw = fs::temp_directory_path() / ("nbl_record_" + std::to_string(getpid()) + ".rgba");
  RenderJob job = small_job({});
  job.benchmark = true;
  job.frames = 7;
  job.warmup_frames = 1;
  job.record.target = raw.string();
  std::ostringstream log;
  const RenderReport report = render_frames(job, log);
  EXPECT_EQ(report.recorded.captured + report.recorded.dropped, 7);
  EXPECT_EQ(report.recorded.written, 7) << "a dropped frame is written again as the one before it";
  ASSERT_TRUE(fs::exists(raw)) << log.str();
  EXPECT_EQ(fs::file_size(raw), 7u * 320u * 180u * 4u);
  EXPECT_GT(report.capture.median, 0.0);
  EXPECT_NE(log.str().find("capture"), std::string::npos) << log.str();
  // The last frame of the file is the picture (top row first): bodies in the middle, dark corners.
  std::ifstream in(raw, std::ios::binary);
  in.seekg(6 * 320 * 180 * 4);
  Image last;
  last.width = 320;
  last.height = 180;
  last.rgba.resize(320 * 180 * 4);
  in.read(reinterpret_cast<char*>(last.rgba.data()), static_cast<std::streamsize>(last.rgba.size()));
  EXPECT_GT(testing::fraction(last, 140, 70, 180, 110, [](auto p) { return testing::luma(p) > 60; }), 0.1);
  EXPECT_EQ(testing::fraction(last, 0, 0, 20, 20, [](auto p) { return testing::luma(p) > 30; }), 0.0);
  fs::remove(raw);
}

TEST(RenderJob, TheNullSinkTimesTheCaptureAloneAndWritesNothing) {
  RenderJob job = small_job({});
  job.benchmark = true;
  job.frames = 5;
  job.record.target = "null";
  std::ostringstream log;
  const RenderReport report = render_frames(job, log);
  EXPECT_EQ(report.recorded.written, 5);
  EXPECT_NE(log.str().find("nowhere"), std::string::npos) << log.str();
}

TEST(RenderJob, RecordsAPlayableVideoWhenFfmpegIsInstalled) {
  if (!find_program("ffmpeg") || !find_program("ffprobe"))
    GTEST_SKIP() << "ffmpeg is not installed (scripts/setup.sh installs it)";
  const fs::path video = fs::temp_directory_path() / ("nbl_record_" + std::to_string(getpid()) + ".mp4");
  RenderJob job = small_job({});
  job.benchmark = true;
  job.frames = 12;
  job.record.target = video.string();
  std::ostringstream log;
  render_frames(job, log);
  ASSERT_TRUE(fs::exists(video)) << log.str();
  // ffprobe counts the frames it decodes: the file plays.
  const std::string command =
      "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height "
      "-of csv=p=0 '" +
      video.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_TRUE(pipe);
  char line[128] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  ASSERT_TRUE(read);
  EXPECT_EQ(std::string(line).substr(0, std::string(line).find_last_not_of("\r\n") + 1), "320,180,12");
  fs::remove(video);
}

TEST(RenderJob, RecordingAVideoWithoutFfmpegIsRefusedWithWhatToDoInstead) {
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  RenderJob job = small_job({});
  job.benchmark = true;
  job.record.target = "lecture.mp4";
  try {
    validate(job);
    ADD_FAILURE() << "no ffmpeg on PATH";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ffmpeg is not on PATH"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--record lecture.rgba"), std::string::npos) << msg;
  }
  setenv("PATH", path.c_str(), 1);
  job.record.target = "lecture.txt";
  EXPECT_THROW(validate(job), InputError);
}

// ---- the image check on the default collision ----

TEST(RenderJob, MidCollisionAt65kHoldsDetail) {
  // The shipped bookmark "tails" (65,536 bodies, t = 6: the two disks have passed and thrown out their
  // tails), rendered as `render --check-picture` does, passes the image check.
  RenderJob job;
  job.settings.backend = BackendKind::cpu;
  job.load_file = std::string(NBL_SOURCE_DIR) + "/assets/bookmarks/collision-tails.tipsy.gz";
  job.frames = 3;
  job.size = {960, 540};
  job.benchmark = true;
  job.check_picture = true;
  if (const char* dir = std::getenv("NBL_TEST_IMAGES"))
    job.out = (fs::path(dir) / "mid-collision-65k").string(), job.overwrite = true;
  std::ostringstream log;
  const RenderReport report = render_frames(job, log);
  ASSERT_TRUE(report.picture);
  EXPECT_TRUE(passes(*report.picture)) << describe(*report.picture);
  std::printf("%s\n", describe(*report.picture).c_str());
}

}  // namespace
}  // namespace nbl
