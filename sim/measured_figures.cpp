#include "sim/measured_figures.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

std::string text_field(const nlohmann::json& entry, const char* key, const std::string& where, bool required) {
  const auto it = entry.find(key);
  if (it == entry.end() && !required) return "";
  if (it == entry.end() || !it->is_string() || (required && it->get<std::string>().empty()))
    throw InputError(where + ": '" + key + "' must be " + (required ? "a non-empty string" : "a string"));
  return it->get<std::string>();
}

MeasuredToggles toggles_field(const nlohmann::json& object, const std::string& where) {
  const auto it = object.find("toggles");
  if (it == object.end() || !it->is_object()) throw InputError(where + ": 'toggles' must be an object");
  MeasuredToggles out;
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string()) throw InputError(where + ": toggle '" + key + "' must be a string");
    out.emplace_back(key, value.get<std::string>());
  }
  return out;
}

MeasuredConfig config_field(const nlohmann::json& entry, const std::string& where) {
  const auto it = entry.find("config");
  if (it == entry.end() || !it->is_object())
    throw InputError(where + ": 'config' must be an object: the configuration the figure was measured in");
  const std::string at = where + " config";
  MeasuredConfig c;
  c.algorithm = text_field(*it, "algorithm", at, true);
  if (c.algorithm != "allpairs" && c.algorithm != "barneshut")
    throw InputError(at + ": 'algorithm' must be \"allpairs\" or \"barneshut\"");
  c.scene = text_field(*it, "scene", at, true);
  const auto bodies = it->find("bodies");
  if (bodies == it->end() || !bodies->is_number_integer() || bodies->get<std::int64_t>() < 1)
    throw InputError(at + ": 'bodies' must be a positive integer");
  c.bodies = bodies->get<std::int64_t>();
  if (const auto theta = it->find("theta"); theta != it->end()) {
    if (!theta->is_number()) throw InputError(at + ": 'theta' must be a number");
    c.theta = theta->get<double>();
  }
  c.toggles = toggles_field(*it, at);
  if (const auto varied = it->find("varied"); varied != it->end()) {
    if (!varied->is_array()) throw InputError(at + ": 'varied' must be an array of toggle keys");
    for (const auto& v : *varied) {
      if (!v.is_string()) throw InputError(at + ": 'varied' must be an array of toggle keys");
      c.varied.push_back(v.get<std::string>());
    }
  }
  c.source = text_field(*it, "source", at, true);
  return c;
}

const std::string* find_value(const MeasuredToggles& toggles, std::string_view key) {
  for (const auto& [k, v] : toggles)
    if (k == key) return &v;
  return nullptr;
}

std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Algorithm algorithm_of(const MeasuredConfig& c) {
  return c.algorithm == "allpairs" ? Algorithm::allpairs : Algorithm::barneshut;
}

}  // namespace

bool measured_in(const MeasuredToggles& measured, Algorithm algorithm, const ToggleValues& t) {
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != algorithm) continue;
    const std::string* value = find_value(measured, def.key);
    if (!value || (*value != "*" && *value != toggle_value_text(def, t.values[i]))) return false;
  }
  return true;
}

std::string describe_config(const MeasuredConfig& c) {
  std::string text = c.scene + ", " + with_commas(c.bodies) + " bodies";
  const bool barneshut = c.algorithm == "barneshut";
  const std::string* opening = find_value(c.toggles, "bh_opening");
  if (barneshut && c.theta && (!opening || *opening == "geometric")) {
    char theta[32];
    std::snprintf(theta, sizeof theta, ", theta %g", *c.theta);
    text += theta;
  }
  std::string differs, missing;
  const ToggleValues defaults;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != algorithm_of(c) || std::find(c.varied.begin(), c.varied.end(), def.key) != c.varied.end())
      continue;
    const std::string* value = find_value(c.toggles, def.key);
    if (!value) missing += (missing.empty() ? "" : ", ") + std::string(def.key);
    else if (*value != "*" && *value != toggle_value_text(def, defaults.values[i]))
      differs += (differs.empty() ? "" : ", ") + std::string(def.key) + "=" + *value;
  }
  text += differs.empty() ? "; today's defaults" : "; " + differs + " (the rest at today's defaults)";
  if (!c.varied.empty()) {
    text += "; swept: ";
    for (std::size_t i = 0; i < c.varied.size(); ++i) text += (i ? ", " : "") + c.varied[i];
  }
  if (!missing.empty()) text += "; without the toggles added since: " + missing;
  return text;
}

