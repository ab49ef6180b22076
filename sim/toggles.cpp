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

}  // namespace nbl
