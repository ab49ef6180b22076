#include "sim/file_util.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "sim/error.hpp"

namespace nbl {

std::string read_text_file(const std::filesystem::path& file) {
  // A directory opens (Linux lets an ifstream open one) and reads as nothing: say what it is instead.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw InputError("cannot read " + file.string() + ": it is a directory, not a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot open " + file.string() + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw InputError("cannot read " + file.string());
  return s.str();
}

void write_file_atomically(const std::filesystem::path& file, std::string_view bytes) {
  const auto dir = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  const auto temp = dir / ("." + file.filename().string() + ".tmp" + std::to_string(::getpid()));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + file.string() + ": " + std::strerror(errno));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw Error("cannot write " + file.string() + " (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, file, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw Error("cannot write " + file.string() + ": " + ec.message());
  }
}

}  // namespace nbl
