#include "sim/settings_io.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

using nlohmann::json;

namespace {

json toggles_to_json(const ToggleValues& values) {
  json out = json::object();
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& t = kToggles[i];
    const int v = values.values[i];
    switch (t.kind) {
      case ToggleKind::flag: out[std::string(t.key)] = v != 0; break;
      case ToggleKind::integer: out[std::string(t.key)] = v; break;
      case ToggleKind::choice: out[std::string(t.key)] = std::string(t.choices[v].name); break;
    }
  }
  return out;
}

[[noreturn]] void wrong_type(const std::string& key, const char* expected, const json& got) {
  throw InputError("settings: '" + key + "' must be " + expected + " (got " + got.dump() + ")");
}

double get_number(const json& j, const std::string& key) {
  if (!j.is_number()) wrong_type(key, "a number", j);
  return j.get<double>();
}

std::int64_t get_integer(const json& j, const std::string& key) {
  if (!j.is_number_integer()) wrong_type(key, "an integer", j);
  return j.get<std::int64_t>();
}

bool get_bool(const json& j, const std::string& key) {
  if (!j.is_boolean()) wrong_type(key, "true or false", j);
  return j.get<bool>();
}

std::string get_string(const json& j, const std::string& key) {
  if (!j.is_string()) wrong_type(key, "a string", j);
  return j.get<std::string>();
}

template <typename E, typename Parse>
E get_enum(const json& j, const std::string& key, Parse parse, const std::string& names) {
  const auto text = get_string(j, key);
  const auto value = parse(text);
  if (!value) throw InputError("settings: '" + key + "' must be one of: " + names + " (got \"" + text + "\")");
  return *value;
}

void toggles_from_json(const json& j, ToggleValues& values) {
  if (!j.is_object()) wrong_type("toggles", "an object", j);
  for (const auto& [key, value] : j.items()) {
    const ToggleDef* t = find_toggle(key);
    if (!t) throw InputError("settings: unknown toggle 'toggles." + key + "'");
    const std::size_t index = static_cast<std::size_t>(t - kToggles.data());
    const std::string path = "toggles." + key;
    switch (t->kind) {
      case ToggleKind::flag: values.values[index] = get_bool(value, path) ? 1 : 0; break;
      case ToggleKind::integer: values.values[index] = static_cast<int>(get_integer(value, path)); break;
      case ToggleKind::choice: {
        const auto name = get_string(value, path);
        int found = -1;
        std::string names;
        for (std::size_t c = 0; c < t->choices.size(); ++c) {
          if (t->choices[c].name == name) found = static_cast<int>(c);
          names += (c ? ", " : "") + std::string(t->choices[c].name);
        }
        if (found < 0) throw InputError("settings: '" + path + "' must be one of: " + names + " (got \"" + name + "\")");
        values.values[index] = found;
        break;
      }
    }
  }
}

}  // namespace

std::string settings_to_json(const Settings& s) {
  json j;
  j["scene"] = std::string(to_string(s.scene));
  j["bodies"] = s.body_count ? json(*s.body_count) : json(nullptr);
  j["seed"] = s.seed;
  j["dt"] = s.dt ? json(*s.dt) : json(nullptr);
  j["softening"] = s.softening ? json(*s.softening) : json(nullptr);
  j["theta"] = s.opening_angle;
  j["algorithm"] = std::string(to_string(s.algorithm));
  j["backend"] = std::string(to_string(s.backend));
  j["steps_per_frame"] = s.steps_per_frame;
  j["kernels_dir"] = s.kernels_dir;
  j["toggles"] = toggles_to_json(s.toggles);
  j["view"] = {{"color_mode", std::string(to_string(s.view.color_mode))},
               {"point_size", s.view.point_size},
               {"exposure", s.view.exposure},
               {"octree_depth", s.view.octree_depth},
               {"show_bounding_box", s.view.show_bounding_box},
               {"show_axes", s.view.show_axes},
               {"vsync", s.view.vsync}};
  return j.dump(2) + "\n";
}

Settings settings_from_json(const std::string& text, const Settings& base) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(std::string("settings: not valid JSON: ") + e.what());
  }
  if (!j.is_object()) wrong_type("(top level)", "an object", j);
  Settings s = base;
  for (const auto& [key, value] : j.items()) {
    if (key == "scene") {
      s.scene = get_enum<Scene>(value, key, parse_scene, scene_names());
    } else if (key == "bodies") {
      if (value.is_null()) s.body_count.reset();
      else s.body_count = get_integer(value, key);
    } else if (key == "seed") {
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
        wrong_type(key, "a non-negative integer", value);
      s.seed = value.get<std::uint64_t>();
    } else if (key == "dt") {
      if (value.is_null()) s.dt.reset();
      else s.dt = get_number(value, key);
    } else if (key == "softening") {
      if (value.is_null()) s.softening.reset();
      else s.softening = get_number(value, key);
    } else if (key == "theta") {
      s.opening_angle = get_number(value, key);
    } else if (key == "algorithm") {
      s.algorithm = get_enum<Algorithm>(value, key, parse_algorithm, algorithm_names());
    } else if (key == "backend") {
      s.backend = get_enum<BackendKind>(value, key, parse_backend, backend_names());
    } else if (key == "steps_per_frame") {
      s.steps_per_frame = static_cast<int>(get_integer(value, key));
    } else if (key == "kernels_dir") {
      s.kernels_dir = get_string(value, key);
    } else if (key == "toggles") {
      toggles_from_json(value, s.toggles);
    } else if (key == "view") {
      if (!value.is_object()) wrong_type(key, "an object", value);
      for (const auto& [vk, vv] : value.items()) {
        const std::string path = "view." + vk;
        if (vk == "color_mode") s.view.color_mode = get_enum<ColorMode>(vv, path, parse_color_mode, color_mode_names());
        else if (vk == "point_size") s.view.point_size = static_cast<float>(get_number(vv, path));
        else if (vk == "exposure") s.view.exposure = static_cast<float>(get_number(vv, path));
        else if (vk == "octree_depth") s.view.octree_depth = static_cast<int>(get_integer(vv, path));
        else if (vk == "show_bounding_box") s.view.show_bounding_box = get_bool(vv, path);
        else if (vk == "show_axes") s.view.show_axes = get_bool(vv, path);
        else if (vk == "vsync") s.view.vsync = get_bool(vv, path);
        else throw InputError("settings: unknown key '" + path + "'");
      }
    } else {
      throw InputError("settings: unknown key '" + key + "'");
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
  try {
    return settings_from_json(read_text_file(file), base);
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
}

void save_settings(const std::filesystem::path& file, const Settings& settings) {
  write_file_atomically(file, settings_to_json(settings));
}

}  // namespace nbl
