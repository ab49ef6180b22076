#include "app/run_options.hpp"

#include <algorithm>
#include <cmath>

#include "sim/error.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

namespace {

std::string toggle_help(const ToggleDef& t) {
  std::string help(t.help);
  switch (t.kind) {
    case ToggleKind::flag: help += " [on|off]"; break;
    case ToggleKind::integer:
      help += " [" + std::to_string(t.min_value) + ".." + std::to_string(t.max_value);
      if (t.step > 1) help += ", step " + std::to_string(t.step);
      help += "]";
      break;
    case ToggleKind::choice: {
      help += " [";
      for (std::size_t c = 0; c < t.choices.size(); ++c) help += (c ? "|" : "") + std::string(t.choices[c].name);
      help += "]";
      break;
    }
  }
  help += " (default ";
  if (t.kind == ToggleKind::choice) help += std::string(t.choices[t.default_value].name);
  else if (t.kind == ToggleKind::flag) help += t.default_value ? "on" : "off";
  else help += std::to_string(t.default_value);
  return help + ")";
}

}  // namespace

int parse_toggle_value(const ToggleDef& t, const std::string& text) {
  switch (t.kind) {
    case ToggleKind::flag:
      if (text == "on" || text == "true" || text == "1" || text == "yes") return 1;
      if (text == "off" || text == "false" || text == "0" || text == "no") return 0;
      throw InputError("--" + std::string(t.key) + " takes on or off (got \"" + text + "\")");
    case ToggleKind::integer: {
      std::size_t used = 0;
      long value = 0;
      try {
        value = std::stol(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != text.size() || text.empty() || value < t.min_value || value > t.max_value ||
          (t.step > 1 && (value - t.min_value) % t.step != 0)) {
        std::string msg = "--" + std::string(t.key) + " takes an integer in [" + std::to_string(t.min_value) +
                          ", " + std::to_string(t.max_value) + "]";
        if (t.step > 1) msg += " in steps of " + std::to_string(t.step);
        throw InputError(msg + " (got \"" + text + "\")");
      }
      return static_cast<int>(value);
    }
    case ToggleKind::choice: {
      std::string names;
      for (std::size_t c = 0; c < t.choices.size(); ++c) {
        if (t.choices[c].name == text) return static_cast<int>(c);
        names += (c ? ", " : "") + std::string(t.choices[c].name);
      }
      throw InputError("--" + std::string(t.key) + " takes one of: " + names + " (got \"" + text + "\")");
    }
  }
  return 0;
}

void RunOptions::add_to(CLI::App& app, bool with_toggles) {
  given_["settings"] = app.add_option("--settings", settings_file_,
                                      "Load settings from this JSON file first; other options override it");
  given_["scene"] = app.add_option("--scene", scene_, "Initial conditions: " + scene_names());
  given_["n"] = app.add_option("-n,--bodies", body_count_, "Number of bodies (default: what this machine runs smoothly)");
  given_["seed"] = app.add_option("--seed", seed_, "Random seed of the initial conditions");
  given_["dt"] = app.add_option("--dt", dt_, "Time step (default: the scene's)");
  given_["eps"] = app.add_option("--eps,--softening", softening_, "Plummer softening length (default: the scene's)");
  given_["theta"] = app.add_option("--theta", theta_, "Barnes-Hut opening angle (default 0.5)");
  given_["algo"] = app.add_option("--algo,--algorithm", algorithm_, "Force algorithm: " + algorithm_names());
  given_["backend"] = app.add_option("--backend", backend_, "Where to run: " + backend_names());
  given_["steps_per_frame"] =
      app.add_option("--steps-per-frame", steps_per_frame_, "Simulation steps per drawn frame (speed-up)");
  given_["load"] = app.add_option("--load", load_file_, "Start from this Tipsy snapshot instead of a scene");
  given_["save"] = app.add_option("--save", save_file_, "Write the final state to this Tipsy file");
  given_["kernels"] = app.add_option("--kernels", kernels_dir_,
                                     "Compile (and hot-reload) the GPU kernels from this folder, made by "
                                     "`nbodylab kernels --export DIR`");
  if (with_toggles) {
    for (const auto& t : kToggles) {
      const std::string key(t.key);
      std::string names = "--" + key;
      if (key.find('_') != std::string::npos) {  // --bh_sort and --bh-sort both work
        std::string dashed = key;
        std::replace(dashed.begin(), dashed.end(), '_', '-');
        names += ",--" + dashed;
      }
      given_["toggle:" + key] = app.add_option(names, toggle_text_[key], toggle_help(t))
                                    ->group(t.algorithm == Algorithm::allpairs ? "All-pairs kernel toggles"
                                                                               : "Barnes-Hut kernel toggles");
    }
  }
}

Settings RunOptions::resolve() const {
  auto given = [&](const std::string& name) {
    auto it = given_.find(name);
    return it != given_.end() && it->second && it->second->count() > 0;
  };
  Settings s = defaults_;
  if (given("settings")) s = load_settings(settings_file_, s);
  if (given("scene")) {
    const auto v = parse_scene(scene_);
    if (!v) throw InputError("--scene must be one of: " + scene_names() + " (got \"" + scene_ + "\")");
    s.scene = *v;
  }
  if (given("algo")) {
    const auto v = parse_algorithm(algorithm_);
    if (!v) throw InputError("--algo must be one of: " + algorithm_names() + " (got \"" + algorithm_ + "\")");
    s.algorithm = *v;
  }
  if (given("backend")) {
    const auto v = parse_backend(backend_);
    if (!v) throw InputError("--backend must be one of: " + backend_names() + " (got \"" + backend_ + "\")");
    s.backend = *v;
  }
  if (given("n")) s.body_count = body_count_;
  if (given("seed")) s.seed = seed_;
  if (given("dt")) s.dt = dt_;
  if (given("eps")) s.softening = softening_;
  if (given("theta")) s.opening_angle = theta_;
  if (given("steps_per_frame")) s.steps_per_frame = steps_per_frame_;
  if (given("kernels")) s.kernels_dir = kernels_dir_;
  for (const auto& t : kToggles) {
    const std::string key(t.key);
    if (given("toggle:" + key)) {
      const auto index = static_cast<std::size_t>(&t - kToggles.data());
      s.toggles.values[index] = parse_toggle_value(t, toggle_text_.at(key));
    }
  }
  validate(s);
  return s;
}

}  // namespace nbl
