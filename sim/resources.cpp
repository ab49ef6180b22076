#include "sim/resources.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "sim/error.hpp"

namespace nbl {

std::filesystem::path executable_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::filesystem::current_path();
  return exe.parent_path();
}

std::filesystem::path find_resource(std::string_view relative) {
  std::vector<std::filesystem::path> roots;
  if (const char* env = std::getenv("NBODYLAB_ROOT"); env && *env) roots.emplace_back(env);
  const auto exe_dir = executable_dir();
  roots.push_back(exe_dir.parent_path());
  roots.push_back(exe_dir);
  roots.emplace_back(NBL_SOURCE_DIR);
  std::string tried;
  for (const auto& root : roots) {
    auto candidate = root / relative;
    std::error_code ec;
    if (std::filesystem::exists(candidate, ec)) return candidate;
    tried += "\n  " + candidate.string();
  }
  throw Error("cannot find " + std::string(relative) + "; looked in:" + tried +
              "\nset NBODYLAB_ROOT to the nbodylab source folder");
}

}  // namespace nbl
