// The program as a teacher installs it: `cmake --install` to a prefix, run from another folder with
// NBODYLAB_ROOT unset, finds everything under PREFIX/share/nbodylab and never the source tree; a broken
// install says so; the .deb depends on Debian packages and only recommends NVIDIA's.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/resources.hpp"
#include "tests/app/png_file.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  std::string output;
};

Outcome shell(const std::string& command) {
  Outcome r;
  FILE* pipe = popen(("(" + command + ") 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, got);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool has(const Outcome& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// One install shared by the tests of this file (installing takes a few seconds).
class Installed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("nbl_install_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "elsewhere");
    if (fs::exists(fs::path(NBL_BUILD_DIR) / "CMakeCache.txt"))
      install_ = shell(std::string(NBL_CMAKE_COMMAND) + " --install " + NBL_BUILD_DIR + " --prefix " + prefix().string());
  }
  static void TearDownTestSuite() { fs::remove_all(root_); }
  void SetUp() override {
    // A copied test binary (the GPU bundle) has no build tree to install from.
    if (!fs::exists(fs::path(NBL_BUILD_DIR) / "CMakeCache.txt")) GTEST_SKIP() << "no build tree at " << NBL_BUILD_DIR;
    ASSERT_EQ(install_.code, 0) << install_.output;
  }

  static fs::path prefix() { return root_ / "prefix"; }
  static fs::path share() { return prefix() / "share" / "nbodylab"; }
  // The installed program, run from a folder that is neither the prefix nor the source tree, with
  // nothing pointing it at the sources.
  static Outcome run(const std::string& arguments, const fs::path& binary = prefix() / "bin" / "nbodylab") {
    return shell("cd " + (root_ / "elsewhere").string() + " && env -u NBODYLAB_ROOT NBODYLAB_KERNEL_CACHE=" +
                 std::string(NBL_TEST_KERNEL_CACHE) + " " + binary.string() + " " + arguments);
  }
  static std::string source_dir() { return NBL_SOURCE_DIR; }

  static fs::path root_;
  static Outcome install_;
};
fs::path Installed::root_;
Outcome Installed::install_;

TEST_F(Installed, InfoFindsEverythingUnderTheSharePrefix) {
  const Outcome r = run("info");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "resources: " + share().string() + " (installed)")) << r.output;
  EXPECT_TRUE(has(r, "kernel sources: " + (share() / "cuda" / "kernels").string())) << r.output;
  EXPECT_TRUE(has(r, "physics headers: " + (share() / "physics").string())) << r.output;
  EXPECT_FALSE(has(r, source_dir() + "/")) << "the installed program must not read the source tree: " << r.output;
}

TEST_F(Installed, KernelsCompileFromTheInstalledSources) {
  const Outcome r = run("kernels --check --quick");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(has(r, "0 failed")) << r.output;
  EXPECT_TRUE(has(r, "Barnes-Hut: ")) << r.output;
}

TEST_F(Installed, RendersHeadlessOnTheCpu) {
  const Outcome r = run("render --backend cpu --scene galaxy -n 2048 --frames 2 --size 160x90 --pitch 89 --out frames");
  ASSERT_EQ(r.code, 0) << r.output;
  const fs::path frame = root_ / "elsewhere" / "frames" / "frame_00001.png";
  ASSERT_TRUE(fs::exists(frame)) << r.output;
  const Image image = testing::load_png(frame);
  EXPECT_EQ(image.width, 160);
  EXPECT_GT(testing::fraction(image, 60, 25, 100, 65, [](auto p) { return testing::luma(p) > 60; }), 0.05)
      << "the galaxy should be drawn (shaders and colour maps were found)";
}

TEST_F(Installed, ShipsTheDesktopEntryAndIcon) {
  std::ifstream desktop(prefix() / "share" / "applications" / "nbodylab.desktop");
  const std::string text((std::istreambuf_iterator<char>(desktop)), {});
  EXPECT_NE(text.find("Exec=nbodylab"), std::string::npos) << text;
  EXPECT_NE(text.find("Icon=nbodylab"), std::string::npos) << text;
  EXPECT_TRUE(fs::exists(prefix() / "share" / "icons" / "hicolor" / "scalable" / "apps" / "nbodylab.svg"));
  EXPECT_FALSE(fs::exists(share() / "physics" / "CMakeLists.txt")) << "only the headers NVRTC includes";
}

