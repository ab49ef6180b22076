#include "sim/toggles.hpp"

#include <string>

namespace nbl {

std::string toggle_requirement(const ToggleDef& t) {
  std::string text;
  switch (t.kind) {
    case ToggleKind::flag: return "takes on or off";
    case ToggleKind::choice:
      for (const auto& c : t.choices) text += (text.empty() ? "" : ", ") + std::string(c.name);
      return "must be one of: " + text;
    case ToggleKind::integer:
      text = "must lie in [" + std::to_string(t.min_value) + ", " + std::to_string(t.max_value) + "]";
      if (t.step > 1) text += " in steps of " + std::to_string(t.step);
      return text;
  }
  return text;
}

std::string toggle_problem(const ToggleDef& t, std::int64_t value) {
  const bool in_range = value >= t.min_value && value <= t.max_value;
  if (in_range && (t.step <= 1 || (value - t.min_value) % t.step == 0)) return "";
  return toggle_requirement(t) + " (got " + std::to_string(value) + ")";
}

std::string toggle_value_text(const ToggleDef& t, int value) {
  switch (t.kind) {
    case ToggleKind::flag: return value ? "on" : "off";
    case ToggleKind::choice:
      if (value >= 0 && static_cast<std::size_t>(value) < t.choices.size()) return std::string(t.choices[static_cast<std::size_t>(value)].name);
      break;
    case ToggleKind::integer: break;
  }
  return std::to_string(value);
}

std::string toggle_changes(const ToggleValues& from, const ToggleValues& to, Algorithm algorithm) {
  std::string text;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    if (kToggles[i].algorithm != algorithm || from.values[i] == to.values[i]) continue;
    text += (text.empty() ? "" : ", ") + std::string(kToggles[i].key) + "=" + toggle_value_text(kToggles[i], to.values[i]);
  }
  return text;
}

}  // namespace nbl
