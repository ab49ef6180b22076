// The command-line options of the scalar settings, one per row of kSettings (sim/settings_table.hpp):
// names, the type and range that --help shows, and the parsing all come from the row. Each value is
// taken as text and parsed here in 64 bits, so that `--seed -1` or `--steps-per-frame 4294967297` is
// refused with the setting's range instead of being wrapped by a conversion.
#pragma once
#include <CLI/CLI.hpp>
#include <deque>
#include <initializer_list>
#include <string>

#include "sim/settings_table.hpp"

namespace nbl {

class SettingOptions {
 public:
  // Adds an option for each row of `groups`, in the table's order (a flag's option sets it to what its
  // name says: --bbox on, --no-vsync off); the rows only the window has
  // (vsync) only when `window` is set. `defaults` is what --help names as each option's default.
  void add_to(CLI::App& app, std::initializer_list<SettingGroup> groups, bool window, const Settings& defaults,
              const std::string& help_group = "");
  // Writes the options that were given into `settings`. Throws InputError naming the option.
  void apply(Settings& settings) const;

 private:
  struct Given {
    const SettingDef* setting = nullptr;
    CLI::Option* option = nullptr;
    std::string text;  // what followed the option (flags take none)
  };
  std::deque<Given> given_;  // CLI11 keeps pointers to text and on: a deque never moves them
};

// What a flag setting's option sets: on, unless its name says --no- (--no-vsync).
bool flag_sets(const SettingDef& setting);

// How messages name a setting's option: every spelling it has, "-n/--bodies".
std::string option_names(const SettingDef& setting);

// One value as written on a command line ("0.5", "speed", "1048576"), parsed and range-checked.
// Throws InputError naming the option and what it takes.
SettingValue parse_setting_value(const SettingDef& setting, const std::string& text);

// The --help text of a setting's option: what it does, its range and its default.
std::string option_help(const SettingDef& setting, const Settings& defaults);

}  // namespace nbl
