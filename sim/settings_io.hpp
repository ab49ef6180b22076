// Settings as JSON: every field of Settings, toggles by their table keys, enums by name. Reading is
// strict: not JSON, a wrong type, an unknown key or a value out of range is an InputError naming the
// key, and the settings passed in are left as they were.
#pragma once
#include <filesystem>
#include <string>

#include "sim/settings.hpp"

namespace nbl {

std::string settings_to_json(const Settings& settings);
// Applies the keys present in `json` on top of `base` (absent keys keep base's values).
Settings settings_from_json(const std::string& json, const Settings& base = {});

Settings load_settings(const std::filesystem::path& file, const Settings& base = {});
// Writes to a temporary file next to `file`, then renames: a failed save never leaves half a file.
void save_settings(const std::filesystem::path& file, const Settings& settings);

}  // namespace nbl
