// Whole-file reads, all-or-nothing writes, and the check every command makes of its output paths
// before it starts working (a run that cannot save its result does not start).
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbl {

// Throws InputError when the file cannot be opened or read.
std::string read_text_file(const std::filesystem::path& file);

// Writes `bytes` to a temporary file beside `file` (temporary_path_for) and renames it into place, so
// readers never see a half-written file and a failure leaves any previous file untouched. Temporary
// files of `file` left behind by a process that died (killed mid-save) are removed first. Throws Error
// on failure, with the system's reason.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

// Where a write of `target` stages its data: ".NAME.tmpPID" beside it, followed by `suffix` (a video's
// extension, so ffmpeg picks the container). Same folder, so the final rename is atomic.
std::filesystem::path temporary_path_for(const std::filesystem::path& target, std::string_view suffix = {});

// Removes the temporary files and folders of `target` (as named by temporary_path_for) whose process
// is gone; those of running processes (another save in progress) are left alone. Returns how many it
// removed. Never throws.
int remove_stale_temporaries(const std::filesystem::path& target);

// The output path check, shared by every command and made before any work starts (`option` names the
// option in messages, e.g. "--save"). Throws InputError when `file` is a folder, its folder does not
// exist or is not a folder, or nothing can be created there (read-only, no permission, /proc).
// An empty path is "not asked for" and passes.
void check_output_file(const std::filesystem::path& file, std::string_view option);

// The same for an output folder: it may exist (as a folder) or not yet; its parent must exist and
// accept new entries.
void check_output_folder(const std::filesystem::path& folder, std::string_view option);

// Outputs of one run, each (option, path): two that name the same file (by any spelling: ./a and a, a
// link to it) would overwrite each other, and are refused with an InputError naming both options. Empty
// paths are not asked for and pass.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::filesystem::path>>& outputs);

}  // namespace nbl
