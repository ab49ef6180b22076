// The program as a user runs it: exit codes and messages of the window, `bench`, `render` and `kernels`,
// what they write (and what they refuse to write), and how they run without NVRTC.
#include <cstdlib>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/core/bookmarks.hpp"
#include "app/core/simulation.hpp"
#include "png_file.hpp"
#include "sim/resources.hpp"
#include "sim/snapshot.hpp"
#include "sim/tipsy.hpp"
#include "tests/sim/hdf5_fixture.hpp"
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

// A settings file the program cannot use is bad input (exit code 2),
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
    for (const char* word : c.words)
      EXPECT_NE(r.output.find(word), std::string::npos) << c.json << ": " << word << "\n" << r.output;
  }
  const Outcome folder = run("bench --backend cpu -n 64 --steps 1 --settings " + dir_.string());
  EXPECT_EQ(folder.code, 2) << folder.output;
  EXPECT_NE(folder.output.find("directory"), std::string::npos) << folder.output;
  EXPECT_EQ(folder.output.find("JSON"), std::string::npos) << folder.output;
}

// The command line refuses seeds outside 0 .. 2^64 - 1 as the JSON does.
TEST_F(Cli, SeedsOutsideSixtyFourBitsAreRefused) {
  for (const char* seed : {"-1", "18446744073709551616"}) {
    const Outcome r = run(std::string("bench --backend cpu -n 64 --steps 1 --seed ") + seed);
    EXPECT_EQ(r.code, 2) << seed << "\n" << r.output;
    EXPECT_NE(r.output.find("--seed"), std::string::npos) << r.output;
  }
  EXPECT_EQ(run("bench --backend cpu -n 64 --steps 1 --warmup 0 --error-sample 0 --seed 18446744073709551615").code, 0);
}

// A toggle's error names its option in the dashed form, however it was typed.
TEST_F(Cli, ToggleErrorsNameTheDashedOption) {
  for (const char* option : {"--block_size", "--block-size"}) {
    const Outcome r = run(std::string("bench --backend cpu -n 64 --steps 1 ") + option + " 4294967552");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find("--block-size must lie in [32, 1024]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("(got 4294967552)"), std::string::npos) << r.output;
  }
}

// A toggle the user sets that changes nothing says so, with the switchboard's reason,
// and the run goes on; a toggle that does change the code says nothing.
TEST_F(Cli, InertTogglesWarnWithTheirReason) {
  const std::string base = "bench --backend gpu -n 64 --steps 1 --warmup 0 --error-sample 0 ";
  struct Case {
    std::string options, option, why;
  };
  // --backend gpu without a GPU fails after resolve: the warning is printed first either way.
  for (const Case& c :
       {Case{"--algo barneshut --bh-build morton --bh-waitfree off", "--bh-waitfree", "Morton build"},
        Case{"--algo barneshut --bh-build insertion --bh-leaf-capacity 4", "--bh-leaf-capacity", "insertion build"},
        Case{"--algo allpairs --precision fp64 --fast-math ftz", "--fast-math", "single-precision"},
        Case{"--algo allpairs --fast-math fast_math --rsqrt off", "--rsqrt", "rsqrt.approx"}}) {
    const Outcome r = run(base + c.options);
    EXPECT_NE(r.output.find("warning: " + c.option + " changes nothing here"), std::string::npos)
        << c.options << r.output;
    EXPECT_NE(r.output.find(c.why), std::string::npos) << c.options << r.output;
  }
  const Outcome cpu = run("bench --backend cpu -n 64 --steps 1 --warmup 0 --error-sample 0 --unroll 8");
  EXPECT_EQ(cpu.code, 0) << cpu.output;
  EXPECT_NE(cpu.output.find("--unroll changes nothing here"), std::string::npos) << cpu.output;
  const Outcome live = run(base + "--algo barneshut --bh-build insertion --bh-waitfree off");
  EXPECT_EQ(live.output.find("changes nothing"), std::string::npos) << live.output;
}

// --help shows integer toggles as INT and states what -n defaults to; a run without
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
  const Outcome r =
      run("--scene galaxy -n 2048 --backend cpu --frames 4 --size 1024x640 --no-vsync --screenshot " + shot.string(),
          "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(r.code, 0) << r.output;
  const Image image = testing::load_png(shot);
  EXPECT_EQ(image.width, 1024);
  EXPECT_EQ(image.height, 640);
}

// ---- Outputs: every one is checked before any work starts, and says why it cannot be written ------------

bool has(const Outcome& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// A quantity's value from the summary table `bench` prints ("dt   3.068e-03").
std::string summary_value(const std::string& output, const std::string& quantity) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(quantity, 0) == 0) {
      const auto end = line.find_last_not_of(' ');
      const auto start = line.find_last_of(' ', end);
      return line.substr(start + 1, end - start);
    }
  return "";
}

TEST_F(Cli, WindowScreenshotThatCannotBeWrittenIsRefusedBeforeTheWindowOpens) {
  testing::XvfbServer xvfb(640, 400);
  if (!testing::XvfbServer::installed()) GTEST_SKIP() << xvfb.problem();
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  fs::create_directories(dir_ / "adir");
  for (const std::string& shot :
       {std::string("/proc/x.png"), std::string("/nonexistent/x.png"), (dir_ / "adir").string()}) {
    const Outcome r =
        run("--backend cpu -n 1024 --frames 3 --size 640x400 --screenshot " + shot, "env DISPLAY=" + xvfb.display());
    EXPECT_EQ(r.code, 2) << shot << ": " << r.output;
    EXPECT_TRUE(has(r, "--screenshot " + shot)) << r.output;
  }
}

TEST_F(Cli, BenchOutputThatIsAFolderSaysSoNotSuccess) {
  fs::create_directories(dir_ / "adir");
  for (const char* option : {"--save", "--json", "--csv"}) {
    const Outcome r = run("bench --backend cpu -n 1024 --steps 1 --error-sample 0 " + std::string(option) + " " +
                          (dir_ / "adir").string());
    EXPECT_EQ(r.code, 2) << option << ": " << r.output;
    EXPECT_TRUE(has(r, "folder")) << r.output;
    EXPECT_FALSE(has(r, "Success")) << r.output;
    EXPECT_FALSE(has(r, "Per stage")) << "nothing should run: " << r.output;
  }
}

TEST_F(Cli, EveryOutputPathIsCheckedBeforeAnyWorkStarts) {
  const std::string bad = "/nonexistent_dir/x";
  const std::vector<std::string> commands = {
      "bench --backend cpu -n 1024 --steps 20 --save " + bad + ".tipsy",
      "bench --backend cpu -n 1024 --steps 20 --json " + bad + ".json",
      "bench --backend cpu -n 1024 --steps 20 --csv " + bad + ".csv",
      "bench sweep --backend cpu -n 1024 --json " + bad + ".json",
      "render --backend cpu -n 1024 --frames 2 --size 64x64 --out " + bad,
      "render --backend cpu -n 1024 --frames 2 --size 64x64 --out " + bad + ".mp4",
      "render --backend cpu -n 1024 --frames 2 --size 64x64 --benchmark --report " + bad + ".json",
      "render --backend cpu -n 1024 --frames 2 --size 64x64 --out " + (dir_ / "f").string() + " --save " + bad +
          ".tipsy",
      "kernels --list --json " + bad + ".json",
      "kernels --export " + bad + "/kernels",
  };
  for (const auto& command : commands) {
    const Outcome r = run(command);
    EXPECT_EQ(r.code, 2) << command << ": " << r.output;
    EXPECT_TRUE(has(r, "/nonexistent_dir")) << command << ": " << r.output;
    EXPECT_TRUE(has(r, "does not exist")) << command << ": " << r.output;
    EXPECT_FALSE(has(r, "Per stage") || has(r, "wrote") || has(r, "Generated code"))
        << "ran anyway: " << command << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ / "f")) << "render must not start before its --save is known to work";
}

