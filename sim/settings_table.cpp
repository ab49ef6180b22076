#include "sim/settings_table.hpp"

#include <cmath>
#include <sstream>

namespace nbl {

namespace {

std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

std::string default_dt_rule() { return "the scene's recommended time step for this N"; }
std::string default_softening_rule() { return "the scene's recommended softening length for this N"; }

std::string json_path(const SettingDef& setting) {
  return (setting.group == SettingGroup::view ? "view." : "") + std::string(setting.key);
}

std::string cli_name(const SettingDef& setting) {
  std::string_view names = setting.cli;
  std::string_view first;
  while (!names.empty()) {
    const auto comma = names.find(',');
    const std::string_view name = names.substr(0, comma);
    if (first.empty()) first = name;
    if (name.starts_with("--")) return std::string(name);
    names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
  }
  return std::string(first);
}

std::string_view choice_name(const SettingDef& setting, int value) {
  for (const auto& c : setting.choices)
    if (c.value == value) return c.name;
  return {};
}

std::string choice_names(const SettingDef& setting, std::string_view separator) {
  std::string out;
  for (const auto& c : setting.choices) {
    if (!out.empty()) out += separator;
    out += c.name;
  }
  return out;
}

std::string format_setting(const SettingDef& setting, const SettingValue& value) {
  struct Format {
    const SettingDef& setting;
    std::string operator()(Unset) const { return "auto"; }
    std::string operator()(bool on) const { return on ? "on" : "off"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return number(v); }
    std::string operator()(EnumValue c) const {
      const auto name = choice_name(setting, c.value);
      return name.empty() ? std::to_string(c.value) : std::string(name);
    }
  };
  return std::visit(Format{setting}, value);
}

std::string setting_requirement(const SettingDef& s) {
  switch (s.kind) {
    case SettingKind::choice: return "must be one of: " + choice_names(s);
    case SettingKind::integer:
      if (s.integer_max == kNoIntegerLimit) return "must be at least " + std::to_string(s.integer_min);
      return "must lie in [" + std::to_string(s.integer_min) + ", " + std::to_string(s.integer_max) + "]";
    case SettingKind::unsigned64: return "must be a whole number from 0 to 18446744073709551615";
    case SettingKind::real:
      if (std::isinf(s.real_max)) {
        if (s.real_min == 0) return s.real_min_exclusive ? "must be a positive number" : "must be zero or positive";
        return (s.real_min_exclusive ? "must be greater than " : "must be at least ") + number(s.real_min);
      }
      return std::string("must lie in ") + (s.real_min_exclusive ? "(" : "[") + number(s.real_min) + ", " +
             number(s.real_max) + "]";
    case SettingKind::flag: return "must be on or off";
  }
  return {};
}

std::string check_setting(const SettingDef& s, const SettingValue& value) {
  if (std::holds_alternative<Unset>(value)) return s.unset_means ? "" : "must be given";
  const std::string refused = setting_requirement(s) + " (got " + format_setting(s, value) + ")";
  switch (s.kind) {
    case SettingKind::choice: {
      const auto* c = std::get_if<EnumValue>(&value);
      return c && !choice_name(s, c->value).empty() ? "" : refused;
    }
    case SettingKind::integer: {
      const auto* v = std::get_if<std::int64_t>(&value);
      return v && *v >= s.integer_min && *v <= s.integer_max ? "" : refused;
    }
    case SettingKind::unsigned64: return std::holds_alternative<std::uint64_t>(value) ? "" : refused;
    case SettingKind::real: {
      const auto* v = std::get_if<double>(&value);
      const bool above = v && (s.real_min_exclusive ? *v > s.real_min : *v >= s.real_min);
      return above && std::isfinite(*v) && *v <= s.real_max ? "" : refused;
    }
    case SettingKind::flag: return std::holds_alternative<bool>(value) ? "" : refused;
  }
  return refused;
}

std::string ab_changes(const Settings& a, const Settings& b) {
  std::string text = toggle_changes(a.toggles, b.toggles, a.algorithm);
  for (const SettingDef& s : kSettings) {
    if (!s.varies_in_ab || (s.only_for && *s.only_for != a.algorithm)) continue;
    const SettingValue value = s.access.get(b);
    if (value == s.access.get(a)) continue;
    text += (text.empty() ? "" : ", ") + std::string(s.key) + "=" + format_setting(s, value);
  }
  return text;
}

bool same_ab_settings(const Settings& a, const Settings& b) {
  if (a.toggles != b.toggles) return false;
  for (const SettingDef& s : kSettings)
    if (s.varies_in_ab && s.access.get(a) != s.access.get(b)) return false;
  return true;
}

void copy_ab_settings(Settings& to, const Settings& from) {
  to.toggles = from.toggles;
  for (const SettingDef& s : kSettings)
    if (s.varies_in_ab) s.access.set(to, s.access.get(from));
}

}  // namespace nbl
