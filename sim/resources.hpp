// Files the program reads at run time (kernel sources, physics headers for NVRTC, shaders, assets)
// live under one root, laid out as in the source tree (cuda/kernels, physics, shaders, assets). The
// root is the first of these:
//   1. $NBODYLAB_ROOT, when set (it must then hold the files: a wrong value is an error, not skipped);
//   2. an installed program's share folder: <prefix>/bin/nbodylab reads <prefix>/share/nbodylab;
//   3. the build tree: CMake writes a marker file (kBuildTreeMarker) into the build folder naming the
//      source tree; the executable's folder and the two above it are searched for it (build/nbodylab,
//      build/tests/app/...). An installed program has no marker, so it never reads the source tree,
//      and a broken install is reported as such.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace nbl {

inline constexpr const char* kBuildTreeMarker = "nbodylab-source-dir.txt";

struct ResourceRoot {
  std::filesystem::path path;
  std::string origin;  // "NBODYLAB_ROOT", "installed", "build tree"
};

// The root described above; throws Error naming every place it looked when none qualifies.
const ResourceRoot& resource_location();
const std::filesystem::path& resource_root();

// resource_root() / relative, checked to exist (e.g. "cuda/kernels" or "shaders/points.vert");
// throws Error naming the missing path.
std::filesystem::path find_resource(std::string_view relative);

// The directory that holds the executable.
std::filesystem::path executable_dir();

// A folder of kernel sources the user edits (Settings::kernels_dir, `--kernels DIR`): throws InputError
// unless it is one (a copy made by `nbodylab kernels --export`).
void check_kernels_workspace(const std::filesystem::path& dir);

// Copies the kernel sources and the physics headers they include into `dir` (created; it must be new
// or empty), writable, laid out so that `--kernels DIR` compiles from it alone. Returns the files written.
int export_kernel_sources(const std::filesystem::path& dir);

}  // namespace nbl
