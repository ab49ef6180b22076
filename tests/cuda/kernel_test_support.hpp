// What the kernel tests share: an engine that compiles for sm_90 (the benchmark GPU; any GPU in the
// machine is not asked) with the build tree's kernel cache, and a scratch directory.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "cuda/engine/kernel_engine.hpp"
#include "sim/resources.hpp"

namespace nbl::test {

// $NBODYLAB_KERNEL_CACHE when set (the GPU suite points it at its results), else the build tree's.
inline std::filesystem::path test_cache_dir() {
  const char* env = std::getenv("NBODYLAB_KERNEL_CACHE");
  if (env && *env && std::string_view(env) != "off") return env;
  return NBL_TEST_KERNEL_CACHE;
}

inline KernelEngine::Config sm90_config(std::filesystem::path cache = test_cache_dir()) {
  KernelEngine::Config c;
  c.arch = "sm_90";
  c.cache_dir = std::move(cache);
  return c;
}

inline std::shared_ptr<KernelEngine> sm90_engine() { return std::make_shared<KernelEngine>(sm90_config()); }

// An engine for this GPU's architecture with the build tree's kernel cache, one per test binary (every
// backend of a test shares it).
inline std::shared_ptr<KernelEngine> this_gpu_engine() {
  static std::shared_ptr<KernelEngine> e = [] {
    KernelEngine::Config c;
    c.cache_dir = test_cache_dir();
    return std::make_shared<KernelEngine>(c);
  }();
  return e;
}

// A fresh directory under the system's temp directory, removed with the object.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name) {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A copy of cuda/kernels in `dir`, and an engine that compiles from it (physics/ still comes from the
// source tree), without a disk cache. `arch` "" means this GPU's.
inline std::shared_ptr<KernelEngine> engine_on_copy(const std::filesystem::path& dir,
                                                    const std::string& arch = "sm_90") {
  std::filesystem::copy(find_resource("cuda/kernels"), dir, std::filesystem::copy_options::recursive);
  KernelEngine::Config c;
  c.arch = arch;
  c.kernels_dir = dir;
  c.include_dirs = {dir, find_resource("physics").parent_path()};
  c.cache_dir = std::filesystem::path();
  return std::make_shared<KernelEngine>(c);
}

}  // namespace nbl::test
