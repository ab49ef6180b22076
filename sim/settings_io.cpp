#include "sim/settings_io.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/settings_table.hpp"

namespace nbl {

using nlohmann::json;

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& problem) {
  throw InputError("settings: '" + path + "' " + problem);
}

[[noreturn]] void wrong_type(const std::string& path, const char* expected, const json& got) {
  refuse(path, std::string("must be ") + expected + " (got " + json_excerpt(got) + ")");
}

// A JSON integer in 64 bits, before anything narrows it; nullopt when it is too large for an int64_t
// (an unsigned number above 2^63 - 1), so that a huge value is refused rather than wrapped.
std::optional<std::int64_t> as_int64(const json& j) {
  if (j.is_number_unsigned()) {
    const auto u = j.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  return j.get<std::int64_t>();
}

// The value a JSON field holds for one setting: the JSON type checked, the range not yet.
SettingValue value_from_json(const SettingDef& s, const json& j, const std::string& path) {
  if (j.is_null()) {
    if (s.unset_means) return Unset{};
    wrong_type(path, "given (it has no automatic value)", j);
  }
  switch (s.kind) {
    case SettingKind::choice: {
      if (!j.is_string()) wrong_type(path, "a string", j);
      const auto name = j.get<std::string>();
      for (const auto& c : s.choices)
        if (c.name == name) return EnumValue{c.value};
      refuse(path, "must be one of: " + choice_names(s) + " (got \"" + text_excerpt(name) + "\")");
    }
    case SettingKind::integer: {
      if (!j.is_number_integer()) wrong_type(path, "an integer", j);
      const auto v = as_int64(j);
      if (!v) refuse(path, setting_requirement(s) + " (got " + json_excerpt(j) + ")");
      return *v;
    }
    case SettingKind::unsigned64:
      if (!j.is_number_unsigned()) refuse(path, setting_requirement(s) + " (got " + json_excerpt(j) + ")");
      return j.get<std::uint64_t>();
    case SettingKind::real:
      if (!j.is_number()) wrong_type(path, "a number", j);
      return j.get<double>();
    case SettingKind::flag:
      if (!j.is_boolean()) wrong_type(path, "true or false", j);
      return j.get<bool>();
  }
  wrong_type(path, "a value", j);
}

void setting_from_json(const SettingDef& s, const json& j, const std::string& path, Settings& out) {
  const SettingValue value = value_from_json(s, j, path);
  const std::string problem = check_setting(s, value);
  if (!problem.empty()) refuse(path, problem);
  s.access.set(out, value);
}

json setting_to_json(const SettingDef& s, const SettingValue& value) {
  struct ToJson {
    const SettingDef& s;
    json operator()(Unset) const { return nullptr; }
    json operator()(bool v) const { return v; }
    json operator()(std::int64_t v) const { return v; }
    json operator()(std::uint64_t v) const { return v; }
    json operator()(double v) const { return v; }
    json operator()(EnumValue c) const { return std::string(choice_name(s, c.value)); }
  };
  return std::visit(ToJson{s}, value);
}

// A key the file has that is not where it belongs: say where it goes when it is a toggle or a setting
// of another section, the usual slip when writing a settings file by hand.
[[noreturn]] void unknown_key(const std::string& section, const std::string& key) {
  const std::string path = section.empty() ? text_excerpt(key) : section + "." + text_excerpt(key);
  std::string hint;
  if (section != "toggles" && find_toggle(key)) {
    hint = ": kernel toggles go under \"toggles\", as in {\"toggles\": {\"" + key + "\": ...}}";
  } else if (const SettingDef* s = find_setting(key)) {
    hint = s->group == SettingGroup::view
               ? ": view settings go under \"view\", as in {\"view\": {\"" + key + "\": ...}}"
               : ": '" + key + "' is a top-level key, as in {\"" + key + "\": ...}";
  }
  throw InputError("settings: unknown " + std::string(section == "toggles" ? "toggle" : "key") + " '" + path + "'" +
                   hint);
}

json toggles_to_json(const ToggleValues& values) {
  json out = json::object();
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& t = kToggles[i];
    const int v = values.values[i];
    switch (t.kind) {
      case ToggleKind::flag: out[std::string(t.key)] = v != 0; break;
      case ToggleKind::integer: out[std::string(t.key)] = v; break;
      case ToggleKind::choice:
        out[std::string(t.key)] = std::string(t.choices[static_cast<std::size_t>(v)].name);
        break;
    }
  }
  return out;
}

