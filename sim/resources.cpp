#include "sim/resources.hpp"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace fs = std::filesystem;

namespace {

// A folder is the root only if it holds this file: a build folder also has a physics/ subfolder
// (CMake's), but never the headers themselves.
constexpr const char* kMarker = "physics/gravity.hpp";

bool holds_resources(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / kMarker, ec);
}

// The source tree named by the build tree's marker next to (or up to two folders above) the executable.
std::optional<fs::path> build_tree_source() {
  fs::path dir = executable_dir();
  for (int up = 0; up < 3 && !dir.empty(); ++up, dir = dir.parent_path()) {
    std::ifstream marker(dir / kBuildTreeMarker);
    std::string source;
    if (marker && std::getline(marker, source) && !source.empty()) return fs::path(source);
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

ResourceRoot locate_root() {
  if (const char* env = std::getenv("NBODYLAB_ROOT"); env && *env) {
    if (holds_resources(env)) return {env, "NBODYLAB_ROOT"};
    throw Error(std::string("NBODYLAB_ROOT is ") + env + ", which does not hold nbodylab's resources (no " + kMarker +
                "); point it at a source tree or an install's share/nbodylab, or unset it");
  }
  std::string tried;
  const fs::path installed = executable_dir().parent_path() / "share" / "nbodylab";
  if (holds_resources(installed)) return {installed, "installed"};
  tried += "\n  " + installed.string() + " (an installed program's files)";
  if (auto source = build_tree_source()) {
    if (holds_resources(*source)) return {*source, "build tree"};
    tried += "\n  " + source->string() + " (the source tree this build folder was made from)";
  }
  throw Error(
      "cannot find nbodylab's kernel sources and shaders; looked in:" + tried +
      "\nreinstall it (cmake --install BUILD --prefix PREFIX), or set NBODYLAB_ROOT to the nbodylab source folder");
}

}  // namespace

fs::path executable_dir() {
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fs::current_path();
  return exe.parent_path();
}

const ResourceRoot& resource_location() {
  static const ResourceRoot root = locate_root();
  return root;
}

const fs::path& resource_root() { return resource_location().path; }

fs::path find_resource(std::string_view relative) {
  auto path = resource_root() / relative;
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw Error("cannot find " + path.string() + " (nbodylab's resources are under " + resource_root().string() + ")");
  return path;
}

void check_kernels_workspace(const fs::path& dir) {
  std::error_code ec;
  const std::string make = "; make one with `nbodylab kernels --export DIR`";
  if (!fs::is_directory(dir, ec))
    throw InputError("kernels folder " + dir.string() + " does not exist; make one with `nbodylab kernels --export " +
                     dir.string() + "`");
  std::ifstream manifest(dir / kKernelsManifest);
  if (!manifest)
    throw InputError("kernels folder " + dir.string() + " has no " + kKernelsManifest +
                     ", which a finished `nbodylab kernels --export` writes last: it is not an export, or one that did "
                     "not finish (a full disk, an interrupted copy)" +
                     make);
  int files = 0;
  for (std::string line; std::getline(manifest, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++files;
    if (!fs::is_regular_file(dir / line, ec))
      throw InputError("kernels folder " + dir.string() + " lacks " + line + ", one of the files its export wrote (" +
                       kKernelsManifest +
                       " lists them); restore it, or make a new export with `nbodylab kernels "
                       "--export DIR`");
  }
  if (files == 0)
    throw InputError("kernels folder " + dir.string() + ": its " + kKernelsManifest + " lists no files" + make);
}

void copy_file_for_export(const fs::path& from, const fs::path& to) {
  fs::copy_file(from, to);
  // Installed files may be read-only; the copy is for editing.
  fs::permissions(to, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
}

int export_kernel_sources(const fs::path& dir, const ExportFileCopier& copy) {
  std::error_code ec;
  const fs::path target = dir.has_filename() ? dir : dir.parent_path();  // "work/" -> "work"
  if (fs::exists(target, ec)) {
    if (!fs::is_directory(target, ec))
      throw InputError("--export " + dir.string() + " is a file; give a new or empty folder");
    if (!fs::is_empty(target, ec))
      throw InputError("--export " + dir.string() +
                       " is not empty; give a new or empty folder (nothing is overwritten)");
  }
  const fs::path kernels = find_resource("cuda/kernels");
  const fs::path physics = find_resource("physics");
  // Everything goes into a staging folder beside the target, which takes the target's name only when the
  // last file and the list of them are written: an export that fails half-way leaves nothing behind.
  remove_stale_temporaries(target);
  const fs::path stage = temporary_path_for(target);
  std::vector<std::string> written;
  auto copy_folder = [&](const fs::path& from, const fs::path& to, const std::string& prefix, bool headers_only) {
    fs::create_directories(stage / to);
    for (const auto& entry : fs::directory_iterator(from)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      if (headers_only && ext != ".hpp" && ext != ".h") continue;
      copy(entry.path(), stage / to / entry.path().filename());
      written.push_back(prefix + entry.path().filename().string());
    }
  };
  try {
    copy_folder(kernels, ".", "", false);
    copy_folder(physics, "physics", "physics/", true);
    std::string list = "# Written by `nbodylab kernels --export` after every file below: `--kernels` needs them all.\n";
    for (const std::string& file : written) list += file + "\n";
    write_file_atomically(stage / kKernelsManifest, list);
    if (fs::exists(target, ec)) fs::remove(target);  // empty, as checked above
    fs::rename(stage, target);
  } catch (const std::exception& e) {
    fs::remove_all(stage, ec);
    const auto* fs_error = dynamic_cast<const fs::filesystem_error*>(&e);
    const std::string file = fs_error ? fs_error->path2().filename().string() : std::string();
    throw Error("cannot export the kernel sources to " + dir.string() + ": " +
                (fs_error ? fs_error->code().message() + (file.empty() ? "" : " (writing " + file + ")")
                          : std::string(e.what())) +
                "; nothing was left there");
  }
  return static_cast<int>(written.size());
}

}  // namespace nbl
