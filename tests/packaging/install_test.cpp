// The program as a teacher installs it: `cmake --install` to a prefix, run from another folder with
// NBODYLAB_ROOT unset, finds everything under PREFIX/share/nbodylab and never the source tree; a broken
// install says so; the .deb depends on Debian packages, recommends only what Debian has, and is shaped as
// Debian policy wants (lintian); scripts/run.sh leaves the user's files in the user's folder.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
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
      install_ =
          shell(std::string(NBL_CMAKE_COMMAND) + " --install " + NBL_BUILD_DIR + " --prefix " + prefix().string());
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

// The .deb, built once for the tests below (cpack takes a few seconds).
class DebianPackage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    out_ = fs::temp_directory_path() / ("nbl_deb_" + std::to_string(getpid()));
    fs::remove_all(out_);
    if (shell("command -v dpkg-deb && command -v dpkg-shlibdeps").code != 0) {
      skip_ = "dpkg-dev is not installed";
      return;
    }
    if (!fs::exists(fs::path(NBL_BUILD_DIR) / "CPackConfig.cmake")) {
      skip_ = std::string("no build tree at ") + NBL_BUILD_DIR;
      return;
    }
    pack_ = shell(std::string(NBL_CPACK_COMMAND) + " -G DEB --config " + NBL_BUILD_DIR + "/CPackConfig.cmake -B " +
                  out_.string());
    for (const auto& entry : fs::directory_iterator(out_))
      if (entry.path().extension() == ".deb") deb_ = entry.path();
  }
  static void TearDownTestSuite() { fs::remove_all(out_); }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_EQ(pack_.code, 0) << pack_.output;
    ASSERT_FALSE(deb_.empty()) << pack_.output;
  }
  static std::string field(const std::string& name) {
    const Outcome r = shell("dpkg-deb -f " + deb_.string() + " " + name);
    return r.code == 0 ? r.output : "";
  }
  // The package's files, unpacked once.
  static fs::path unpacked() {
    const fs::path root = out_ / "root";
    if (!fs::exists(root)) shell("dpkg-deb -x " + deb_.string() + " " + root.string());
    return root;
  }

  static fs::path out_, deb_;
  static Outcome pack_;
  static std::string skip_;
};
fs::path DebianPackage::out_, DebianPackage::deb_;
Outcome DebianPackage::pack_;
std::string DebianPackage::skip_;

TEST_F(DebianPackage, DependsOnDebianPackagesAndRecommendsOnlyWhatDebianHas) {
  const std::string depends = field("Depends"), recommends = field("Recommends");
  for (const char* package : {"libc6", "libglfw3", "libgomp1", "libstdc++6", "libgl1", "libegl1", "libhdf5-"})
    EXPECT_NE(depends.find(package), std::string::npos) << package << " missing from Depends: " << depends;
  for (const char* nvidia : {"cuda", "nvrtc", "nvidia"})
    EXPECT_EQ(depends.find(nvidia), std::string::npos) << "NVIDIA's packages are not required: " << depends;
  // Debian has the driver's CUDA library (non-free) but not NVRTC 13 nor NVIDIA's cuda-* packages.
  EXPECT_NE(recommends.find("libcuda1"), std::string::npos) << recommends;
  EXPECT_EQ(recommends.find("cuda-"), std::string::npos) << recommends;
  EXPECT_EQ(recommends.find("nvrtc"), std::string::npos) << recommends;
  EXPECT_NE(recommends.find("fonts-dejavu-core"), std::string::npos) << "the panel's font: " << recommends;
}

TEST_F(DebianPackage, DescriptionMaintainerAndDocsAreAsDebianPolicyWants) {
  const std::string description = field("Description");
  EXPECT_NE(description.find("NVRTC 13"), std::string::npos) << "where NVRTC comes from: " << description;
  EXPECT_NE(description.find("HDF5"), std::string::npos) << description;
  std::istringstream lines(description);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(line.rfind(" ;", 0), 0u) << "a continuation line starts with ';' (a CMake list): " << line;
    EXPECT_LE(line.size(), 81u) << line;
  }
  const std::string maintainer = field("Maintainer");
  EXPECT_EQ(maintainer.find("localhost"), std::string::npos) << maintainer;
  EXPECT_NE(maintainer.find("nbodylab developers <"), std::string::npos) << maintainer;

  const fs::path doc = unpacked() / "usr" / "share" / "doc" / "nbodylab";
  for (const char* file : {"copyright", "changelog.gz", "README.md.gz", "BENCHMARKS.md.gz"})
    EXPECT_TRUE(fs::exists(doc / file)) << file;
  for (const auto& entry : fs::directory_iterator(doc))
    EXPECT_TRUE(entry.path().extension() == ".gz" || entry.path().filename() == "copyright")
        << entry.path() << " is not compressed";
  EXPECT_TRUE(fs::exists(unpacked() / "usr" / "share" / "man" / "man1" / "nbodylab.1.gz"));
  EXPECT_EQ(shell("gzip -t " + (doc / "changelog.gz").string()).code, 0);
  EXPECT_NE(shell("zcat " + (doc / "changelog.gz").string()).output.find("nbodylab (" + field("Version").substr(0, 5)),
            std::string::npos);

  std::ifstream copyright(doc / "copyright");
  const std::string text((std::istreambuf_iterator<char>(copyright)), {});
  EXPECT_EQ(text.rfind("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/", 0), 0u) << text;
  EXPECT_NE(text.find("License: Expat"), std::string::npos) << text;
  EXPECT_NE(text.find("Copyright: 2026 The nbodylab developers"), std::string::npos) << text;
  EXPECT_NE(text.find(" Permission is hereby granted"), std::string::npos) << text;
}

