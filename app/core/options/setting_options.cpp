#include "app/core/options/setting_options.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <sstream>
#include <system_error>

#include "sim/error.hpp"

namespace nbl {

namespace {

// The option names of a row, one by one: "-n,--bodies" -> "-n", "--bodies".
std::vector<std::string> split_names(std::string_view names) {
  std::vector<std::string> out;
  while (!names.empty()) {
    const auto comma = names.find(',');
    out.emplace_back(names.substr(0, comma));
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
  }
  return out;
}

// What --help shows in place of CLI11's TEXT.
std::string type_name(const SettingDef& s) {
  switch (s.kind) {
    case SettingKind::choice: return choice_names(s, "|");
    case SettingKind::integer:
    case SettingKind::unsigned64: return "INT";
    case SettingKind::real: return "NUMBER";
    case SettingKind::flag: return "";
  }
  return "";
}

// The range in a few characters, for --help: "[1, 1000]", "> 0", ">= 1".
std::string range_text(const SettingDef& s) {
  auto number = [](double v) {
    std::ostringstream text;
    text << v;
    return text.str();
  };
  switch (s.kind) {
    case SettingKind::integer:
      if (s.integer_max == kNoIntegerLimit) return ">= " + std::to_string(s.integer_min);
      return "[" + std::to_string(s.integer_min) + ", " + std::to_string(s.integer_max) + "]";
    case SettingKind::unsigned64: return "0 to 2^64 - 1";
    case SettingKind::real:
      if (std::isinf(s.real_max)) return (s.real_min_exclusive ? "> " : ">= ") + number(s.real_min);
      return (s.real_min_exclusive ? "(" : "[") + number(s.real_min) + ", " + number(s.real_max) + "]";
    case SettingKind::choice:
    case SettingKind::flag: return "";
  }
  return "";
}

template <typename T>
std::from_chars_result parse_number(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, value);
  if (result.ec == std::errc{} && result.ptr != end) result.ec = std::errc::invalid_argument;  // "12abc"
  return result;
}

}  // namespace

bool flag_sets(const SettingDef& setting) { return !cli_name(setting).starts_with("--no-"); }

std::string option_names(const SettingDef& setting) {
  std::string out;
  for (const auto& name : split_names(setting.cli)) out += (out.empty() ? "" : "/") + name;
  return out;
}

SettingValue parse_setting_value(const SettingDef& s, const std::string& text) {
  const std::string option = option_names(s);
  const auto refuse = [&](const std::string& what) {
    return InputError(option + " " + what + " (got \"" + text + "\")");
  };
  SettingValue value;
  switch (s.kind) {
    case SettingKind::choice: {
      const auto found =
          std::find_if(s.choices.begin(), s.choices.end(), [&](const EnumName& c) { return c.name == text; });
      if (found == s.choices.end()) throw refuse("must be one of: " + choice_names(s));
      value = EnumValue{found->value};
      break;
    }
    case SettingKind::integer: {
      std::int64_t v = 0;
      const auto r = parse_number(text, v);
      if (r.ec == std::errc::result_out_of_range) throw refuse(setting_requirement(s));
      if (r.ec != std::errc{}) throw refuse("takes a whole number, " + range_text(s));
      value = v;
      break;
    }
    case SettingKind::unsigned64: {
      std::uint64_t v = 0;  // from_chars refuses a sign, so "-1" cannot wrap to 2^64 - 1
      if (parse_number(text, v).ec != std::errc{}) throw refuse(setting_requirement(s));
      value = v;
      break;
    }
    case SettingKind::real: {
      double v = 0;
      const auto r = parse_number(text, v);
      if (r.ec == std::errc::result_out_of_range) throw refuse(setting_requirement(s));
      if (r.ec != std::errc{}) throw refuse("takes a number");
      value = v;
      break;
    }
    case SettingKind::flag:
      if (text == "on" || text == "true") value = true;
      else if (text == "off" || text == "false") value = false;
      else throw refuse("takes on or off");
      break;
  }
  const std::string problem = check_setting(s, value);
  if (!problem.empty()) throw InputError(option + " " + problem);
  return value;
}

std::string option_help(const SettingDef& s, const Settings& defaults) {
  std::string help(s.help);
  if (s.kind == SettingKind::flag && !flag_sets(s) && !help.empty()) {  // --no-vsync: "Turn off: wait for ..."
    help[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(help[0])));
    help = "Turn off: " + help;
  }
  if (s.only_for)
    help += std::string(" ") + (*s.only_for == Algorithm::barneshut ? "Barnes-Hut" : "All-pairs") + " only.";
  if (const auto range = range_text(s); !range.empty()) help += " Range " + range + ".";
  if (!s.zero_means.empty()) help += " 0: " + std::string(s.zero_means) + ".";
  const SettingValue fallback = s.access.get(defaults);
  if (s.unset_means && std::holds_alternative<Unset>(fallback)) help += " Default: " + s.unset_means() + ".";
  else help += " Default " + format_setting(s, fallback) + ".";
  return help;
}

void SettingOptions::add_to(CLI::App& app, std::initializer_list<SettingGroup> groups, bool window,
                            const Settings& defaults, const std::string& help_group) {
  for (const SettingDef& s : kSettings) {
    if (std::find(groups.begin(), groups.end(), s.group) == groups.end() || (s.window_only && !window)) continue;
    Given& g = given_.emplace_back();
    g.setting = &s;
    if (s.kind == SettingKind::flag) {
      g.option = app.add_flag(std::string(s.cli))->description(option_help(s, defaults));
    } else {
      g.option = app.add_option(std::string(s.cli), g.text, option_help(s, defaults))->type_name(type_name(s));
    }
    if (!help_group.empty()) g.option->group(help_group);
  }
}

void SettingOptions::apply(Settings& settings) const {
  for (const Given& g : given_) {
    if (g.option->count() == 0) continue;
    g.setting->access.set(settings, g.setting->kind == SettingKind::flag ? SettingValue{flag_sets(*g.setting)}
                                                                         : parse_setting_value(*g.setting, g.text));
  }
}

}  // namespace nbl
