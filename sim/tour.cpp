#include "sim/tour.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/resources.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

namespace {

using json = nlohmann::json;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string rung_names() {
  std::string names;
  for (std::size_t r = 0; r < kLadder.size(); ++r)
    names += (names.empty() ? "" : ", ") + std::to_string(r) + " \"" + std::string(kLadder[r].name) + "\"";
  return names;
}

// The rows a tour step may set: the Barnes-Hut settings an A/B's B may differ in (theta).
bool tour_setting(const SettingDef& def) {
  return def.varies_in_ab && (!def.only_for || *def.only_for == Algorithm::barneshut);
}

class TourReader {
 public:
  explicit TourReader(std::string name) : name_(std::move(name)) {}

  Tour read(const std::string& text) {
    json j;
    try {
      j = json::parse(text);
    } catch (const json::exception& e) {
      fail("not JSON: " + std::string(e.what()));
    }
    if (!j.is_object()) fail("must be an object with \"tour\", \"title\", \"intro\" and \"steps\"");
    only(j, {"tour", "title", "intro", "start", "steps", "about"}, "the file");
    Tour t;
    const std::string kind = string(j, "tour", "the file");
    const auto k = tour_kind_from(kind);
    if (!k) fail("\"tour\" must be \"allpairs\" or \"barneshut\" (got \"" + kind + "\")");
    t.kind = *k;
    t.title = string(j, "title", "the file");
    t.intro = string(j, "intro", "the file");
    ToggleValues start;
    std::vector<TourSetting> start_settings;
    if (j.contains("start")) {
      if (t.kind != TourKind::barneshut)
        fail("\"start\" is for the Barnes-Hut tour; the all-pairs steps name ladder rungs");
      const json& st = j.at("start");
      if (!st.is_object()) fail("\"start\" must be an object with \"toggles\" and \"settings\"");
      only(st, {"toggles", "settings"}, "\"start\"");
      if (st.contains("toggles")) start = toggles_from(st.at("toggles"), "\"start\": \"toggles\"");
      if (st.contains("settings")) start_settings = settings_from(st.at("settings"), {}, "\"start\": \"settings\"");
    }
    if (t.kind == TourKind::barneshut) {
      // Every toggle and every setting a step may change, so that what a step runs (and what a measured
      // figure must have run to speak for it) never changes with the defaults.
      const json none = json::object();
      const json& st = j.contains("start") ? j.at("start") : none;
      std::string missing;
      for (const ToggleDef& def : kToggles)
        if (def.algorithm == Algorithm::barneshut &&
            !(st.contains("toggles") && st.at("toggles").contains(std::string(def.key))))
          missing += (missing.empty() ? "" : ", ") + std::string(def.key);
      if (!missing.empty()) fail("\"start\": \"toggles\" must name every Barnes-Hut toggle; it lacks " + missing);
      for (const SettingDef& def : kSettings)
        if (tour_setting(def) && !(st.contains("settings") && st.at("settings").contains(std::string(def.key))))
          missing += (missing.empty() ? "" : ", ") + std::string(def.key);
      if (!missing.empty())
        fail("\"start\": \"settings\" must name every setting a step may change; it lacks " + missing);
    }
    if (!j.contains("steps") || !j.at("steps").is_array() || j.at("steps").empty())
      fail("needs \"steps\": a non-empty array");
    const json& steps = j.at("steps");
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const std::string where = "step " + std::to_string(i + 1);
      const json& s = steps[i];
      if (!s.is_object()) fail(where + " must be an object");
      TourStep step;
      step.title = string(s, "title", where);
      step.text = string(s, "text", where);
      if (s.contains("this_gpu")) step.this_gpu = string(s, "this_gpu", where);
      if (t.kind == TourKind::allpairs) {
        only(s, {"rung", "title", "text", "this_gpu"}, where);
        step.rung = rung(s, where);
        step.toggles = ladder_toggles(*step.rung);
        step.kernel = "force";
        step.sampled_only = step.toggles.is(Choice{"parallelism", "single_thread"});
        for (std::size_t p = t.steps.size();
             p-- > 0;)  // the latest earlier step on a kept rung: what this one builds on
          if (kLadder[*t.steps[p].rung].kept) {
            step.previous = p;
            break;
          }
      } else {
        only(s, {"switch", "value", "settings", "kernel", "title", "text", "this_gpu", "tutorial", "row"}, where);
        step.kernel = s.contains("kernel") ? string(s, "kernel", where) : "";
        if (s.contains("tutorial")) step.tutorial = string(s, "tutorial", where);
        const bool first = t.steps.empty();
        step.toggles = first ? start : t.steps.back().toggles;
        step.settings = first ? start_settings : t.steps.back().settings;
        if (first && (s.contains("switch") || s.contains("value") || s.contains("settings") || s.contains("row")))
          fail(where + " shows the starting point: its configuration is \"start\", it switches nothing");
        if (s.contains("row")) {  // a note: nothing switched, and why the tutorial's row has no switch here
          step.row = string(s, "row", where);
          step.note = true;
          std::string rows;
          for (const TutorialRow& r : kTutorialRowsWithoutSwitch)
            rows += (rows.empty() ? "\"" : ", \"") + std::string(r.name) + "\"";
          if (std::none_of(kTutorialRowsWithoutSwitch.begin(), kTutorialRowsWithoutSwitch.end(),
                           [&](const TutorialRow& r) { return r.name == step.row; }))
            fail(where + ": \"row\" must name a row of the tutorial's table that has no switch: " + rows + " (got \"" +
                 step.row + "\")");
          if (s.contains("switch") || s.contains("settings"))
            fail(where + ": a step with \"row\" is a note: it switches nothing, and says why the row has no switch");
        }
        if (s.contains("settings")) {
          step.settings = settings_from(s.at("settings"), step.settings, where + ": \"settings\"");
          if (step.settings == t.steps.back().settings) fail(where + ": \"settings\" changes nothing");
        }
        if (s.contains("switch")) {
          const std::string key = string(s, "switch", where);
          step.toggle = find_toggle(key);
          if (!step.toggle || step.toggle->algorithm != Algorithm::barneshut)
            fail(where + ": \"switch\" must name a Barnes-Hut toggle (got \"" + key + "\")");
          if (!s.contains("value")) fail(where + ": \"switch\" needs \"value\"");
          json one = json::object();
          one[key] = s.at("value");
          step.value = toggles_from(one, where).values[static_cast<std::size_t>(step.toggle - kToggles.data())];
          step.toggles.values[static_cast<std::size_t>(step.toggle - kToggles.data())] = step.value;
          if (step.toggles == (t.steps.empty() ? start : t.steps.back().toggles))
            fail(where + ": " + key + " is " + toggle_value_text(*step.toggle, step.value) +
                 " already: the step changes nothing");
        } else if (s.contains("value")) {
          fail(where + ": \"value\" without \"switch\"");
        } else if (!first && !step.note && !s.contains("settings")) {
          fail(where +
               " needs \"switch\" and \"value\", or \"settings\", or a \"row\" it explains: only the first step "
               "shows the starting point");
        }
        if (!t.steps.empty()) step.previous = t.steps.size() - 1;
      }
      t.steps.push_back(std::move(step));
    }
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { throw InputError(name_ + ": " + what); }

