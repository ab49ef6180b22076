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
#include <functional>
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

// What a finished export writes last into its folder: the list of the files it wrote.
inline constexpr const char* kKernelsManifest = "nbodylab-kernels.txt";

// A folder of kernel sources the user edits (Settings::kernels_dir, `--kernels DIR`): throws InputError
// unless it is one: a finished `nbodylab kernels --export` (its kKernelsManifest is there) that still
// holds every file the export wrote.
void check_kernels_workspace(const std::filesystem::path& dir);

// How an export writes one file (the default: a copy, made writable). Tests put one here that fails, as
// a full disk would; it throws on failure.
using ExportFileCopier = std::function<void(const std::filesystem::path& from, const std::filesystem::path& to)>;
void copy_file_for_export(const std::filesystem::path& from, const std::filesystem::path& to);

// Copies the kernel sources and the physics headers they include into `dir` (created; it must be new
// or empty), writable, laid out so that `--kernels DIR` compiles from it alone. All or nothing: the files
// go into a staging folder beside `dir`, which takes its name once every file and the manifest are
// written. Returns the files written (the manifest not counted). Throws Error, leaving nothing, on failure.
int export_kernel_sources(const std::filesystem::path& dir, const ExportFileCopier& copy = copy_file_for_export);

}  // namespace nbl
