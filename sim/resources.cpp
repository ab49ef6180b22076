#include "sim/resources.hpp"

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/error.hpp"

namespace nbl {

namespace {

// A folder is the root only if it holds this file: a build folder also has a physics/ subfolder
// (CMake's), but never the headers themselves.
constexpr const char* kMarker = "physics/gravity.hpp";

std::filesystem::path locate_root() {
  std::vector<std::filesystem::path> roots;
  if (const char* env = std::getenv("NBODYLAB_ROOT"); env && *env) roots.emplace_back(env);
  roots.push_back(executable_dir().parent_path());
  roots.emplace_back(NBL_SOURCE_DIR);
  std::string tried;
  for (const auto& root : roots) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(root / kMarker, ec)) return root;
    tried += "\n  " + root.string();
  }
  throw Error("cannot find nbodylab's kernel sources and shaders; looked in:" + tried +
              "\nset NBODYLAB_ROOT to the nbodylab source folder");
}

}  // namespace

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::current_path();
  return exe.parent_path();
}

const std::filesystem::path& resource_root() {
  static const std::filesystem::path root = locate_root();
  return root;
}

std::filesystem::path find_resource(std::string_view relative) {
  auto path = resource_root() / relative;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw Error("cannot find " + path.string() + " (nbodylab's resources are under " + resource_root().string() + ")");
  return path;
}

}  // namespace nbl
