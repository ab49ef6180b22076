#include "sim/toggles.hpp"

#include <charconv>
#include <string>

#include "sim/error.hpp"
#include "sim/settings.hpp"

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
      if (value >= 0 && static_cast<std::size_t>(value) < t.choices.size())
        return std::string(t.choices[static_cast<std::size_t>(value)].name);
      break;
    case ToggleKind::integer: break;
  }
  return std::to_string(value);
}

std::string toggle_changes(const ToggleValues& from, const ToggleValues& to, Algorithm algorithm) {
  std::string text;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    if (kToggles[i].algorithm != algorithm || from.values[i] == to.values[i]) continue;
    text +=
        (text.empty() ? "" : ", ") + std::string(kToggles[i].key) + "=" + toggle_value_text(kToggles[i], to.values[i]);
  }
  return text;
}

int parse_toggle_value(const ToggleDef& t, std::string_view text, std::string_view name) {
  const std::string got = " (got \"" + std::string(text) + "\")";
  switch (t.kind) {
    case ToggleKind::flag:
      if (text == "on" || text == "true" || text == "1" || text == "yes") return 1;
      if (text == "off" || text == "false" || text == "0" || text == "no") return 0;
      throw InputError(std::string(name) + " takes on or off" + got);
    case ToggleKind::integer: {
      std::int64_t value = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, ec] = std::from_chars(text.data(), end, value);
      if (ec != std::errc{} || ptr != end)
        throw InputError(std::string(name) + " takes an integer" + got + "; it " + toggle_requirement(t));
      const std::string problem = toggle_problem(t, value);  // in 64 bits: 4294967552 is refused, not cut to 256
      if (!problem.empty()) throw InputError(std::string(name) + " " + problem);
      return static_cast<int>(value);
    }
    case ToggleKind::choice:
      for (std::size_t c = 0; c < t.choices.size(); ++c)
        if (t.choices[c].name == text) return static_cast<int>(c);
      throw InputError(std::string(name) + " " + toggle_requirement(t) + got);
  }
  return 0;
}

namespace {

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string toggle_keys(Algorithm algorithm) {
  std::string keys;
  for (const auto& t : kToggles)
    if (t.algorithm == algorithm) keys += (keys.empty() ? "" : ", ") + std::string(t.key);
  return keys;
}

}  // namespace

void apply_toggle_changes(std::string_view text, Algorithm algorithm, ToggleValues& values, std::string_view where,
                          const OtherChange& other) {
  const std::string prefix = std::string(where) + ": ";
  ToggleValues changed = values;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trimmed(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    const std::string key(trimmed(item.substr(0, eq)));
    if (eq == std::string_view::npos || key.empty())
      throw InputError(prefix +
                       "takes key=value items separated by commas, such as unroll=8,layout=soa or bh_sort=off (got \"" +
                       std::string(item) + "\")");
    const std::string value(trimmed(item.substr(eq + 1)));
    const ToggleDef* def = find_toggle(key);
    if (!def) {
      if (other && other(key, value, changed)) continue;
      throw InputError(prefix + "no toggle named \"" + key + "\"; the " + std::string(to_string(algorithm)) +
                       " toggles are " + toggle_keys(algorithm));
    }
    if (def->algorithm != algorithm)
      throw InputError(prefix + key + " is a " + std::string(to_string(def->algorithm)) + " toggle; these are " +
                       std::string(to_string(algorithm)) + " changes");
    changed.values[static_cast<std::size_t>(def - kToggles.data())] = parse_toggle_value(*def, value, prefix + key);
  }
  values = changed;
}

}  // namespace nbl