TEST_F(Cli, BenchModesRefuseLoadAndSaveTheyWouldIgnore) {
  const Outcome r = run("bench scaling --backend cpu --save " + (dir_ / "x.tipsy").string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, "--save")) << r.output;
}

TEST_F(Cli, BenchGroupsNeedsTheGpuBackendAndSaysSo) {
  // The group walk replay reads the tree the GPU built: on the CPU backend it is bad input, named.
  const Outcome cpu = run("bench groups --backend cpu -n 1000 --steps 1 --warmup 0");
  EXPECT_EQ(cpu.code, 2) << cpu.output;
  EXPECT_TRUE(has(cpu, "bench groups needs the GPU backend")) << cpu.output;
  const Outcome top = run("bench groups --backend gpu --top 0");
  EXPECT_EQ(top.code, 2) << top.output;
  EXPECT_TRUE(has(top, "--top")) << top.output;
}

TEST_F(Cli, WarmupStepsAreStepsOfTheSavedStateAndTheSummarySaysHowMany) {
  const fs::path file = dir_ / "kepler.tipsy";
  const Outcome help = run("bench --help");
  EXPECT_TRUE(std::regex_search(help.output, std::regex(R"(--warmup[^\n]*=1)")))
      << "the default should show: " << help.output;
  const Outcome r =
      run("bench --backend cpu --scene kepler --steps 3 --warmup 2 --error-sample 0 --save " + file.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "5 (2 warm-up + 3 measured)")) << r.output;
  // dt as printed has 4 digits: 1e-3 relative is far inside one step of 5 (20%).
  const double dt = std::stod(summary_value(r.output, "dt"));
  const TipsySnapshot saved = read_tipsy(file);
  EXPECT_NEAR(saved.time, 5 * dt, 5 * dt * 1e-3) << "the saved time is that of the state after every step it took";
  EXPECT_NEAR(std::stod(summary_value(r.output, "simulated time at end")), saved.time, saved.time * 1e-3);

  const Outcome exact =
      run("bench --backend cpu --scene kepler --steps 4 --warmup 0 --error-sample 0 --save " + file.string());
  ASSERT_EQ(exact.code, 0) << exact.output;
  EXPECT_NEAR(read_tipsy(file).time, 4 * dt, 4 * dt * 1e-3) << "--warmup 0 --steps N advances exactly N";
}

TEST_F(Cli, BenchSaveWritesTheTimeAndSofteningOfTheRun) {
  const fs::path file = dir_ / "bench.tipsy";
  const Outcome r =
      run("bench --backend cpu --scene plummer -n 1024 --steps 2 --error-sample 0 --save " + file.string());
  ASSERT_EQ(r.code, 0) << r.output;
  const double dt = std::stod(summary_value(r.output, "dt"));
  const double eps = std::stod(summary_value(r.output, "softening"));
  ASSERT_GT(eps, 0);
  EXPECT_NEAR(read_tipsy(file).time, 3 * dt, 3 * dt * 1e-3);
  // Every dark-matter record's eps field (the 8th of 9 big-endian floats, after the 32-byte header).
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_EQ(bytes.size(), 32u + 1024u * 36u);
  for (std::size_t body : {std::size_t{0}, std::size_t{511}, std::size_t{1023}}) {
    std::uint32_t raw;
    std::memcpy(&raw, bytes.data() + 32 + body * 36 + 7 * 4, 4);
    EXPECT_NEAR(std::bit_cast<float>(__builtin_bswap32(raw)), eps, eps * 1e-3) << "body " << body;
  }
}

TEST_F(Cli, SummaryNamesTheLoadedFileNotTheDefaultScene) {
  const fs::path file = dir_ / "start.tipsy";
  ASSERT_EQ(run("bench --backend cpu --scene plummer -n 1024 --steps 1 --error-sample 0 --save " + file.string()).code,
            0);
  const Outcome r = run("bench --backend cpu --load " + file.string() + " --steps 1 --error-sample 0");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(summary_value(r.output, "scene"), file.string()) << r.output;
  EXPECT_TRUE(has(r, "loaded from " + file.string())) << r.output;
  EXPECT_FALSE(has(r, "collision")) << r.output;
  const Outcome render =
      run("render --backend cpu --load " + file.string() + " --frames 1 --size 64x64 --out " + (dir_ / "f").string());
  ASSERT_EQ(render.code, 0) << render.output;
  EXPECT_TRUE(has(render, file.string())) << render.output;
  EXPECT_FALSE(has(render, "collision")) << render.output;
}

TEST_F(Cli, AnUnknownVideoExtensionIsAnErrorListingTheKnownOnes) {
  const fs::path out = dir_ / "v.avi";
  const Outcome r = run("render --backend cpu -n 1024 --frames 1 --size 64x64 --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.output;
  for (const char* ext : {".avi", ".mp4", ".mkv", ".webm", ".mov"}) EXPECT_TRUE(has(r, ext)) << ext << ": " << r.output;
  EXPECT_FALSE(fs::exists(out)) << "no folder of PNGs named v.avi";
  // A folder whose name has a dot: end it with '/'.
  const Outcome folder = run("render --backend cpu -n 1024 --frames 1 --size 64x64 --out " + out.string() + "/");
  ASSERT_EQ(folder.code, 0) << folder.output;
  EXPECT_TRUE(fs::exists(out / "frame_00000.png"));
}

TEST_F(Cli, RenderRefusesAFolderWithFilesUnlessOverwriteThenReplacesOnlyItsFrames) {
  const fs::path out = dir_ / "frames";
  const std::string render = "render --backend cpu -n 1024 --size 64x64 --out " + out.string();
  ASSERT_EQ(run(render + " --frames 3").code, 0);
  std::ofstream(out / "notes.txt") << "mine";
  const Outcome refused = run(render + " --frames 2");
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_TRUE(has(refused, "--overwrite")) << refused.output;
  EXPECT_TRUE(fs::exists(out / "frame_00002.png")) << "a refused render touches nothing";

  const Outcome replaced = run(render + " --frames 2 --overwrite");
  ASSERT_EQ(replaced.code, 0) << replaced.output;
  EXPECT_TRUE(fs::exists(out / "frame_00000.png"));
  EXPECT_TRUE(fs::exists(out / "frame_00001.png"));
  EXPECT_FALSE(fs::exists(out / "frame_00002.png")) << "the longer earlier run's frames must go";
  EXPECT_TRUE(fs::exists(out / "notes.txt")) << "files that are not frames stay";
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos)
        << "staging left behind: " << entry.path();
}