MeasuredFigures MeasuredFigures::parse(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("figures") || !j["figures"].is_array())
    throw InputError("expected an object with a 'figures' array");
  MeasuredFigures out;
  for (std::size_t i = 0; i < j["figures"].size(); ++i) {
    const auto& entry = j["figures"][i];
    const std::string where = "figure " + std::to_string(i);
    if (!entry.is_object()) throw InputError(where + " is not an object");
    MeasuredFigure f{text_field(entry, "toggle", where, true),
                     text_field(entry, "what", where, true),
                     text_field(entry, "value", where, true),
                     text_field(entry, "gpu", where, true),
                     text_field(entry, "commit", where, true),
                     text_field(entry, "log", where, true),
                     text_field(entry, "note", where, false),
                     text_field(entry, "kernel", where, false),
                     config_field(entry, where),
                     std::nullopt};
    if (const auto baseline = entry.find("baseline"); baseline != entry.end()) {
      if (!baseline->is_object()) throw InputError(where + ": 'baseline' must be an object with 'toggles'");
      f.baseline = toggles_field(*baseline, where + " baseline");
    }
    out.figures_.push_back(std::move(f));
  }
  return out;
}

MeasuredFigures MeasuredFigures::load(const std::filesystem::path& file) {
  const std::string text = read_text_file(file);
  try {
    return parse(text);
  } catch (const InputError& e) {
    throw InputError(file.string() + ": " + e.what());
  }
}

std::vector<const MeasuredFigure*> MeasuredFigures::of(std::string_view toggle) const {
  std::vector<const MeasuredFigure*> out;
  for (const auto& f : figures_)
    if (f.toggle == toggle) out.push_back(&f);
  return out;
}

std::vector<const MeasuredFigure*> MeasuredFigures::comparing(Algorithm algorithm, const ToggleValues& after,
                                                              const ToggleValues& before) const {
  std::vector<const MeasuredFigure*> out;
  for (const auto& f : figures_) {
    if (algorithm_of(f.config) != algorithm || !f.config.varied.empty() || !f.baseline) continue;
    if (measured_in(f.config.toggles, algorithm, after) && measured_in(*f.baseline, algorithm, before))
      out.push_back(&f);
  }
  return out;
}

std::string MeasuredFigures::describe(std::string_view toggle) const {
  const auto figures = of(toggle);
  // One line per comparison and configuration, its values in the file's order, then the configuration:
  // "rsqrtf ...: 1.34x at n = 1M" / "  plummer, 1,048,576 bodies; ...".
  struct Line {
    std::string what, config, values;
    std::vector<std::string> sources;
  };
  std::vector<Line> lines;
  std::vector<std::string> notes;
  for (const MeasuredFigure* f : figures) {
    MeasuredConfig shape = f->config;  // the configuration without its size: 1M and 64k share a line
    shape.bodies = 0;
    const std::string key = describe_config(shape);
    auto line =
        std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.what == f->what && l.config == key; });
    if (line == lines.end()) {
      lines.push_back({f->what, key, f->value, {}});
      line = lines.end() - 1;
    } else {
      line->values += ", " + f->value;
    }
    const std::string source = f->gpu + ", commit " + f->commit + ": " + f->log;
    if (std::find(line->sources.begin(), line->sources.end(), source) == line->sources.end())
      line->sources.push_back(source);
    if (!f->note.empty() && std::find(notes.begin(), notes.end(), f->note) == notes.end()) notes.push_back(f->note);
  }
  std::string text;
  for (const Line& l : lines) {
    // The configuration as written, less its "0 bodies": the values say the sizes.
    std::string config = l.config;
    const std::string size = ", 0 bodies";
    if (const auto at = config.find(size); at != std::string::npos) config.erase(at, size.size());
    text += (text.empty() ? "" : "\n") + l.what + ": " + l.values + "\n  measured in: " + config;
    for (const auto& s : l.sources) text += "\n  (" + s + ")";
  }
  for (const auto& note : notes) text += "\n" + note;
  return text;
}

}  // namespace nbl
