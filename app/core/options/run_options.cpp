#include "app/core/options/run_options.hpp"

#include <algorithm>
#include <cstdio>

#include "app/core/options/toggle_state.hpp"
#include "sim/error.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

namespace {

std::string toggle_help(const ToggleDef& t) {
  std::string help(t.help);
  if (t.kind == ToggleKind::integer) {
    help += " [" + std::to_string(t.min_value) + ", " + std::to_string(t.max_value) + "]";
    if (t.step > 1) help += " in steps of " + std::to_string(t.step);
  }
  help += " (default ";
  if (t.kind == ToggleKind::choice) help += std::string(t.choices[static_cast<std::size_t>(t.default_value)].name);
  else if (t.kind == ToggleKind::flag) help += t.default_value ? "on" : "off";
  else help += std::to_string(t.default_value);
  return help + ")";
}

// What --help shows in place of CLI11's TEXT.
std::string toggle_type_name(const ToggleDef& t) {
  switch (t.kind) {
    case ToggleKind::flag: return "on|off";
    case ToggleKind::integer: return "INT";
    case ToggleKind::choice: {
      std::string names;
      for (const auto& c : t.choices) names += (names.empty() ? "" : "|") + std::string(c.name);
      return names;
    }
  }
  return "";
}

}  // namespace

std::string toggle_option_name(const ToggleDef& t) {
  std::string dashed(t.key);
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return "--" + dashed;
}

int parse_toggle_value(const ToggleDef& t, const std::string& text) {
  return parse_toggle_value(t, text, toggle_option_name(t));
}

void RunOptions::add_to(CLI::App& app, bool with_toggles) {
  settings_option_ =
      app.add_option("--settings", settings_file_, "Load settings from this JSON file first; other options override it")
          ->type_name("FILE");
  settings_.add_to(app, {SettingGroup::restart, SettingGroup::live}, false, defaults_);
  app.add_option("--load", load_file_,
                 "Start from this snapshot instead of a scene: Tipsy, or HDF5 in the GADGET/SWIFT/AREPO layout "
                 "(FILE.hdf5, .h5; snap.0.hdf5 or snap.hdf5 for one split over files; docs/snapshots.md)")
      ->type_name("FILE");
  app.add_option("--save", save_file_,
                 "Write the final state to this file: FILE.hdf5 (or .h5) in GADGET-4's layout, any other name Tipsy")
      ->type_name("FILE");
  kernels_option_ = app.add_option("--kernels", kernels_dir_,
                                   "Compile (and hot-reload) the GPU kernels from this folder, made by "
                                   "`nbodylab kernels --export DIR`")
                        ->type_name("DIR");
  if (with_toggles) {
    for (const auto& t : kToggles) {
      const std::string key(t.key);
      std::string names = toggle_option_name(t);
      if (key.find('_') != std::string::npos) names += ",--" + key;  // --bh-sort and --bh_sort both work
      toggle_options_[key] =
          app.add_option(names, toggle_text_[key], toggle_help(t))
              ->type_name(toggle_type_name(t))
              ->group(t.algorithm == Algorithm::allpairs ? "All-pairs kernel toggles" : "Barnes-Hut kernel toggles");
    }
  }
}

Settings RunOptions::resolve() const {
  Settings s = defaults_;
  if (settings_option_ && settings_option_->count() > 0) s = load_settings(settings_file_, s);
  settings_.apply(s);
  if (kernels_option_ && kernels_option_->count() > 0) s.kernels_dir = kernels_dir_;
  for (const auto& [key, option] : toggle_options_) {
    if (option->count() == 0) continue;
    const ToggleDef& t = *find_toggle(key);
    s.toggles.values[static_cast<std::size_t>(&t - kToggles.data())] = parse_toggle_value(t, toggle_text_.at(key));
  }
  validate(s);
  // A toggle the user set that changes nothing with these settings: say so (once per resolve) and run.
  // With --backend auto the backend is not known yet; the CPU's reason is given only for --backend cpu.
  for (const auto& [key, option] : toggle_options_) {
    if (option->count() == 0) continue;
    const ToggleDef& t = *find_toggle(key);
    const std::string why = toggle_inert_reason(t, s, s.backend != BackendKind::cpu);
    if (!why.empty())
      std::fprintf(stderr, "nbodylab: warning: %s changes nothing here: %s\n", toggle_option_name(t).c_str(),
                   why.c_str());
  }
  return s;
}

}  // namespace nbl