TEST_F(Cli, ASaveAfterAKilledOneRemovesItsTemporaryFile) {
  const fs::path file = dir_ / "prev.tipsy";
  ASSERT_EQ(run("bench --backend cpu -n 1024 --steps 1 --error-sample 0 --save " + file.string()).code, 0);
  // What a save killed mid-write leaves: its temporary file, named after a process that is gone.
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  const fs::path stale = dir_ / (".prev.tipsy.tmp" + std::to_string(child));
  std::ofstream(stale) << "half a snapshot";
  const Outcome r = run("bench --backend cpu -n 1024 --steps 1 --error-sample 0 --save " + file.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(read_tipsy(file).bodies.size(), 1024u);
}

TEST_F(Cli, CrossoverReportsTheSpreadOfEveryPointAndWhichAllPairsVariantWon) {
  const fs::path json = dir_ / "crossover.json";
  const Outcome r =
      run("bench crossover --backend cpu --scene plummer --max-n 2048 --steps 5 --warmup 1 --json " + json.string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(json);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const char* column :
       {"allpairs_variant", "allpairs_p10_ms", "allpairs_p90_ms", "barneshut_p10_ms", "barneshut_p90_ms", "separated"})
    EXPECT_NE(text.find(column), std::string::npos) << column << " missing: " << text;
  EXPECT_TRUE(has(r, "5 measured steps per point")) << r.output;
  EXPECT_TRUE(has(r, "--bodies-per-thread 1")) << r.output;
  // Without --steps it measures enough steps for a spread (30), and says so in its help.
  EXPECT_TRUE(has(run("bench crossover --help"), "30 steps")) << run("bench crossover --help").output;
}

// `bench moments` runs each theta with monopole, quadrupole and adaptive cells on the backend
// the command names, and says which choice reaches the accuracy target fastest.
TEST_F(Cli, MomentsComparesBothOrdersAtEachThetaAndNamesTheFastestThatMeetsTheTarget) {
  const fs::path json = dir_ / "moments.json";
  const Outcome r =
      run("bench moments --backend cpu --scene plummer -n 3000 --steps 2 --warmup 0 --thetas 0.5,0.8 "
          "--json " +
          json.string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream in(json);
  const nlohmann::json tables = nlohmann::json::parse(in);
  ASSERT_EQ(tables.size(), 1u);
  const auto& rows = tables[0]["rows"];
  ASSERT_EQ(rows.size(), 6u) << tables.dump();
  for (const char* column : {"theta", "moments", "ms", "force_ms", "interactions", "error_p99", "error_max",
                             "error_rms_p99", "error_rms_max"})
    EXPECT_TRUE(rows[0].contains(column)) << column << " missing: " << tables.dump();
  for (std::size_t k = 0; k < 6; k += 3) {
    const auto& monopole = rows[k];
    const auto& quadrupole = rows[k + 1];
    const auto& adaptive = rows[k + 2];
    EXPECT_EQ(monopole["moments"], "monopole");
    EXPECT_EQ(quadrupole["moments"], "quadrupole");
    EXPECT_EQ(adaptive["moments"], "adaptive");
    EXPECT_EQ(monopole["theta"], quadrupole["theta"]);
    // The same walk at one theta; the quadrupole's far cells are the more accurate, the adaptive choice's
    // in between.
    EXPECT_EQ(monopole["interactions"], quadrupole["interactions"]);
    EXPECT_EQ(monopole["interactions"], adaptive["interactions"]);
    EXPECT_LT(quadrupole["error_rms_p99"].get<double>(), monopole["error_rms_p99"].get<double>()) << tables.dump();
    EXPECT_LT(adaptive["error_rms_p99"].get<double>(), monopole["error_rms_p99"].get<double>()) << tables.dump();
  }
  EXPECT_TRUE(has(r, "target: per-body force error p99 <= 0.002 and max <= 0.02")) << r.output;
  EXPECT_TRUE(has(r, "; monopole: ")) << r.output;
  EXPECT_TRUE(has(r, "; quadrupole: ")) << r.output;
  EXPECT_TRUE(has(r, "; adaptive: ")) << r.output;
  EXPECT_FALSE(has(r, "read bh_moments")) << r.output;
  EXPECT_TRUE(has(run("bench --help"), "moments")) << run("bench --help").output;
  const Outcome bad = run("bench moments --backend cpu -n 64 --steps 1 --thetas 0.5,3");
  EXPECT_EQ(bad.code, 2) << bad.output;
  EXPECT_TRUE(has(bad, "theta")) << bad.output;
}

// The CPU Barnes-Hut backend reads bh_moments: no inert-toggle warning for it there, and the
// summary's force error changes with it.
TEST_F(Cli, CellMomentsIsLiveOnTheCpuBackend) {
  const std::string base =
      "bench --backend cpu --algo barneshut --scene plummer -n 2000 --steps 1 --warmup 0 --theta 0.7 ";
  const Outcome monopole = run(base + "--bh-moments monopole");
  const Outcome quadrupole = run(base + "--bh-moments quadrupole");
  ASSERT_EQ(quadrupole.code, 0) << quadrupole.output;
  EXPECT_FALSE(has(quadrupole, "changes nothing")) << quadrupole.output;
  const double p99_monopole = std::stod(summary_value(monopole.output, "force error / RMS accel: 99th percentile"));
  const double p99_quadrupole = std::stod(summary_value(quadrupole.output, "force error / RMS accel: 99th percentile"));
  EXPECT_LT(p99_quadrupole, p99_monopole) << monopole.output << quadrupole.output;
}

// The CPU Barnes-Hut backend reads bh_opening and bh_tolerance too: no inert-toggle warning, and the
// relative test gives a different error from the angle's.
TEST_F(Cli, RelativeOpeningIsLiveOnTheCpuBackend) {
  const std::string base = "bench --backend cpu --algo barneshut --scene plummer -n 2000 --steps 1 --warmup 0 ";
  const Outcome angle = run(base + "--bh-opening geometric");
  const Outcome relative = run(base + "--bh-opening relative --bh-tolerance 20");
  ASSERT_EQ(relative.code, 0) << relative.output;
  EXPECT_FALSE(has(relative, "changes nothing")) << relative.output;
  EXPECT_NE(summary_value(angle.output, "interactions per step"),
            summary_value(relative.output, "interactions per step"))
      << angle.output << relative.output;
}

// ---- NVRTC is loaded at run time: without it the program starts, runs on the CPU, and says what is missing --

TEST_F(Cli, WithoutNvrtcTheProgramRunsOnTheCpuAndKernelsSaysWhatIsMissing) {
  const std::string no_nvrtc = "env NBODYLAB_NVRTC=" + (dir_ / "no-such" / "libnvrtc.so.13").string();
  const Outcome info = run("info", no_nvrtc);
  EXPECT_EQ(info.code, 0) << info.output;
  EXPECT_TRUE(has(info, "NVRTC: missing")) << info.output;
  const Outcome bench = run("bench --backend cpu -n 1024 --steps 1 --error-sample 0", no_nvrtc);
  EXPECT_EQ(bench.code, 0) << bench.output;
  EXPECT_TRUE(has(bench, "Per stage")) << bench.output;
  const Outcome list = run("kernels --list", no_nvrtc);
  EXPECT_EQ(list.code, 1) << list.output;
  EXPECT_TRUE(has(list, "NVRTC")) << list.output;
  EXPECT_TRUE(has(list, "libnvrtc.so")) << list.output;
  EXPECT_TRUE(has(list, "cannot be loaded")) << list.output;
  EXPECT_TRUE(has(list, "--backend cpu")) << "it should say what still works: " << list.output;
  // With NVRTC where the loader finds it, the same command lists the variants.
  const Outcome with = run("info");
  EXPECT_TRUE(has(with, "NVRTC 1")) << with.output;
}

TEST_F(Cli, TheBinaryDoesNotNeedNvrtcToStart) {
  const char* override_binary = std::getenv("NBODYLAB_BIN");
  const std::string binary = override_binary && *override_binary ? override_binary : NBL_EXECUTABLE;
  FILE* pipe = popen(("readelf -d " + binary + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string dynamic;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) dynamic.append(buffer, got);
  if (pclose(pipe) != 0) GTEST_SKIP() << "readelf (binutils) is not installed: " << dynamic;
  ASSERT_NE(dynamic.find("(NEEDED)"), std::string::npos) << dynamic;
  EXPECT_EQ(dynamic.find("libnvrtc"), std::string::npos) << "NVRTC must be loaded at run time, not linked:\n"
                                                         << dynamic;
  EXPECT_EQ(dynamic.find("libcuda"), std::string::npos) << dynamic;
}

// ---- Kernels stay editable: export them, compile from the copy, and errors name the copy ----------------------

TEST_F(Cli, ExportedKernelsCompileFromTheCopyAndErrorsNameIt) {
  const fs::path workspace = dir_ / "my-kernels";
  const Outcome exported = run("kernels --export " + workspace.string());
  ASSERT_EQ(exported.code, 0) << exported.output;
  EXPECT_TRUE(fs::exists(workspace / "allpairs_shared.cu"));
  EXPECT_TRUE(fs::exists(workspace / "physics" / "gravity.hpp")) << "NVRTC includes the physics headers";
  const Outcome again = run("kernels --export " + workspace.string());
  EXPECT_EQ(again.code, 2) << "an export never overwrites: " << again.output;

  // The suite's kernel cache: keyed by the exact text of each source and header, so a hit means the copy
  // holds what was compiled before; the edits below miss it and compile from the copy.
  const char* cache_env = std::getenv("NBODYLAB_KERNEL_CACHE");  // the GPU suite's, when it runs this
  const std::string cache =
      std::string("env NBODYLAB_KERNEL_CACHE=") + (cache_env && *cache_env ? cache_env : NBL_TEST_KERNEL_CACHE);
  const Outcome ok = run("kernels --check --quick --kernels " + workspace.string(), cache);
  EXPECT_EQ(ok.code, 0) << ok.output;

  // An edit (here a comment in a physics header, found in the copy) compiles from the copy.
  std::ofstream(workspace / "physics" / "gravity.hpp", std::ios::app)
      << "\n// edited in the workspace " << getpid() << "\n";
  const Outcome edited = run("kernels --ptx --kernels " + workspace.string(), cache);
  EXPECT_EQ(edited.code, 0) << edited.output;
  EXPECT_TRUE(has(edited, ".entry")) << edited.output;

  // Break the exported copy: the error names that file, not the installed one.
  std::ofstream(workspace / "allpairs_shared.cu", std::ios::app) << "\nthis is not CUDA;\n";
  const Outcome broken = run("kernels --ptx --kernels " + workspace.string(), cache);
  EXPECT_EQ(broken.code, 1) << broken.output;
  EXPECT_TRUE(has(broken, (workspace / "allpairs_shared.cu").string())) << broken.output;
  const Outcome check = run("kernels --check --quick --kernels " + workspace.string(), cache);
  EXPECT_EQ(check.code, 1) << check.output;
  EXPECT_TRUE(has(check, (workspace / "allpairs_shared.cu").string())) << check.output;

  const Outcome missing = run("bench --backend cpu -n 1024 --steps 1 --kernels " + (dir_ / "nowhere").string());
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(has(missing, "kernels --export")) << missing.output;
}

// ---- Scripted sessions: one script drives --offscreen, the window and render ----------------------

// The rows of a CSV file (fields in double quotes may hold commas), the header first.
std::vector<std::vector<std::string>> read_csv(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') fields.back() += '"', ++i;
      else if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) fields.emplace_back();
      else fields.back() += c;
    }
    rows.push_back(std::move(fields));
  }
  return rows;
}

