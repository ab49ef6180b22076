#include "sim/file_util.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "sim/error.hpp"

namespace nbl {

namespace fs = std::filesystem;

namespace {

fs::path folder_of(const fs::path& file) { return file.has_parent_path() ? file.parent_path() : fs::path("."); }

// Whether `name` is ".TARGET.tmpPID" (optionally followed by a suffix starting with '.') and, if so, the PID.
bool parse_temporary_name(const std::string& name, const std::string& target, long& pid) {
  const std::string prefix = "." + target + ".tmp";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  std::size_t end = prefix.size();
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == prefix.size() || end - prefix.size() > 9) return false;
  if (end != name.size() && name[end] != '.') return false;
  pid = std::stol(name.substr(prefix.size(), end - prefix.size()));
  return true;
}

bool process_alive(long pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

// Creates and removes a probe file in `folder`: the only reliable test that a file can be created
// there (permissions, read-only mounts, /proc, and root's exemptions all differ).
void check_can_create_in(const fs::path& folder, const fs::path& target, std::string_view option) {
  const fs::path probe = temporary_path_for(target, ".probe");
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    const int err = errno;
    throw InputError(std::string(option) + " " + target.string() + ": cannot create files in " + folder.string() +
                     " (" + std::strerror(err) + ")");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

std::string read_text_file(const fs::path& file) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError("cannot read " + file.string() + ": it is a directory, not a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot open " + file.string() + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError("cannot read " + file.string());
  return s.str();
}

fs::path temporary_path_for(const fs::path& target, std::string_view suffix) {
  return folder_of(target) /
         ("." + target.filename().string() + ".tmp" + std::to_string(::getpid()) + std::string(suffix));
}

int remove_stale_temporaries(const fs::path& target) {
  const std::string name = target.filename().string();
  if (name.empty()) return 0;
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(folder_of(target), ec), end; !ec && it != end; it.increment(ec)) {
    long pid = 0;
    if (!parse_temporary_name(it->path().filename().string(), name, pid)) continue;
    if (pid == ::getpid() || process_alive(pid)) continue;
    std::error_code remove_ec;
    if (fs::remove_all(it->path(), remove_ec) > 0 && !remove_ec) ++removed;
  }
  return removed;
}

void write_file_atomically(const fs::path& file, std::string_view bytes) {
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw Error("cannot write " + file.string() + ": it is a folder");
  remove_stale_temporaries(file);
  const auto temp = temporary_path_for(file);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      fs::remove(temp, ec);
      throw Error("cannot write " + file.string() + " (disk full?)");
    }
  }
  fs::rename(temp, file, ec);
  if (ec) {
    const std::string why = ec.message();  // before remove() reuses ec
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw Error("cannot write " + file.string() + ": " + why);
  }
}

void check_output_file(const fs::path& file, std::string_view option) {
  if (file.empty()) return;
  const std::string where = std::string(option) + " " + file.string();
  if (!file.has_filename()) throw InputError(where + ": names a folder; give a file name");
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(where + ": is a folder; give a file name");
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
    throw InputError(where + ": exists and is not a regular file");
  const fs::path folder = folder_of(file);
  if (!fs::exists(folder, ec)) throw InputError(where + ": the folder " + folder.string() + " does not exist");
  if (!fs::is_directory(folder, ec)) throw InputError(where + ": " + folder.string() + " is not a folder");
  check_can_create_in(folder, file, option);
}

void check_output_folder(const fs::path& folder, std::string_view option) {
  if (folder.empty()) return;
  const std::string where = std::string(option) + " " + folder.string();
  std::error_code ec;
  const fs::path path = folder.has_filename() ? folder : folder.parent_path();  // "frames/" -> "frames"
  if (fs::exists(path, ec)) {
    if (!fs::is_directory(path, ec)) throw InputError(where + ": exists and is not a folder");
    check_can_create_in(path, path / "x", option);
    return;
  }
  const fs::path parent = folder_of(path);
  if (!fs::exists(parent, ec)) throw InputError(where + ": the folder " + parent.string() + " does not exist");
  if (!fs::is_directory(parent, ec)) throw InputError(where + ": " + parent.string() + " is not a folder");
  check_can_create_in(parent, path, option);
}

void check_distinct_outputs(const std::vector<std::pair<std::string, fs::path>>& outputs) {
  const auto same = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (fs::equivalent(a, b, ec) && !ec) return true;  // both exist: hard links and symbolic links count
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return !ca.empty() && ca == cb;
  };
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].second.empty()) continue;
    for (std::size_t k = i + 1; k < outputs.size(); ++k) {
      if (outputs[k].second.empty() || !same(outputs[i].second, outputs[k].second)) continue;
      throw InputError(outputs[i].first + " " + outputs[i].second.string() + " and " + outputs[k].first + " " +
                       outputs[k].second.string() +
                       " name the same file, and one would overwrite the other: give each "
                       "its own");
    }
  }
}

}  // namespace nbl