void toggles_from_json(const json& j, ToggleValues& values) {
  if (!j.is_object()) wrong_type("toggles", "an object", j);
  for (const auto& [key, value] : j.items()) {
    const ToggleDef* t = find_toggle(key);
    if (!t) unknown_key("toggles", key);
    const std::size_t index = static_cast<std::size_t>(t - kToggles.data());
    const std::string path = "toggles." + key;
    switch (t->kind) {
      case ToggleKind::flag:
        if (!value.is_boolean()) wrong_type(path, "true or false", value);
        values.values[index] = value.get<bool>() ? 1 : 0;
        break;
      case ToggleKind::integer: {
        if (!value.is_number_integer()) wrong_type(path, "an integer", value);
        const auto v = as_int64(value);
        const std::string problem =
            v ? toggle_problem(*t, *v) : toggle_requirement(*t) + " (got " + json_excerpt(value) + ")";
        if (!problem.empty()) refuse(path, problem);
        values.values[index] = static_cast<int>(*v);
        break;
      }
      case ToggleKind::choice: {
        if (!value.is_string()) wrong_type(path, "a string", value);
        const auto name = value.get<std::string>();
        const auto found =
            std::find_if(t->choices.begin(), t->choices.end(), [&](const auto& c) { return c.name == name; });
        if (found == t->choices.end()) refuse(path, toggle_requirement(*t) + " (got \"" + text_excerpt(name) + "\")");
        values.values[index] = static_cast<int>(found - t->choices.begin());
        break;
      }
    }
  }
}

}  // namespace

std::string text_excerpt(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  return text.substr(0, max_chars) + "... (" + std::to_string(text.size()) + " characters)";
}

std::string json_excerpt(const json& value, std::size_t max_chars) {
  // Strings are cut before dump() copies them; containers are shallow (parse_user_json), so dump() is safe.
  if (value.is_string() && value.get_ref<const std::string&>().size() > max_chars) {
    const std::string& text = value.get_ref<const std::string&>();
    std::string quoted(1, '"');
    quoted.append(text, 0, max_chars);
    return quoted.append("\"... (a string of ").append(std::to_string(text.size())).append(" characters)");
  }
  return text_excerpt(value.dump(), max_chars);
}