// The column named `name` of a trace.
std::size_t column(const std::vector<std::vector<std::string>>& csv, const std::string& name) {
  const auto& header = csv.at(0);
  return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
}

void write_text(const fs::path& file, const std::string& text) { std::ofstream(file) << text; }

// The CI check of the lab's whole frame loop without a display: a scripted --offscreen session on the CPU
// backend changes settings (the panel's way), takes screenshots that show the bodies and the panel, and
// its trace shows that frames kept flowing: one row per frame, no frame missing, steps in every frame,
// and no frame waiting on anything (a generous bound: this counts frames, it does not time them).
TEST_F(Cli, AnOffscreenScriptedSessionChangesSettingsAndKeepsFramesFlowing) {
  const fs::path script = dir_ / "session.json", trace = dir_ / "trace.csv";
  const fs::path before = dir_ / "before.png", after = dir_ / "after.png";
  write_text(script, R"({"description": "CI: settings change while frames flow", "events": [
    {"frame": 2, "action": "screenshot", "file": ")" +
                         before.string() + R"("},
    {"frame": 3, "action": "set", "settings": {"algorithm": "allpairs", "toggles": {"unroll": 8}}},
    {"frame": 5, "action": "set", "settings": {"algorithm": "barneshut", "theta": 0.9, "view": {"color_mode": "speed"}}},
    {"frame": 7, "action": "set", "settings": {"steps_per_frame": 2}},
    {"frame": 9, "action": "screenshot", "file": ")" +
                         after.string() + R"("},
    {"frame": 9, "action": "stats"},
    {"frame": 10, "action": "quit"}
  ]})");
  const Outcome r = run("--offscreen --backend cpu --scene galaxy -n 3072 --size 960x540 --script " + script.string() +
                            " --trace " + trace.string(),
                        "env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "stats: frame 9")) << r.output;
  EXPECT_TRUE(has(r, "trace: 11 frame(s) written to " + trace.string())) << r.output;
  EXPECT_TRUE(has(r, "frame intervals: 10 frame(s) after the first")) << r.output;

  for (const fs::path& shot : {before, after}) {
    SCOPED_TRACE(shot.string());
    const Image image = testing::load_png(shot);
    ASSERT_EQ(image.width, 960);
    ASSERT_EQ(image.height, 540);
    // The scene (left of the 430-pixel panel) has lit bodies around its centre, the panel its colour and text.
    const int scene_width = 960 - 430, cx = scene_width / 2, cy = 270;
    EXPECT_GT(
        testing::fraction(image, cx - 50, cy - 50, cx + 50, cy + 50, [](auto p) { return testing::luma(p) > 60; }),
        0.03);
    EXPECT_GT(testing::fraction(
                  image, scene_width + 10, 0, 950, 540,
                  [](auto p) { return std::abs(p[0] - 18) < 8 && std::abs(p[1] - 19) < 8 && std::abs(p[2] - 26) < 8; }),
              0.3);
    EXPECT_GT(testing::fraction(image, scene_width + 10, 0, 950, 540, [](auto p) { return testing::luma(p) > 160; }),
              0.003);
  }

  const auto csv = read_csv(trace);
  ASSERT_EQ(csv.size(), 12u) << "a header and frames 0 to 10";
  const std::size_t frame = column(csv, "frame"), interval = column(csv, "interval_ms"), steps = column(csv, "steps"),
                    variant = column(csv, "variant"), actions = column(csv, "script");
  ASSERT_LT(actions, csv[0].size());
  // The steps run on their own thread, a job of steps-per-frame steps at a time (two from frame 7 on).
  // A frame starts or queues one job at most, and may take two that finished (the one running at its
  // start and the one queued behind it): the steps never run more than a job ahead of the frames.
  const std::size_t completed = column(csv, "steps_completed");
  int allowed = 0;
  for (std::size_t i = 1; i < csv.size(); ++i) {
    SCOPED_TRACE("frame " + csv[i][frame]);
    ASSERT_EQ(csv[i].size(), csv[0].size());
    EXPECT_EQ(std::stoi(csv[i][frame]), static_cast<int>(i - 1));
    const double ms = std::stod(csv[i][interval]);
    EXPECT_GT(ms, 0);
    EXPECT_LT(ms, 60000) << "a frame stalled for a minute";
    const int per_job = i - 1 >= 7 ? 2 : 1;
    EXPECT_LE(std::stoi(csv[i][steps]), 2 * per_job);
    allowed += per_job;
    EXPECT_LE(std::stoi(csv[i][completed]), allowed) << "the steps ran ahead of the frames";
  }
  EXPECT_GT(std::stoi(csv[11][completed]), 0);
  EXPECT_EQ(csv[4][actions], "set");
  EXPECT_EQ(csv[10][actions], "screenshot+stats");
  // Each switch applies between two jobs: all-pairs from frame 3, Barnes-Hut again from frame 5.
  auto runs = [&](std::size_t from, std::size_t to, const std::string& what) {
    for (std::size_t i = from; i < to; ++i)
      if (csv[i][variant].find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(runs(4, 6, "all-pairs")) << "all-pairs from frame 3";
  EXPECT_TRUE(runs(6, 12, "Barnes-Hut")) << "Barnes-Hut again from frame 5";
}

TEST_F(Cli, ScriptsAreCheckedBeforeAnythingRuns) {
  const fs::path bad = dir_ / "bad.json";
  write_text(bad,
             "{\"events\": [\n  {\"frame\": 3, \"action\": \"stats\"},\n  {\"frame\": 2, \"action\": \"quit\"}\n]}");
  const std::string no_display = "env -u DISPLAY -u WAYLAND_DISPLAY";
  Outcome r =
      run("--backend cpu -n 1024 --script " + bad.string(), no_display);  // refused before the display is asked for
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, bad.string() + ": entry 2 (line 3): frame 2 comes after frame 3")) << r.output;
  r = run("render --backend cpu -n 1024 --frames 2 --out " + (dir_ / "f").string() + " --script " + bad.string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "f"));

  write_text(
      bad,
      R"({"events": [{"frame": 1, "action": "screenshot", "file": "/nonexistent/x.png"}, {"frame": 2, "action": "quit"}]})");
  r = run("--offscreen --backend cpu -n 1024 --script " + bad.string(), no_display);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, "entry 1 (line 1)")) << r.output;

  r = run("--offscreen --backend cpu -n 1024", no_display);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, "--offscreen has no window to close")) << r.output;
  r = run("--offscreen --backend cpu -n 1024 --frames 2 --trace /nonexistent/t.csv", no_display);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, "--trace /nonexistent/t.csv")) << r.output;

  write_text(bad, R"({"events": [{"frame": 1, "action": "key", "key": "h"}]})");
  r = run("render --backend cpu -n 1024 --frames 2 --out " + (dir_ / "f").string() + " --script " + bad.string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(has(r, "render has no panel, keys or mouse")) << r.output;
}