  void only(const json& j, std::set<std::string> keys, const std::string& where) const {
    for (const auto& [k, v] : j.items())
      if (!keys.count(k)) fail(where + ": unknown key \"" + k + "\"");
  }

  std::string string(const json& j, const char* key, const std::string& where) const {
    if (!j.contains(key) || !j.at(key).is_string() || j.at(key).get<std::string>().empty())
      fail(where + " needs \"" + key + "\": a non-empty string");
    return j.at(key).get<std::string>();
  }

  std::size_t rung(const json& s, const std::string& where) const {
    if (!s.contains("rung"))
      fail(where + " needs \"rung\": a ladder rung's number or name; the rungs are: " + rung_names());
    const json& r = s.at("rung");
    if (r.is_number_integer() && r.get<std::int64_t>() >= 0 &&
        r.get<std::int64_t>() < static_cast<std::int64_t>(kLadder.size()))
      return static_cast<std::size_t>(r.get<std::int64_t>());
    if (r.is_string()) {
      const std::string name = lower(r.get<std::string>());
      for (std::size_t i = 0; i < kLadder.size(); ++i)
        if (lower(std::string(kLadder[i].name)) == name) return i;
    }
    fail(where + ": no ladder rung " + r.dump() + "; the rungs are: " + rung_names());
  }

