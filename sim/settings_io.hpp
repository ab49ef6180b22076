// Settings as JSON: every field of Settings, toggles by their table keys, enums by name. Reading is
// strict: not JSON, a wrong type, an unknown key or a value out of range is an InputError naming the
// key, and the settings passed in are left as they were.
#pragma once
#include <cstddef>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "sim/settings.hpp"

namespace nbl {

// JSON that a person wrote (a settings file, a script), read strictly: text that is not JSON, nesting
// deeper than kMaxJsonNesting (no file of ours nests more than four levels; a hundred thousand would
// overflow the stack of whatever walks it) and a key given twice in one object (JSON readers disagree on
// which one counts) are InputErrors, `context` in front ("settings: ", "talk.json: "), naming the key.
inline constexpr int kMaxJsonNesting = 64;
nlohmann::json parse_user_json(const std::string& text, const std::string& context);

// A value as a message quotes it: its JSON text, cut after about `max_chars` characters with its full
// length said, so that a refusal never echoes a huge value whole.
std::string json_excerpt(const nlohmann::json& value, std::size_t max_chars = 60);
// The same for text already in hand (a key, a name), without quotes.
std::string text_excerpt(const std::string& text, std::size_t max_chars = 60);

std::string settings_to_json(const Settings& settings);
// Applies the keys present in `json` on top of `base` (absent keys keep base's values).
Settings settings_from_json(const std::string& json, const Settings& base = {});

Settings load_settings(const std::filesystem::path& file, const Settings& base = {});
// Writes to a temporary file next to `file`, then renames: a failed save never leaves half a file.
void save_settings(const std::filesystem::path& file, const Settings& settings);

}  // namespace nbl