TEST_F(Cli, TheWindowRunsAScriptUnderXvfb) {
  testing::XvfbServer xvfb(800, 500);
  if (!testing::XvfbServer::installed()) GTEST_SKIP() << xvfb.problem();
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  const fs::path script = dir_ / "window.json", trace = dir_ / "window.csv", shot = dir_ / "window.png";
  write_text(script, R"({"events": [
    {"frame": 1, "action": "key", "key": "h"},
    {"frame": 2, "action": "set", "settings": {"toggles": {"bh_sort": false}, "view": {"exposure": 2.0}}},
    {"frame": 4, "action": "screenshot", "file": ")" +
                         shot.string() + R"("},
    {"frame": 5, "action": "quit"}
  ]})");
  const std::string args = "--scene galaxy -n 2048 --backend cpu --size 800x500 --no-vsync --script " + script.string();
  const Outcome r = run(args + " --trace " + trace.string(), "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(r.code, 0) << r.output;
  const Image image = testing::load_png(shot);
  ASSERT_EQ(image.width, 800);
  // H hid the panel: the galaxy sits in the middle of the whole window, and no panel colour is left.
  EXPECT_GT(testing::fraction(image, 350, 200, 450, 300, [](auto p) { return testing::luma(p) > 60; }), 0.03);
  EXPECT_LT(testing::fraction(
                image, 700, 0, 790, 500,
                [](auto p) { return std::abs(p[0] - 18) < 4 && std::abs(p[1] - 19) < 4 && std::abs(p[2] - 26) < 4; }),
            0.05);
  const auto csv = read_csv(trace);
  ASSERT_EQ(csv.size(), 7u) << "frames 0 to 5: the quit ends the window's loop";
  EXPECT_EQ(csv[2][column(csv, "script")], "key");

  // A session that ends first (here --frames) says which entries never ran.
  const Outcome cut = run(args + " --frames 3", "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(cut.code, 0) << cut.output;
  EXPECT_TRUE(has(cut, "2 of 4 script entries did not run: the session ended after 3 frame(s), before entry 3"))
      << cut.output;
}

TEST_F(Cli, RenderRunsAScript) {
  const fs::path script = dir_ / "render.json", trace = dir_ / "render.csv", shot = dir_ / "paused.png",
                 out = dir_ / "frames";
  write_text(script, R"({"events": [
    {"frame": 1, "action": "set", "settings": {"algorithm": "allpairs"}},
    {"frame": 2, "action": "pause"},
    {"frame": 3, "action": "screenshot", "file": ")" +
                         shot.string() + R"("},
    {"frame": 4, "action": "resume"},
    {"frame": 5, "action": "quit"}
  ]})");
  const Outcome r = run("render --scene galaxy -n 2048 --backend cpu --size 256x144 --frames 30 --out " + out.string() +
                        " --script " + script.string() + " --trace " + trace.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "wrote 6 frame(s)")) << r.output;
  EXPECT_TRUE(fs::exists(out / "frame_00005.png"));
  EXPECT_FALSE(fs::exists(out / "frame_00006.png"));
  EXPECT_EQ(testing::load_png(shot).width, 256);
  const auto csv = read_csv(trace);
  ASSERT_EQ(csv.size(), 7u);
  const std::size_t steps = column(csv, "steps"), panel = column(csv, "panel_ms");
  const std::vector<std::string> expected_steps = {"0", "1", "0",
                                                   "0", "1", "1"};  // frame 0 shows the start; paused at 2 and 3
  for (std::size_t i = 1; i < csv.size(); ++i) {
    EXPECT_EQ(csv[i][steps], expected_steps[i - 1]) << "frame " << i - 1;
    EXPECT_EQ(csv[i][panel], "") << "render has no panel";
  }
}