json parse_user_json(const std::string& text, const std::string& context) {
  // The nesting first, on the text: nlohmann's parser takes any depth, but every recursive walk of the
  // result (dump(), the readers' messages) would overflow the stack before the value could be refused.
  {
    int depth = 0, line = 1;
    bool in_string = false, escaped = false;
    for (char c : text) {
      if (c == '\n') ++line;
      if (in_string) {
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') in_string = false;
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxJsonNesting)
          throw InputError(context + "nested more than " + std::to_string(kMaxJsonNesting) + " levels deep (line " +
                           std::to_string(line) + "); nothing nbodylab reads nests more than a few");
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
  }
  // Then the parse, following the keys as it goes: a key given twice in one object is refused, and a number
  // the parser itself refuses (1e400 is beyond a double: nlohmann reports out_of_range.406, not a syntax
  // error) can be blamed on its key.
  struct Level {
    bool object = false;
    std::set<std::string> keys;
    std::string key;        // the key being read, in an object
    std::size_t index = 0;  // the element being read, in an array
  };
  std::vector<Level> levels;
  const auto where = [&levels] {  // "events[2].settings.theta", as JSON paths are written (from 0)
    std::string path;
    for (const Level& l : levels) {
      if (!l.object) path += "[" + std::to_string(l.index) + "]";
      else if (!l.key.empty()) path += (path.empty() ? "" : ".") + text_excerpt(l.key);
    }
    return path;
  };
  const auto element_done = [&levels] {
    if (!levels.empty() && !levels.back().object) ++levels.back().index;
  };
  const json::parser_callback_t follow = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: levels.push_back({true, {}, {}, 0}); break;
      case json::parse_event_t::array_start: levels.push_back({false, {}, {}, 0}); break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (!levels.empty()) levels.pop_back();
        element_done();
        break;
      case json::parse_event_t::key: {
        Level& level = levels.back();
        level.key = parsed.get<std::string>();
        if (!level.keys.insert(level.key).second)
          throw InputError(context + "the key '" + where() +
                           "' is given twice in the same object; keep one (JSON "
                           "readers differ on which one counts)");
        break;
      }
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  try {
    return json::parse(text, follow);
  } catch (const json::parse_error& e) {
    throw InputError(context + "not valid JSON: " + e.what());
  } catch (const json::exception& e) {
    const std::string path = where();
    std::string what = e.what();
    if (const auto quote = what.find("parsing '"); e.id == 406 && quote != std::string::npos) {
      const std::string number = what.substr(quote + 9, what.rfind('\'') - quote - 9);
      what = "the number " + text_excerpt(number) + " is out of range (a number can hold about +-1.8e308)";
    }
    throw InputError(context + (path.empty() ? std::string() : "'" + path + "': ") + what);
  }
}

std::string settings_to_json(const Settings& s) {
  json j = json::object();
  json view = json::object();
  for (const SettingDef& setting : kSettings) {
    json& section = setting.group == SettingGroup::view ? view : j;
    section[std::string(setting.key)] = setting_to_json(setting, setting.access.get(s));
  }
  j["toggles"] = toggles_to_json(s.toggles);
  j["view"] = view;
  // A path, not a number or a name: outside the scalar table, like the toggles. Written only when set,
  // so a settings file stays portable between machines.
  if (!s.kernels_dir.empty()) j["kernels_dir"] = s.kernels_dir;
  return j.dump(2) + "\n";
}

Settings settings_from_json(const std::string& text, const Settings& base) {
  const json j = parse_user_json(text, "settings: ");
  if (!j.is_object()) wrong_type("(top level)", "an object", j);
  Settings s = base;
  for (const auto& [key, value] : j.items()) {
    if (key == "toggles") {
      toggles_from_json(value, s.toggles);
    } else if (key == "kernels_dir") {
      if (!value.is_string()) wrong_type(key, "a folder name (a string)", value);
      s.kernels_dir = value.get<std::string>();
    } else if (key == "view") {
      if (!value.is_object()) wrong_type(key, "an object", value);
      for (const auto& [view_key, view_value] : value.items()) {
        const SettingDef* setting = find_setting(view_key);
        if (!setting || setting->group != SettingGroup::view) unknown_key("view", view_key);
        setting_from_json(*setting, view_value, "view." + view_key, s);
      }
    } else {
      const SettingDef* setting = find_setting(key);
      if (!setting || setting->group == SettingGroup::view) unknown_key("", key);
      setting_from_json(*setting, value, key, s);
    }
  }
  try {
    validate(s);
  } catch (const InputError& e) {
    throw InputError(std::string("settings: ") + e.what());
  }
  return s;
}

Settings load_settings(const std::filesystem::path& file, const Settings& base) {
  const std::string text = read_text_file(file);  // its errors name the file already
  try {
    return settings_from_json(text, base);
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
}

void save_settings(const std::filesystem::path& file, const Settings& settings) {
  write_file_atomically(file, settings_to_json(settings));
}

}  // namespace nbl
