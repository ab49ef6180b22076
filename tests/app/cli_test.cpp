// The program as a user runs it: exit codes and messages of the window and `render` commands.
#include <cstdlib>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <fstream>
#include <vector>

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

// Issue 17, items 6, 7, 8 and 14: a settings file the program cannot use is bad input (exit code 2),
// with a message that names the file and the key and says what was wrong.
TEST_F(Cli, BadSettingsFilesAreBadInputNamingTheFileAndKey) {
  struct Case {
    const char* json;
    std::vector<const char*> words;
  };
  const std::vector<Case> cases = {
      {R"({"theta": 1e400})", {"'theta'", "1e400"}},
      {R"({"steps_per_frame": 4294967297})", {"'steps_per_frame'", "4294967297", "[1, 1000]"}},
      {R"({"toggles": {"block_size": 4294967552}})", {"'toggles.block_size'", "4294967552"}},
      {R"({"view": {"octree_depth": 4294967297}})", {"'view.octree_depth'", "4294967297", "[0, 32]"}},
      {R"({"view": {"octree_depth": 40}})", {"'view.octree_depth'", "(got 40)"}},
      {R"({"unroll": 8})", {"'unroll'", "\"toggles\""}},
  };
  const fs::path file = dir_ / "settings.json";
  for (const Case& c : cases) {
    std::ofstream(file) << c.json;
    const Outcome r = run("bench --backend cpu -n 64 --steps 1 --settings " + file.string());
    EXPECT_EQ(r.code, 2) << c.json << "\n" << r.output;
    EXPECT_NE(r.output.find(file.string()), std::string::npos) << c.json << "\n" << r.output;
    for (const char* word : c.words) EXPECT_NE(r.output.find(word), std::string::npos) << c.json << ": " << word << "\n" << r.output;
  }
  const Outcome folder = run("bench --backend cpu -n 64 --steps 1 --settings " + dir_.string());
  EXPECT_EQ(folder.code, 2) << folder.output;
  EXPECT_NE(folder.output.find("directory"), std::string::npos) << folder.output;
  EXPECT_EQ(folder.output.find("JSON"), std::string::npos) << folder.output;
}

// Issue 17, item 11: the command line refuses seeds outside 0 .. 2^64 - 1 as the JSON does.
TEST_F(Cli, SeedsOutsideSixtyFourBitsAreRefused) {
  for (const char* seed : {"-1", "18446744073709551616"}) {
    const Outcome r = run(std::string("bench --backend cpu -n 64 --steps 1 --seed ") + seed);
    EXPECT_EQ(r.code, 2) << seed << "\n" << r.output;
    EXPECT_NE(r.output.find("--seed"), std::string::npos) << r.output;
  }
  EXPECT_EQ(run("bench --backend cpu -n 64 --steps 1 --warmup 0 --error-sample 0 --seed 18446744073709551615").code, 0);
}

// Issue 17, item 14: a toggle's error names its option in the dashed form, however it was typed.
TEST_F(Cli, ToggleErrorsNameTheDashedOption) {
  for (const char* option : {"--block_size", "--block-size"}) {
    const Outcome r = run(std::string("bench --backend cpu -n 64 --steps 1 ") + option + " 4294967552");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--block-size must lie in [32, 1024]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("(got 4294967552)"), std::string::npos) << r.output;
  }
}

// Issue 17, item 14: --help shows integer toggles as INT and states what -n defaults to; a run without
// -n says which N it chose and why.
TEST_F(Cli, TheDefaultBodyCountIsStated) {
  const Outcome help = run("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.output.find("--unroll INT"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("1048576 for Barnes-Hut"), std::string::npos) << help.output;
  const Outcome r = run("bench --backend cpu --algo allpairs --scene plummer --steps 1 --warmup 0 --error-sample 0");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("bodies: 4,096, the default for all-pairs on the CPU"), std::string::npos) << r.output;
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
