// The options every command that runs a simulation shares (scene, n, seed, dt, softening, theta,
// algorithm, backend, every kernel toggle, a settings file, Tipsy load/save). Each command owns one
// RunOptions; resolve() applies them in a fixed order: defaults, then --settings FILE, then the options
// given on the command line, then validation (InputError on anything out of range).
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "sim/settings.hpp"

namespace nbl {

class RunOptions {
 public:
  // `defaults` seeds what resolve() starts from (a command may prefer, e.g., another scene).
  explicit RunOptions(Settings defaults = {}) : defaults_(std::move(defaults)) {}

  void add_to(CLI::App& app, bool with_toggles = true);
  Settings resolve() const;

  const std::string& load_file() const { return load_file_; }  // --load file.tipsy ("" if not given)
  const std::string& save_file() const { return save_file_; }  // --save file.tipsy ("" if not given)

 private:
  Settings defaults_;
  std::string settings_file_;
  std::string scene_, algorithm_, backend_;
  std::int64_t body_count_ = 0;
  std::uint64_t seed_ = 0;
  double dt_ = 0, softening_ = 0, theta_ = 0;
  int steps_per_frame_ = 1;
  std::string load_file_, save_file_, kernels_dir_;
  std::map<std::string, std::string> toggle_text_;
  std::map<std::string, CLI::Option*> given_;
};

// Parses one toggle value as written on a command line ("on", "8", "soa") into its stored int.
// Throws InputError naming the toggle and the values it accepts.
int parse_toggle_value(const ToggleDef& toggle, const std::string& text);

}  // namespace nbl
