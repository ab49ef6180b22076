// All-or-nothing writes and the output path check every command makes before it starts.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

class FileUtil : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_file_util_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // The PID of a process that has exited: what a killed save leaves in its temporary file's name.
  static pid_t dead_pid() {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    return child;
  }
  fs::path dir_;
};

template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST_F(FileUtil, WritingOverAFolderSaysItIsAFolderNotSuccess) {
  fs::create_directories(dir_ / "adir");
  const std::string message = error_of([&] { write_file_atomically(dir_ / "adir", "x"); });
  EXPECT_NE(message.find("folder"), std::string::npos) << message;
  EXPECT_EQ(message.find("Success"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_directory(dir_ / "adir"));
}

TEST_F(FileUtil, ASaveCleansUpTheTemporaryFileOfAKilledSave) {
  const fs::path target = dir_ / "prev.tipsy";
  std::ofstream(target) << "previous";
  const fs::path stale = dir_ / (".prev.tipsy.tmp" + std::to_string(dead_pid()));
  std::ofstream(stale) << "half of a save";
  // A save in progress in a live process (ours' parent stands in for it) is not touched, nor is
  // another target's temporary file.
  const fs::path live = dir_ / (".prev.tipsy.tmp" + std::to_string(getppid()));
  std::ofstream(live) << "another save in progress";
  const fs::path other = dir_ / (".other.tipsy.tmp" + std::to_string(dead_pid()));
  std::ofstream(other) << "not ours";

  write_file_atomically(target, "new");
  EXPECT_EQ(read(target), "new");
  EXPECT_FALSE(fs::exists(stale)) << "the killed save's temporary file should be gone";
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

TEST_F(FileUtil, StaleTemporaryFoldersOfATargetAreRemovedToo) {
  const fs::path target = dir_ / "frames";
  const fs::path stale = dir_ / (".frames.tmp" + std::to_string(dead_pid()));
  fs::create_directories(stale);
  std::ofstream(stale / "frame_00000.png") << "x";
  const fs::path video = dir_ / (".run.mp4.tmp" + std::to_string(dead_pid()) + ".mp4");
  std::ofstream(video) << "x";
  EXPECT_EQ(remove_stale_temporaries(target), 1);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(remove_stale_temporaries(dir_ / "run.mp4"), 1);
  EXPECT_FALSE(fs::exists(video));
}

TEST_F(FileUtil, OutputFileCheckRefusesWhatCannotBeWritten) {
  fs::create_directories(dir_ / "adir");
  auto refused = [](const fs::path& file) {
    try {
      check_output_file(file, "--save");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string m = refused(dir_ / "adir");
  EXPECT_NE(m.find("--save"), std::string::npos) << m;
  EXPECT_NE(m.find("folder"), std::string::npos) << m;
  m = refused("/nonexistent_dir/x.tipsy");
  EXPECT_NE(m.find("/nonexistent_dir"), std::string::npos) << m;
  EXPECT_NE(m.find("does not exist"), std::string::npos) << m;
  m = refused("/proc/x.png");
  EXPECT_NE(m.find("cannot create"), std::string::npos) << m;
  std::ofstream(dir_ / "plain") << "x";
  m = refused(dir_ / "plain" / "x.json");
  EXPECT_NE(m.find("not a folder"), std::string::npos) << m;

  EXPECT_NO_THROW(check_output_file(dir_ / "new.tipsy", "--save"));
  EXPECT_NO_THROW(check_output_file(dir_ / "plain", "--save"));  // overwriting a file is fine
  EXPECT_NO_THROW(check_output_file("", "--save"));
  EXPECT_FALSE(fs::exists(dir_ / "new.tipsy")) << "the check writes nothing";
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
}

TEST_F(FileUtil, OutputFolderCheckAcceptsNewAndExistingFolders) {
  EXPECT_NO_THROW(check_output_folder(dir_ / "new", "--out"));
  EXPECT_NO_THROW(check_output_folder(dir_ / "new/", "--out"));
  EXPECT_NO_THROW(check_output_folder(dir_, "--out"));
  EXPECT_THROW(check_output_folder("/nonexistent_dir/frames", "--out"), InputError);
  std::ofstream(dir_ / "plain") << "x";
  EXPECT_THROW(check_output_folder(dir_ / "plain", "--out"), InputError);
  EXPECT_THROW(check_output_folder("/proc/frames", "--out"), InputError);
}

}  // namespace
}  // namespace nbl