TEST_F(Installed, ABrokenInstallIsReportedNotHiddenByTheSourceTree) {
  // A copy of the install with its shaders missing: render names the missing installed file.
  const fs::path broken = root_ / "broken";
  fs::copy(prefix(), broken, fs::copy_options::recursive);
  fs::remove_all(broken / "share" / "nbodylab" / "shaders");
  Outcome r = run("render --backend cpu -n 1024 --frames 1 --size 64x64 --out f2", broken / "bin" / "nbodylab");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(has(r, (broken / "share" / "nbodylab" / "shaders").string())) << r.output;
  // The binary alone, outside any install: it finds nothing, and says where it looked.
  fs::create_directories(root_ / "lonely" / "bin");
  fs::copy_file(prefix() / "bin" / "nbodylab", root_ / "lonely" / "bin" / "nbodylab");
  r = run("info", root_ / "lonely" / "bin" / "nbodylab");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(has(r, (root_ / "lonely" / "share" / "nbodylab").string())) << r.output;
  EXPECT_FALSE(has(r, "resources: ")) << r.output;
}

TEST(DebianPackage, DependsOnDebianPackagesAndRecommendsNvidias) {
  if (shell("command -v dpkg-deb && command -v dpkg-shlibdeps").code != 0) GTEST_SKIP() << "dpkg-dev is not installed";
  if (!fs::exists(fs::path(NBL_BUILD_DIR) / "CPackConfig.cmake")) GTEST_SKIP() << "no build tree at " << NBL_BUILD_DIR;
  const fs::path out = fs::temp_directory_path() / ("nbl_deb_" + std::to_string(getpid()));
  fs::remove_all(out);
  const Outcome pack = shell(std::string(NBL_CPACK_COMMAND) + " -G DEB --config " + NBL_BUILD_DIR + "/CPackConfig.cmake -B " + out.string());
  ASSERT_EQ(pack.code, 0) << pack.output;
  fs::path deb;
  for (const auto& entry : fs::directory_iterator(out))
    if (entry.path().extension() == ".deb") deb = entry.path();
  ASSERT_FALSE(deb.empty()) << pack.output;

  const Outcome fields = shell("dpkg-deb -f " + deb.string() + " Depends Recommends Suggests");
  ASSERT_EQ(fields.code, 0) << fields.output;
  const std::string& f = fields.output;
  const std::string depends = f.substr(0, f.find("Recommends:"));
  const std::string recommends = f.substr(f.find("Recommends:"));
  for (const char* package : {"libc6", "libglfw3", "libgomp1", "libstdc++6", "libgl1", "libegl1"})
    EXPECT_NE(depends.find(package), std::string::npos) << package << " missing from\n" << f;
  for (const char* nvidia : {"cuda", "nvrtc", "nvidia"})
    EXPECT_EQ(depends.find(nvidia), std::string::npos) << "NVIDIA's packages are recommended, not required:\n" << f;
  EXPECT_NE(recommends.find("cuda-nvrtc-"), std::string::npos) << f;
  EXPECT_NE(recommends.find("libcuda1"), std::string::npos) << f;

  const Outcome contents = shell("dpkg-deb -c " + deb.string());
  for (const char* file : {"./usr/bin/nbodylab", "./usr/share/applications/nbodylab.desktop",
                           "./usr/share/icons/hicolor/scalable/apps/nbodylab.svg",
                           "./usr/share/nbodylab/cuda/kernels/allpairs_shared.cu", "./usr/share/nbodylab/physics/gravity.hpp",
                           "./usr/share/nbodylab/shaders/", "./usr/share/nbodylab/assets/colormaps.json"})
    EXPECT_NE(contents.output.find(file), std::string::npos) << file << " missing from the package";
  fs::remove_all(out);
}

}  // namespace
}  // namespace nbl
