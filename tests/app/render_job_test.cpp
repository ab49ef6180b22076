// `nbodylab render` in-process: the job is checked before anything runs, and a small job writes
// numbered PNGs with the bodies in them.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "app/headless_render.hpp"
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
  for (const char* name : {"frame_00000.png", "frame_00001.png", "frame_00002.png"}) EXPECT_TRUE(fs::exists(dir / name)) << name;
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
  RenderJob job = small_job({});
  job.benchmark = true;
  job.frames = 4;
  job.warmup_frames = 1;
  std::ostringstream log;
  const RenderReport report = render_frames(job, log);
  EXPECT_EQ(report.frames_written, 0);
  EXPECT_GT(report.simulate.median, 0.0);
  EXPECT_GT(report.render.median, 0.0);
  EXPECT_EQ(report.readback.median, 0.0) << "nothing is written, so nothing is read back";
  // FPS is the wall-clock frame interval, which holds every part; the parts' sum is a diagnostic.
  EXPECT_GE(report.interval.median, report.render.median);
  EXPECT_GE(report.interval.p95, report.interval.median);
  EXPECT_NEAR(report.fps(), 1000.0 / report.interval.median, 1e-9);
  for (const char* part : {"simulate", "vertices", "render", "readback", "wall-clock frame interval", "diagnostic"})
    EXPECT_NE(log.str().find(part), std::string::npos) << part;
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

}  // namespace
}  // namespace nbl
