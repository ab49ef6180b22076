// Whole-file reads and all-or-nothing writes, shared by every format the program reads and writes.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace nbl {

// Throws InputError when the file cannot be opened or read.
std::string read_text_file(const std::filesystem::path& file);

// Writes `bytes` to a temporary file beside `file` and renames it into place, so readers never see a
// half-written file and a failure leaves any previous file untouched. Throws Error on failure.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

}  // namespace nbl
