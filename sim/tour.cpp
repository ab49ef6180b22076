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
    if (j.contains("start")) {
      if (t.kind != TourKind::barneshut) fail("\"start\" is for the Barnes-Hut tour; the all-pairs steps name ladder rungs");
      start = toggles_from(j.at("start"), "\"start\"");
    }
    if (t.kind == TourKind::barneshut) {
      // Every toggle, so that what a step runs (and what a measured figure must have run to speak for it)
      // never changes with the defaults.
      std::string missing;
      for (const ToggleDef& def : kToggles)
        if (def.algorithm == Algorithm::barneshut && !(j.contains("start") && j.at("start").contains(std::string(def.key))))
          missing += (missing.empty() ? "" : ", ") + std::string(def.key);
      if (!missing.empty()) fail("\"start\" must name every Barnes-Hut toggle; it lacks " + missing);
    }
    if (!j.contains("steps") || !j.at("steps").is_array() || j.at("steps").empty()) fail("needs \"steps\": a non-empty array");
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
        for (std::size_t p = t.steps.size(); p-- > 0;)  // the latest earlier step on a kept rung: what this one builds on
          if (kLadder[*t.steps[p].rung].kept) {
            step.previous = p;
            break;
          }
      } else {
        only(s, {"switch", "value", "kernel", "title", "text", "this_gpu"}, where);
        step.kernel = s.contains("kernel") ? string(s, "kernel", where) : "";
        step.toggles = t.steps.empty() ? start : t.steps.back().toggles;
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
            fail(where + ": " + key + " is " + toggle_value_text(*step.toggle, step.value) + " already: the step changes nothing");
        } else if (!t.steps.empty()) {
          fail(where + " needs \"switch\" and \"value\": only the first step shows the starting point");
        } else if (s.contains("value")) {
          fail(where + ": \"value\" without \"switch\"");
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
    if (!s.contains("rung")) fail(where + " needs \"rung\": a ladder rung's number or name; the rungs are: " + rung_names());
    const json& r = s.at("rung");
    if (r.is_number_integer() && r.get<std::int64_t>() >= 0 && r.get<std::int64_t>() < static_cast<std::int64_t>(kLadder.size()))
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

std::vector<double> tutorial_speedups(const Tour& tour, const TourStep& step) {
  std::vector<double> values;
  if (tour.kind == TourKind::allpairs) {
    const LadderRung& r = kLadder[*step.rung];
    for (double v : {r.speedup_cc13, r.speedup_cc20, r.speedup_cc30})
      if (v > 0) values.push_back(v);
    return values;
  }
  if (!step.toggle) return values;
  // The switch's text: "1.43x (50k), 1.47x (500k), 1.46x (5M)": every number followed by an x.
  const std::string_view text = step.toggle->tutorial;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || (i > 0 && (std::isdigit(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')))
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
  if (!step.toggle || step.toggle->tutorial.empty()) return "";
  const std::vector<double> v = tutorial_speedups(tour, step);
  if (v.size() == 3) return fixed(v[0]) + " at 50,000 bodies, " + fixed(v[1]) + " at 500,000, " + fixed(v[2]) + " at 5,000,000 (GeForce GTX 480, Fermi)";
  return std::string(step.toggle->tutorial);
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
  return step.toggle && !step.toggle->tutorial.empty() ? "Burtscher's tutorial, Part II: Kernel Speedups (slide 103)"
         : step.toggle                                  ? "beyond the tutorial"
                                                        : "Burtscher's tutorial, Part II: Six GPU Kernels (slide 86)";
}

}  // namespace nbl