  // Toggles by key, read as a settings file's "toggles" are (same names, ranges and messages).
  ToggleValues toggles_from(const json& toggles, const std::string& where) const {
    if (!toggles.is_object()) fail(where + " must be an object of Barnes-Hut toggles");
    for (const auto& [k, v] : toggles.items()) {
      const ToggleDef* t = find_toggle(k);
      if (!t || t->algorithm != Algorithm::barneshut) fail(where + ": \"" + k + "\" is not a Barnes-Hut toggle");
    }
    json settings = json::object();
    settings["toggles"] = toggles;
    try {
      return settings_from_json(settings.dump()).toggles;
    } catch (const InputError& e) {
      fail(where + ": " + e.what());
    }
  }

  // A setting's values by key, each a row a tour step may change (tour_setting), read as a settings file's
  // are; on top of `base`, whose order they keep (a new key goes at the end).
  std::vector<TourSetting> settings_from(const json& settings, std::vector<TourSetting> base,
                                         const std::string& where) const {
    if (!settings.is_object()) fail(where + " must be an object of settings");
    for (const auto& [k, v] : settings.items()) {
      const SettingDef* def = find_setting(k);
      if (!def || !tour_setting(*def)) {
        std::string keys;
        for (const SettingDef& d : kSettings)
          if (tour_setting(d)) keys += (keys.empty() ? "\"" : ", \"") + std::string(d.key) + "\"";
        fail(
            where + ": \"" + k + "\" is not a setting a tour step may change (" + keys +
            ": the ones an A/B's B may differ in, so a step is measured against the one before it on the same bodies)");
      }
      json one = json::object();
      one[k] = v;
      Settings parsed;
      try {
        parsed = settings_from_json(one.dump());
      } catch (const InputError& e) {
        fail(where + ": " + e.what());
      }
      TourSetting setting{def, def->access.get(parsed)};
      const auto at = std::find_if(base.begin(), base.end(), [&](const TourSetting& b) { return b.setting == def; });
      if (at != base.end()) *at = setting;
      else base.push_back(setting);
    }
    return base;
  }

