// The options every command that runs a simulation shares: the scalar settings of the restart and live
// groups (scene, -n, seed, dt, softening, theta, algorithm, backend, steps per frame: one per row of
// kSettings), every kernel toggle (one per row of kToggles), a settings file, snapshot load/save. Each
// command owns one RunOptions; resolve() applies them in a fixed order: defaults, then --settings FILE,
// then the options given on the command line, then validation (InputError on anything out of range).
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "app/core/options/setting_options.hpp"
#include "sim/settings.hpp"

namespace nbl {

class RunOptions {
 public:
  // `defaults` seeds what resolve() starts from (a command may prefer, e.g., another scene).
  explicit RunOptions(Settings defaults = {}) : defaults_(std::move(defaults)) {}

  void add_to(CLI::App& app, bool with_toggles = true);
  Settings resolve() const;

  const std::string& load_file() const { return load_file_; }  // --load file.tipsy or .hdf5 ("" if not given)
  const std::string& save_file() const { return save_file_; }  // --save file.tipsy or .hdf5 ("" if not given)

 private:
  Settings defaults_;
  CLI::Option* settings_option_ = nullptr;
  std::string settings_file_;
  SettingOptions settings_;
  std::string load_file_, save_file_, kernels_dir_;
  CLI::Option* kernels_option_ = nullptr;
  std::map<std::string, std::string> toggle_text_;
  std::map<std::string, CLI::Option*> toggle_options_;
};

// A toggle's option as messages name it: the dashed spelling, "--block-size" (--block_size works too).
std::string toggle_option_name(const ToggleDef& toggle);

// One toggle value as written on a command line ("on", "8", "soa") into its stored int: the table's
// reader (sim/toggles.hpp), its InputError naming the toggle's option and the values it accepts.
int parse_toggle_value(const ToggleDef& toggle, const std::string& text);

}  // namespace nbl