// The tour in a window under Xvfb on the CPU backend: --tour opens it, the Right key and the Page Up key
// walk it (as a presenter's remote does), and the screenshot shows the tour's window, the scene and the
// panel; the trace shows the frames kept flowing through each step's settings change.
TEST_F(Cli, TheTourRunsInAWindowUnderXvfb) {
  testing::XvfbServer xvfb(1280, 720);
  if (!testing::XvfbServer::installed()) GTEST_SKIP() << xvfb.problem();
  ASSERT_TRUE(xvfb.running()) << xvfb.problem();
  const fs::path script = dir_ / "tour.json", trace = dir_ / "tour.csv", shot = dir_ / "tour.png";
  write_text(script, R"({"events": [
    {"frame": 2, "action": "key", "key": "right"},
    {"frame": 4, "action": "key", "key": "right"},
    {"frame": 6, "action": "key", "key": "page_up"},
    {"frame": 12, "action": "screenshot", "file": ")" +
                         shot.string() + R"("},
    {"frame": 12, "action": "stats"},
    {"frame": 13, "action": "quit"}
  ]})");
  const Outcome r =
      run("--tour barneshut --scene collision -n 4096 --backend cpu --size 1280x720 --no-vsync --script " +
              script.string() + " --trace " + trace.string(),
          "env DISPLAY=" + xvfb.display());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "Barnes-Hut")) << "the tour switched the algorithm: " << r.output;
  const Image image = testing::load_png(shot);
  ASSERT_EQ(image.width, 1280);
  const auto window_colour = [](auto p) {
    return std::abs(p[0] - 18) < 8 && std::abs(p[1] - 19) < 8 && std::abs(p[2] - 26) < 8;
  };
  EXPECT_GT(testing::fraction(image, 10, 0, 400, 720, window_colour), 0.3) << "the tour's window at the left";
  EXPECT_GT(testing::fraction(image, 10, 0, 400, 720, [](auto p) { return testing::luma(p) > 160; }), 0.004)
      << "with text";
  EXPECT_GT(testing::fraction(image, 870, 0, 1270, 720, window_colour), 0.3) << "the panel at the right";
  EXPECT_GT(testing::fraction(image, 560, 200, 840, 520, [](auto p) { return testing::luma(p) > 60; }), 0.01)
      << "bodies between them";
  const auto csv = read_csv(trace);
  ASSERT_EQ(csv.size(), 15u);
  EXPECT_GT(std::stoi(csv.back()[column(csv, "steps_completed")]), 0) << "the steps went on through the tour's steps";

  EXPECT_EQ(run("--tour fmm --backend cpu -n 1024 --frames 1").code, 2) << "an unknown tour is bad input";
}

// `render` walks a tour through its shipped script: each step's toggles, the stats before the next.
TEST_F(Cli, RenderWalksTheShippedTourScript) {
  const fs::path out = dir_ / "frames";
  const Outcome r = run("render --scene galaxy -n 1024 --backend cpu --size 160x90 --frames 130 --out " + out.string() +
                        " --script tour-barneshut.json");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "stats: frame 59")) << r.output;
  EXPECT_TRUE(has(r, "stats: frame 119")) << r.output;
  EXPECT_TRUE(has(r, "Barnes-Hut")) << r.output;
  EXPECT_TRUE(fs::exists(out / "frame_00129.png"));
}

// A/B as a table: bad changes are refused before any work, naming the pair; without a GPU it says so.
TEST_F(Cli, BenchCompareRefusesBadChangesClearly) {
  const Outcome unknown = run("bench --algo allpairs -n 256 --compare unroll=8 unrol=16");
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("unrol"), std::string::npos) << unknown.output;
  const Outcome wrong_algorithm = run("bench --algo allpairs -n 256 --compare unroll=8 bh_sort=off");
  EXPECT_EQ(wrong_algorithm.code, 2) << wrong_algorithm.output;
  EXPECT_NE(wrong_algorithm.output.find("barneshut toggle"), std::string::npos) << wrong_algorithm.output;
  const Outcome bad_value = run("bench --algo barneshut -n 256 --compare theta=0.5 theta=lots");
  EXPECT_EQ(bad_value.code, 2) << bad_value.output;
  // theta is a row of the settings table: its range, its algorithm, and the rows B shares with A.
  const Outcome wide = run("bench --algo barneshut -n 256 --compare theta=0.5 theta=3");
  EXPECT_EQ(wide.code, 2) << wide.output;
  EXPECT_NE(wide.output.find("theta=3"), std::string::npos) << wide.output;
  EXPECT_NE(wide.output.find("[0, 2]"), std::string::npos) << wide.output;
  const Outcome theta_allpairs = run("bench --algo allpairs -n 256 --compare unroll=8 theta=0.5");
  EXPECT_EQ(theta_allpairs.code, 2) << theta_allpairs.output;
  EXPECT_NE(theta_allpairs.output.find("theta is a barneshut setting"), std::string::npos) << theta_allpairs.output;
  const Outcome shared = run("bench --algo barneshut -n 256 --compare theta=0.5 dt=0.1");
  EXPECT_EQ(shared.code, 2) << shared.output;
  EXPECT_NE(shared.output.find("which B shares with A"), std::string::npos) << shared.output;
  const Outcome one = run("bench --algo allpairs -n 256 --compare unroll=8");
  EXPECT_NE(one.code, 0) << "--compare takes two sets";
  for (const char* rung : {"rung=99", "rung=-1", "rung=ten"}) {
    const Outcome bad_rung = run(std::string("bench --algo allpairs -n 256 --compare rung=10 ") + rung);
    EXPECT_EQ(bad_rung.code, 2) << bad_rung.output;
    EXPECT_NE(bad_rung.output.find("rung takes a ladder rung"), std::string::npos) << bad_rung.output;
  }
  const Outcome rung_bh = run("bench --algo barneshut -n 256 --compare theta=0.5 rung=10");
  EXPECT_EQ(rung_bh.code, 2) << rung_bh.output;
  const Outcome cpu = run("bench --algo allpairs -n 256 --backend cpu --compare unroll=8 unroll=16");
  EXPECT_EQ(cpu.code, 2) << cpu.output;
  EXPECT_NE(cpu.output.find("needs a GPU"), std::string::npos) << cpu.output;
}

