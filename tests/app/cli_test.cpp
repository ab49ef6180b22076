// The program as a user runs it: exit codes and messages of the window and `render` commands.
#include <cstdlib>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <fstream>

#include "png_file.hpp"
#include "sim/resources.hpp"
#include "xvfb_server.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string output;  // stdout and stderr
};

Outcome run(const std::string& arguments, const std::string& environment = "") {
  Outcome r;
  // $NBODYLAB_BIN points at a copied binary (the GPU bundle); by default, the one this build made.
  const char* override_binary = std::getenv("NBODYLAB_BIN");
  const std::string binary = override_binary && *override_binary ? override_binary : NBL_EXECUTABLE;
  const std::string command = environment + " " + binary + " " + arguments + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, got);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_cli_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Cli, NoDisplaySuggestsRender) {
  const Outcome r = run("--backend cpu -n 1024 --frames 1", "env -u DISPLAY -u WAYLAND_DISPLAY");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("no display"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nbodylab render"), std::string::npos) << r.output;
}

TEST_F(Cli, BadSizeIsBadInput) {
  for (const char* size : {"10x10", "1920", "widexhigh"}) {
    const Outcome r = run(std::string("render --size ") + size + " --out " + (dir_ / "f").string());
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--size"), std::string::npos) << r.output;
  }
  const Outcome window = run("--size 5x5", "env DISPLAY=:12345");
  EXPECT_EQ(window.code, 2) << window.output;
}

TEST_F(Cli, RenderNeedsAnOutputAndFrames) {
  Outcome r = run("render --backend cpu -n 1024");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--out"), std::string::npos) << r.output;
  r = run("render --frames 0 --out " + (dir_ / "f").string());
  EXPECT_EQ(r.code, 2) << r.output;
  r = run("render --color purple --out " + (dir_ / "f").string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--color"), std::string::npos) << r.output;
}

TEST_F(Cli, VideoWithoutFfmpegSaysSo) {
  const Outcome r = run("render --frames 1 --out " + (dir_ / "a.mp4").string(), "env PATH=/nonexistent");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("ffmpeg"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "a.mp4"));
}

TEST_F(Cli, RenderWritesFrames) {
  const fs::path out = dir_ / "frames";
  const Outcome r = run("render --scene galaxy -n 2048 --backend cpu --frames 2 --size 256x144 --out " + out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out / "frame_00000.png"));
  EXPECT_TRUE(fs::exists(out / "frame_00001.png"));
}

TEST_F(Cli, ABrokenShaderNamesTheFileAndQuotesTheLog) {
  // A copy of the resources with one shader broken, chosen through NBODYLAB_ROOT.
  const fs::path root = dir_ / "root";
  fs::create_directories(root);
  for (const char* folder : {"shaders", "assets", "physics"})
    fs::copy(resource_root() / folder, root / folder, fs::copy_options::recursive);
  std::ofstream(root / "shaders" / "bodies.frag") << "#version 450 core\nvoid main() { this is not glsl; }\n";
  const Outcome r = run("render --backend cpu -n 1024 --frames 1 --size 64x64 --out " + (dir_ / "f").string(),
                        "env NBODYLAB_ROOT=" + root.string());
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find((root / "shaders" / "bodies.frag").string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("does not compile"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("error"), std::string::npos) << "the driver's log should follow: " << r.output;
}

TEST_F(Cli, WindowRunsFramesAndSavesAScreenshot) {
  testing::XvfbServer xvfb(1024, 640);
  if (!testing::XvfbServer::installed()) GTEST_SKIP() << xvfb.problem();
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  const fs::path shot = dir_ / "window.png";
  const Outcome r = run("--scene galaxy -n 2048 --backend cpu --frames 4 --size 1024x640 --no-vsync --screenshot " + shot.string(),
                    "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(r.code, 0) << r.output;
  const Image image = testing::load_png(shot);
  EXPECT_EQ(image.width, 1024);
  EXPECT_EQ(image.height, 640);
}

}  // namespace
}  // namespace nbl