TEST_F(DebianPackage, ShipsAStrippedBinaryAndWhatItReadsAtRunTime) {
  const Outcome contents = shell("dpkg-deb -c " + deb_.string());
  for (const char* file :
       {"./usr/bin/nbodylab", "./usr/share/applications/nbodylab.desktop",
        "./usr/share/icons/hicolor/scalable/apps/nbodylab.svg", "./usr/share/nbodylab/cuda/kernels/allpairs_shared.cu",
        "./usr/share/nbodylab/physics/gravity.hpp", "./usr/share/nbodylab/shaders/",
        "./usr/share/nbodylab/assets/colormaps.json"})
    EXPECT_NE(contents.output.find(file), std::string::npos) << file << " missing from the package";
  const Outcome sections = shell("readelf -S " + (unpacked() / "usr" / "bin" / "nbodylab").string());
  if (sections.code != 0) GTEST_SKIP() << "readelf (binutils) is not installed";
  EXPECT_EQ(sections.output.find(".symtab"), std::string::npos) << "the binary is not stripped";
  EXPECT_EQ(sections.output.find(".debug_"), std::string::npos) << "the binary carries debug sections";
}

TEST_F(DebianPackage, LintianFindsNoErrors) {
  if (shell("command -v lintian").code != 0) GTEST_SKIP() << "lintian is not installed";
  const Outcome r = shell("lintian --fail-on error " + deb_.string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output.find("\nE: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.rfind("E: ", 0), 0u) << r.output;
}

// scripts/run.sh runs the program in the folder it was started from: what the user names relatively, and
// what the lab writes unasked, land there, not in the checkout. A checkout of run.sh alone (with a set-up
// that does nothing and the build folder linked in) keeps the test to run.sh's own behaviour.
TEST(RunScript, RunsTheProgramInTheFolderItWasStartedFrom) {
  if (!fs::exists(fs::path(NBL_BUILD_DIR) / "nbodylab")) GTEST_SKIP() << "no build tree at " << NBL_BUILD_DIR;
  const fs::path root = fs::temp_directory_path() / ("nbl_run_" + std::to_string(getpid()));
  fs::remove_all(root);
  const fs::path checkout = root / "checkout", user = root / "my work";
  fs::create_directories(checkout / "scripts");
  fs::create_directories(user);
  fs::copy_file(fs::path(NBL_SOURCE_DIR) / "scripts" / "run.sh", checkout / "scripts" / "run.sh");
  std::ofstream(checkout / "scripts" / "setup.sh") << "#!/bin/sh\nexit 0\n";
  fs::permissions(checkout / "scripts" / "setup.sh", fs::perms::owner_all, fs::perm_options::add);
  fs::create_directory_symlink(NBL_BUILD_DIR, checkout / "build");
  const Outcome r = shell("cd '" + user.string() + "' && env -u NBODYLAB_BUILD_DIR NBODYLAB_KERNEL_CACHE=" +
                          std::string(NBL_TEST_KERNEL_CACHE) + " '" + (checkout / "scripts" / "run.sh").string() +
                          "' render --backend cpu -n 512 --frames 1 --size 64x64 --out frames --save state.hdf5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(user / "frames" / "frame_00000.png")) << r.output;
  EXPECT_TRUE(fs::exists(user / "state.hdf5")) << r.output;
  EXPECT_FALSE(fs::exists(checkout / "frames")) << "run.sh wrote into the checkout";
  EXPECT_FALSE(fs::exists(checkout / "state.hdf5")) << "run.sh wrote into the checkout";
  fs::remove_all(root);
}

}  // namespace
}  // namespace nbl