  std::string name_;
};

std::string fixed(double v, const char* format = "%.2fx") {
  char text[32];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

std::string_view to_string(TourKind kind) { return kind == TourKind::allpairs ? "allpairs" : "barneshut"; }

std::optional<TourKind> tour_kind_from(std::string_view name) {
  if (name == "allpairs") return TourKind::allpairs;
  if (name == "barneshut") return TourKind::barneshut;
  return std::nullopt;
}

const ToggleValues& Tour::running_toggles(std::size_t step) const {
  const TourStep& s = steps.at(step);
  if (!s.sampled_only) return s.toggles;
  for (std::size_t i = step + 1; i < steps.size(); ++i)
    if (!steps[i].sampled_only) return steps[i].toggles;
  return s.toggles;
}

Tour parse_tour(const std::string& text, const std::string& name) { return TourReader(name).read(text); }

std::filesystem::path tour_file(TourKind kind) {
  return find_resource("assets/tour/" + std::string(to_string(kind)) + ".json");
}

Tour load_tour(TourKind kind) {
  const std::filesystem::path file = tour_file(kind);
  std::ifstream in(file);
  if (!in) throw InputError("cannot read the tour " + file.string());
  std::stringstream text;
  text << in.rdbuf();
  return parse_tour(text.str(), file.string());
}

namespace {

// The tutorial's figures for a Barnes-Hut step: its switch's (the toggle's `tutorial` text), or for a note
// its row's; "" beyond the tutorial and where the tutorial measured nothing on its own.
std::string_view tutorial_figures(const TourStep& step) {
  if (step.tutorial.empty()) return "";
  if (step.note)
    for (const TutorialRow& r : kTutorialRowsWithoutSwitch)
      if (r.name == step.row) return r.figures;
  return step.toggle ? step.toggle->tutorial : std::string_view();
}

}  // namespace

std::vector<double> tutorial_speedups(const Tour& tour, const TourStep& step) {
  std::vector<double> values;
  if (tour.kind == TourKind::allpairs) {
    const LadderRung& r = kLadder[*step.rung];
    for (double v : {r.speedup_cc13, r.speedup_cc20, r.speedup_cc30})
      if (v > 0) values.push_back(v);
    return values;
  }
  // "1.43x (50k), 1.47x (500k), 1.46x (5M)": every number followed by an x.
  const std::string_view text = tutorial_figures(step);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) ||
        (i > 0 && (std::isdigit(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')))
      continue;
    std::size_t end = i;
    while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
    if (end < text.size() && text[end] == 'x') values.push_back(std::stod(std::string(text.substr(i, end - i))));
  }
  return values;
}

std::string tutorial_speedup(const Tour& tour, const TourStep& step) {
  if (tour.kind == TourKind::allpairs) {
    const LadderRung& r = kLadder[*step.rung];
    if (r.speedup_cc13 <= 0 && r.speedup_cc20 <= 0 && r.speedup_cc30 <= 0) return "";
    const char* format = r.speedup_cc13 >= 100 ? "%.0fx" : "%.2fx";
    return fixed(r.speedup_cc13, format) + " on a Quadro FX 5800 (CC 1.3), " + fixed(r.speedup_cc20, format) +
           " on a Tesla C2050 (CC 2.0), " + fixed(r.speedup_cc30, format) + " on a GeForce GTX 680 (CC 3.0)";
  }
  if (step.tutorial.empty() || !step.previous) return "";  // beyond the tutorial, or its starting point
  const std::string_view text = tutorial_figures(step);
  if (text.empty())
    return "Not measured on its own: the tutorial's Kernel Speedups table (Part II, slide 103) has no column for it.";
  const std::vector<double> v = tutorial_speedups(tour, step);
  if (v.size() == 3)
    return fixed(v[0]) + " at 50,000 bodies, " + fixed(v[1]) + " at 500,000, " + fixed(v[2]) +
           " at 5,000,000 (GeForce GTX 480, Fermi)";
  return std::string(text);
}

std::string teaching_text(std::string_view text) {
  std::string out;
  const std::string_view tag = "[tutorial:";
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find(tag, at);
    const std::size_t end = start == std::string_view::npos ? start : text.find(']', start);
    if (end == std::string_view::npos) {
      out += text.substr(at);
      break;
    }
    std::string_view where = text.substr(start + tag.size(), end - start - tag.size());
    while (!where.empty() && where.front() == ' ') where.remove_prefix(1);
    out += text.substr(at, start - at);
    out += "(the tutorial, " + std::string(where) + ")";
    at = end + 1;
  }
  return out;
}

std::string tutorial_reference(const Tour& tour, const TourStep& step) {
  if (tour.kind == TourKind::allpairs) return std::string(kLadder[*step.rung].reference);
  if (step.tutorial.empty()) return "beyond the tutorial";
  return "Burtscher's tutorial, " + step.tutorial +
         (tutorial_figures(step).empty() ? "" : "; its figures: Part II, Kernel Speedups (slide 103)");
}

const TourSetting* find_tour_setting(const TourStep& step, std::string_view key) {
  for (const TourSetting& s : step.settings)
    if (s.setting->key == key) return &s;
  return nullptr;
}

TourStepSettings step_settings(const Tour& tour, std::size_t step) {
  TourStepSettings out;
  out.algorithm = tour.algorithm();
  out.toggles = tour.running_toggles(step);
  out.settings = tour.steps.at(step).settings;
  return out;
}

Settings with_step_settings(const Tour& tour, std::size_t step, Settings base) {
  const TourStepSettings s = step_settings(tour, step);
  base.algorithm = s.algorithm;
  for (std::size_t i = 0; i < kToggleCount; ++i)
    if (kToggles[i].algorithm == s.algorithm) base.toggles.values[i] = s.toggles.values[i];
  for (const TourSetting& t : s.settings) t.setting->access.set(base, t.value);
  return base;
}

}  // namespace nbl