// HDF5 snapshots as users give them: a GADGET-4 file with several types and unit attributes is described
// by `info`, run by `bench` and saved back; the saved state keeps types, IDs and units and reads back as is.
void write_gadget4_fixture(const fs::path& file) {
  std::vector<testing::FixtureType> types(2);
  types[0].type = 1;
  types[0].table_mass = 0.002;  // PartType1: the MassTable holds its mass
  types[1].type = 4;
  for (int i = 0; i < 600; ++i) {
    testing::FixtureType& t = types[i < 400 ? 0 : 1];
    const double r = 2.0 + 8.0 * std::fmod(0.618034 * i, 1.0), phi = 0.1 * i, z = 0.5 * std::sin(0.7 * i);
    t.position.insert(t.position.end(), {r * std::cos(phi), r * std::sin(phi), z});  // kpc/h
    const double v = 120 + 10 * std::cos(0.3 * i);                                   // km/s, around the axis
    t.velocity.insert(t.velocity.end(), {-v * std::sin(phi), v * std::cos(phi), 3.0 * std::cos(1.3 * i)});
    t.ids.push_back(static_cast<std::uint64_t>(5000 + i));
    if (i >= 400) t.mass.push_back(0.0005);
  }
  testing::Hdf5Fixture f(file);
  testing::write_gadget_header(f, types, 0.1, 0.0);
  f.group("Parameters");
  f.scalar("Parameters", "UnitLength_in_cm", 3.085678e21);
  f.scalar("Parameters", "UnitMass_in_g", 1.989e43);
  f.scalar("Parameters", "UnitVelocity_in_cm_per_s", 1e5);
  f.scalar("Parameters", "HubbleParam", 0.7);
  f.scalar("Parameters", "ComovingIntegrationOn", 0, H5T_STD_I32LE);
  testing::write_gadget_types(f, types);
}

TEST_F(Cli, Hdf5SnapshotsAreDescribedRunAndSavedBackWithTheirTypesIdsAndUnits) {
  const fs::path in = dir_ / "g4.hdf5", out = dir_ / "after.hdf5";
  write_gadget4_fixture(in);
  Outcome r = run("info " + in.string());
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* said : {"600 bodies", "GADGET-4 layout", "PartType1 (dark matter) 400 (mass from MassTable)",
                           "PartType4 (stars) 200 (mass from Masses)", "units from Parameters", "little h = 0.7",
                           "rescaled to G = 1", "1 length = "})
    EXPECT_TRUE(has(r, said)) << said << " missing from\n" << r.output;

  r = run("bench --backend cpu --algo allpairs --load " + in.string() + " --warmup 0 --steps 3 --save " + out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "loaded from " + in.string())) << r.output;
  EXPECT_TRUE(has(r, "PartType4 (stars) 200")) << "the run summary names the types:\n" << r.output;
  EXPECT_TRUE(has(r, "1 mass = ")) << "and the conversion:\n" << r.output;

  const Snapshot start = read_snapshot(in), after = read_snapshot(out);
  ASSERT_EQ(after.bodies.size(), 600u);
  EXPECT_NE(after.bodies.x, start.bodies.x) << "three steps moved the bodies";
  EXPECT_EQ(after.meta.ids, start.meta.ids);
  ASSERT_EQ(after.meta.types.size(), 2u);
  EXPECT_EQ(after.meta.types[1].type, 4);
  EXPECT_EQ(after.meta.types[1].begin, 400u);
  EXPECT_NEAR(after.meta.units.length_cm, start.meta.units.length_cm, 1e-9 * start.meta.units.length_cm);
  EXPECT_GT(after.time, start.time);

  r = run("info " + out.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "nothing rescaled")) << "nbodylab's own files are in G = 1 units:\n" << r.output;
}

// With h5py (python3-h5py, which the set-up installs), the other way round: a GADGET-2 file with a
// MassTable-only type written by h5py loads, and what nbodylab writes opens in h5py with GADGET-4's layout.
TEST_F(Cli, Hdf5FilesWrittenByH5pyLoadAndOursOpenInH5py) {
  if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3-h5py is not installed";
  const fs::path script = dir_ / "write.py", g2 = dir_ / "g2.hdf5", saved = dir_ / "saved.hdf5",
                 check = dir_ / "check.py";
  write_text(script, R"(import sys, h5py, numpy as np
rng = np.random.default_rng(3)
with h5py.File(sys.argv[1], "w") as f:
    h = f.create_group("Header")
    h.attrs["NumPart_ThisFile"] = np.array([0, 500, 0, 0, 0, 0], dtype=np.uint32)
    h.attrs["NumPart_Total"] = np.array([0, 500, 0, 0, 0, 0], dtype=np.uint32)
    h.attrs["MassTable"] = np.array([0, 0.01, 0, 0, 0, 0])
    h.attrs["Time"], h.attrs["Redshift"], h.attrs["BoxSize"] = 0.5, 1.0, 0.0
    h.attrs["NumFilesPerSnapshot"], h.attrs["HubbleParam"] = 1, 0.7
    g = f.create_group("PartType1")
    g["Coordinates"] = (rng.normal(size=(500, 3)) * 10).astype(np.float32)
    g["Velocities"] = (rng.normal(size=(500, 3)) * 40).astype(np.float32)
    g["ParticleIDs"] = np.arange(500, dtype=np.uint32) + 1
)");
  ASSERT_EQ(std::system(("/usr/bin/python3 " + script.string() + " " + g2.string()).c_str()), 0);
  Outcome r = run("bench --backend cpu --load " + g2.string() + " --warmup 0 --steps 2 --save " + saved.string());
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "GADGET-2 layout")) << r.output;
  EXPECT_TRUE(has(r, "a = 0.5")) << r.output;

  write_text(check, R"(import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
h, p = f["Header"].attrs, f["Parameters"].attrs
assert list(h["NumPart_Total"]) == [0, 500, 0, 0, 0, 0], h["NumPart_Total"]
assert f["PartType1/Coordinates"].shape == (500, 3) and f["PartType1/Velocities"].shape == (500, 3)
assert list(f["PartType1/ParticleIDs"][:]) == list(range(1, 501))
assert p["ComovingIntegrationOn"] == 0 and p["UnitLength_in_cm"] > 0 and h["UnitMass_in_g"] == p["UnitMass_in_g"]
G = 6.6743e-8 * p["UnitMass_in_g"] / (p["UnitLength_in_cm"] * p["UnitVelocity_in_cm_per_s"] ** 2)
assert abs(G - 1) < 1e-6, G
m = f["PartType1/Masses"][:]
assert abs(m.sum() - 1) < 1e-4 and np.all(m == m[0]), m[:3]
print("h5py reads it")
)");
  FILE* pipe = popen(("/usr/bin/python3 " + check.string() + " " + saved.string() + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  char buffer[512];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) said.append(buffer, got);
  EXPECT_EQ(pclose(pipe), 0) << said;
  EXPECT_NE(said.find("h5py reads it"), std::string::npos) << said;
}

// yt (python3-yt, when installed) opens what nbodylab writes as a GADGET HDF5 dataset; with the file's own
// unit attributes as its unit_base, a scene saved by the lab (its stars PartType4, its halo PartType1) weighs what
// the lab says: 1e10 solar masses.
TEST_F(Cli, SavedSnapshotsOpenInYtWithTheirUnits) {
  if (std::system("/usr/bin/python3 -c 'import yt' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "python3-yt is not installed";
  const fs::path saved = dir_ / "scene.hdf5", check = dir_ / "yt_check.py";
  const Outcome r = run("bench --backend cpu --scene galaxy -n 512 --warmup 0 --steps 1 --save " + saved.string());
  ASSERT_EQ(r.code, 0) << r.output;
  write_text(check, R"(import sys, h5py, yt
yt.set_log_level(50)
p = h5py.File(sys.argv[1], "r")["Parameters"].attrs
ds = yt.load(sys.argv[1], unit_base={k: float(p[k]) for k in ("UnitLength_in_cm", "UnitMass_in_g", "UnitVelocity_in_cm_per_s")})
assert type(ds).__name__ == "GadgetHDF5Dataset", type(ds)
ad = ds.all_data()
mass = float(ad["all", "particle_mass"].sum().in_units("Msun"))
assert set(ds.particle_types_raw) == {"PartType1", "PartType4"}, ds.particle_types_raw
assert abs(mass / 1e10 - 1) < 1e-3, mass
assert abs(float(ds.length_unit.in_units("kpc")) - 1) < 1e-6
print("yt reads it")
)");
  FILE* pipe = popen(("/usr/bin/python3 " + check.string() + " " + saved.string() + " 2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  char buffer[512];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) said.append(buffer, got);
  EXPECT_EQ(pclose(pipe), 0) << said;
  EXPECT_NE(said.find("yt reads it"), std::string::npos) << said;
}

// Malformed snapshots stop every command before any work, with exit 2, the file and the place named,
// and nothing written.
TEST_F(Cli, MalformedHdf5SnapshotsAreRefusedWithExitTwoAndNothingIsSaved) {
  struct Bad {
    std::string name;
    std::vector<std::string> said;
  };
  const std::vector<Bad> bad = {{"no_header.hdf5", {"no Header group"}},
                                {"counts.hdf5", {"PartType1/Coordinates", "8 rows", "NumPart_ThisFile[1]"}},
                                {"nan.hdf5", {"PartType1/Coordinates", "row 2", "NaN"}},
                                {"rank.hdf5", {"PartType1/Velocities", "rank 1"}}};
  for (const Bad& b : bad) {
    testing::Hdf5Fixture f(dir_ / b.name);
    std::vector<double> position(30), velocity(30, 0.1);
    for (std::size_t i = 0; i < position.size(); ++i) position[i] = 0.1 * static_cast<double>((i * 7) % 11);
    std::size_t rows = 10;
    if (b.name == "counts.hdf5") rows = 8, position.resize(24);
    if (b.name == "nan.hdf5") position[7] = std::nan("");
    if (b.name != "no_header.hdf5") {
      f.group("Header");
      f.attribute("Header", "NumPart_ThisFile", {0, 10, 0, 0, 0, 0}, H5T_STD_U32LE);
      f.attribute("Header", "NumPart_Total", {0, 10, 0, 0, 0, 0}, H5T_STD_U32LE);
      f.attribute("Header", "MassTable", {0, 0.1, 0, 0, 0, 0});
      f.scalar("Header", "Time", 0);
    }
    f.group("PartType1");
    f.dataset("PartType1/Coordinates", position, {rows, 3});
    if (b.name == "rank.hdf5") f.dataset("PartType1/Velocities", velocity, {30});
    else f.dataset("PartType1/Velocities", velocity, {10, 3});
  }
  const fs::path out = dir_ / "never.hdf5";
  for (const Bad& b : bad) {
    const std::string file = (dir_ / b.name).string();
    for (const std::string& command : {"bench --backend cpu --steps 1 --load " + file + " --save " + out.string(),
                                       "render --backend cpu --frames 1 --size 64x64 --out " + (dir_ / "f").string() +
                                           " --load " + file + " --save " + out.string(),
                                       "info " + file}) {
      const Outcome r = run(command);
      EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
      EXPECT_TRUE(has(r, file)) << r.output;
      for (const std::string& part : b.said) EXPECT_TRUE(has(r, part)) << part << " missing from\n" << r.output;
      EXPECT_FALSE(fs::exists(out)) << command;
    }
  }
}

// Relative outputs land in the folder the program was started from, and what the lab says of them (the
// status line, the end of a recording) names them whole.
TEST_F(Cli, OutputsLandInTheStartingFolderAndAreNamedByAbsolutePaths) {
  const fs::path start = dir_ / "start here";
  fs::create_directories(start);
  write_text(start / "keys.json",
             R"({"events": [{"frame": 1, "action": "key", "key": "f12"}, {"frame": 3, "action": "quit"}]})");
  const Outcome r =
      run("--offscreen --backend cpu -n 256 --size 640x360 --script keys.json --record rec.rgba --record-panel --save "
          "state.hdf5",
          "cd '" + start.string() + "' && env -u DISPLAY -u WAYLAND_DISPLAY");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "Recorded to " + (start / "rec.rgba").string())) << r.output;
  EXPECT_TRUE(fs::exists(start / "rec.rgba"));
  EXPECT_TRUE(fs::exists(start / "state.hdf5"));
  int screenshots = 0;
  for (const auto& entry : fs::directory_iterator(start))
    if (entry.path().filename().string().rfind("nbodylab-", 0) == 0 && entry.path().extension() == ".png")
      ++screenshots;
  EXPECT_EQ(screenshots, 1) << "F12 saves into the starting folder";
}

// The panel's Bookmark now writes HDF5 when the name asks for it: NAME.hdf5 beside NAME.json, listed with
// the others, restored with the bodies' types and IDs, and named by absolute paths for the status line.
TEST(Bookmarks, ANameEndingInHdf5SavesAnHdf5SnapshotThatRestores) {
  const fs::path dir = fs::temp_directory_path() / ("nbl_bookmarks_" + std::to_string(getpid()));
  fs::remove_all(dir);
  Settings settings;
  settings.scene = Scene::galaxy;
  settings.body_count = 1024;
  settings.backend = BackendKind::cpu;
  Simulation simulation(settings);
  for (int i = 0; i < 3; ++i) simulation.step();
  const Bookmark saved = save_bookmark(dir, "spiral.hdf5", settings, simulation);
  EXPECT_EQ(saved.name, "spiral");
  EXPECT_TRUE(saved.tipsy.is_absolute()) << saved.tipsy;
  EXPECT_EQ(saved.tipsy.filename(), "spiral.hdf5");
  ASSERT_TRUE(fs::exists(dir / "spiral.hdf5"));
  ASSERT_TRUE(fs::exists(dir / "spiral.json"));
  const Snapshot direct = read_snapshot(saved.tipsy);
  EXPECT_EQ(direct.meta.types.size(), 2u) << "the galaxy's stars (PartType4) and its halo (PartType1)";

  bool listed = false;
  for (const Bookmark& b : list_bookmarks(dir)) listed = listed || (b.name == "spiral" && !b.shipped);
  EXPECT_TRUE(listed);
  LoadedBookmark loaded = read_bookmark(saved, settings);
  Simulation restored(settings);
  restored.restore(loaded.settings, std::move(loaded.snapshot));
  EXPECT_NEAR(restored.time(), simulation.time(), 1e-9);
  EXPECT_EQ(restored.body_count(), 1024u);
  EXPECT_EQ(restored.body_groups().size(), 2u);
  EXPECT_EQ(restored.snapshot().meta.ids, direct.meta.ids);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nbl
