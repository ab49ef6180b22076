#include "app/core/script.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "app/core/lab_commands.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/ladder.hpp"
#include "sim/resources.hpp"
#include "sim/settings_io.hpp"

namespace nbl {

using nlohmann::json;

namespace {

constexpr std::int64_t kMaxFrame = 1'000'000'000;
constexpr double kMaxTimeS = 1e7;  // about four months: anything larger is a typo
constexpr float kMaxPixels = 1e5f;
constexpr int kMaxDragFrames = 10000;

// Where each element of the top-level "events" array begins (1-based lines). nlohmann's parser does not
// report positions, so the text is scanned once more; it parsed already, so the scan can trust its shape.
std::vector<int> event_lines(const std::string& text) {
  std::vector<int> lines;
  int line = 1, depth = 0;
  bool in_string = false, escaped = false, in_events = false, expect_value = false;
  std::string string, last_string;
  bool string_done = false;  // a string just ended at depth 1: it is a key if ':' follows
  std::string key;           // the last key of the top-level object
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') {
        in_string = false;
        last_string = string;
        string_done = depth == 1;
      } else string += c;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) continue;
    if (in_events && depth == 2 && expect_value && c != ']') {
      lines.push_back(line);
      expect_value = false;
    }
    if (c == ':' && string_done) key = last_string;
    string_done = false;
    switch (c) {
      case '"':
        in_string = true;
        string.clear();
        break;
      case '{': ++depth; break;
      case '[':
        ++depth;
        if (depth == 2 && key == "events") in_events = expect_value = true;
        break;
      case '}': --depth; break;
      case ']':
        if (depth == 2) in_events = false;
        --depth;
        break;
      case ',':
        if (in_events && depth == 2) expect_value = true;
        break;
      default: break;
    }
  }
  return lines;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string key_name(int key, bool ctrl) {
  std::string name;
  constexpr int kF1 = 290, kF25 = 314;  // GLFW's function keys, F1..F25 in a row
  if (key == keys::space) name = "space";
  else if (key >= kF1 && key <= kF25) name = "f" + std::to_string(key - kF1 + 1);
  else if (key == keys::right) name = "right";
  else if (key == keys::left) name = "left";
  else if (key == keys::page_up) name = "page_up";
  else if (key == keys::page_down) name = "page_down";
  else if (key >= 'A' && key <= 'Z')
    name = std::string(1, static_cast<char>(std::tolower(key)));  // GLFW's letters: ASCII capitals
  else name = "key " + std::to_string(key);                       // a binding without a name here: kKeyBindings grew
  return ctrl ? "ctrl+" + name : name;
}

std::string action_names() {
  std::string names;
  for (const auto& a : kScriptActions) names += (names.empty() ? "" : ", ") + std::string(a.name);
  return names;
}

std::string rung_names() {
  std::string names;
  for (std::size_t r = 0; r < kLadder.size(); ++r)
    names += (names.empty() ? "" : ", ") + std::to_string(r) + " \"" + std::string(kLadder[r].name) + "\"";
  return names;
}

// Reads one entry; `fail` throws with the entry's place in front.
class EntryReader {
 public:
  EntryReader(const json& j, ScriptEntry& entry, const std::string& prefix) : j_(j), e_(entry), prefix_(prefix) {}

  [[noreturn]] void fail(const std::string& what) const { throw InputError(prefix_ + e_.where() + ": " + what); }

  void read() {
    if (!j_.is_object())
      fail("must be an object such as {\"frame\": 60, \"action\": \"stats\"} (got " + json_excerpt(j_) + ")");
    read_when();
    if (!j_.contains("action")) fail("has no \"action\"; the actions are: " + action_names());
    const json& a = j_.at("action");
    if (!a.is_string()) fail("\"action\" must be a string (got " + json_excerpt(a) + ")");
    const std::string name = a.get<std::string>();
    const auto found =
        std::find_if(kScriptActions.begin(), kScriptActions.end(), [&](const auto& n) { return n.name == name; });
    if (found == kScriptActions.end())
      fail("unknown action \"" + text_excerpt(name) + "\"; the actions are: " + action_names());
    e_.action = found->action;
    read_fields();
    for (const auto& [key, value] : j_.items())
      if (!used_.count(key))
        fail("unknown key \"" + text_excerpt(key) + "\" for the action \"" + name + "\"" + allowed_keys());
  }

 private:
  void read_when() {
    used_ = {"action", "note"};
    if (j_.contains("note") && !j_.at("note").is_string()) fail("\"note\" must be a string");
    const bool frame = j_.contains("frame"), time = j_.contains("time");
    if (frame == time)
      fail("needs exactly one of \"frame\" (a frame number) and \"time\" (seconds since the first frame)");
    if (frame) {
      used_.insert("frame");
      const json& f = j_.at("frame");
      if (!f.is_number_integer() || f.get<std::int64_t>() < 0 ||
          (f.is_number_unsigned() && f.get<std::uint64_t>() > kMaxFrame) || f.get<std::int64_t>() > kMaxFrame)
        fail("\"frame\" must be a whole number in [0, " + std::to_string(kMaxFrame) + "] (got " + json_excerpt(f) +
             ")");
      e_.frame = f.get<std::int64_t>();
    } else {
      used_.insert("time");
      const json& t = j_.at("time");
      if (!t.is_number() || !(t.get<double>() >= 0) || t.get<double>() > kMaxTimeS)
        fail("\"time\" must be a number of seconds >= 0 (got " + json_excerpt(t) + ")");
      e_.time_s = t.get<double>();
    }
  }

  const json& need(const char* key, const char* what) {
    if (!j_.contains(key)) fail("\"" + std::string(to_string(e_.action)) + "\" needs \"" + key + "\": " + what);
    used_.insert(key);
    return j_.at(key);
  }
  const json* maybe(const char* key) {
    if (!j_.contains(key)) return nullptr;
    used_.insert(key);
    return &j_.at(key);
  }

  std::array<float, 2> pair_of_numbers(const json& v, const char* key, bool nonnegative) {
    const bool ok = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() &&
                    std::abs(v[0].get<double>()) <= kMaxPixels && std::abs(v[1].get<double>()) <= kMaxPixels &&
                    (!nonnegative || (v[0].get<double>() >= 0 && v[1].get<double>() >= 0));
    if (!ok)
      fail("\"" + std::string(key) + "\" must be [x, y] in pixels" + (nonnegative ? " (>= 0)" : "") + " (got " +
           json_excerpt(v) + ")");
    return {v[0].get<float>(), v[1].get<float>()};
  }

  // A settings fragment, read by the settings file reader itself (same keys, same checks, same
  // messages), then split into the setters the panel uses.
  SettingsChange settings_change(const json& fragment, const char* key) {
    if (!fragment.is_object() || fragment.empty())
      fail("\"" + std::string(key) + "\" must be a non-empty object of settings, as in a settings file (got " +
           json_excerpt(fragment) + ")");
    Settings parsed;
    try {
      parsed = settings_from_json(fragment.dump());
    } catch (const InputError& e) {
      std::string what = e.what();
      if (what.rfind("settings: ", 0) == 0) what = what.substr(10);
      fail(std::string(key) + ": " + what);
    }
    SettingsChange change;
    auto take = [&](const std::string& k) {
      const SettingDef* s = find_setting(k);
      change.settings.emplace_back(s, s->access.get(parsed));
    };
    for (const auto& [k, v] : fragment.items()) {
      if (k == "toggles") {
        for (const auto& [t, _] : v.items()) {
          const ToggleDef* toggle = find_toggle(t);
          change.toggles.emplace_back(toggle,
                                      parsed.toggles.values[static_cast<std::size_t>(toggle - kToggles.data())]);
        }
      } else if (k == "view") {
        for (const auto& [s, _] : v.items()) take(s);
      } else if (k == "kernels_dir") {
        change.kernels_dir = parsed.kernels_dir;
      } else {
        take(k);
      }
    }
    return change;
  }

  // A rung of kLadder by its number or its name.
  std::size_t read_rung(const json& r) {
    if (r.is_number_integer() && r.get<std::int64_t>() >= 0 &&
        r.get<std::int64_t>() < static_cast<std::int64_t>(kLadder.size()))
      return static_cast<std::size_t>(r.get<std::int64_t>());
    if (r.is_string()) {
      const std::string name = lower(r.get<std::string>());
      const auto found = std::find_if(kLadder.begin(), kLadder.end(),
                                      [&](const auto& rung) { return lower(std::string(rung.name)) == name; });
      if (found == kLadder.end())
        fail("no ladder rung is named \"" + text_excerpt(r.get<std::string>()) + "\"; the rungs are: " + rung_names());
      return static_cast<std::size_t>(found - kLadder.begin());
    }
    fail("\"rung\" must be a number in [0, " + std::to_string(kLadder.size() - 1) + "] or a name (got " +
         json_excerpt(r) + "); the rungs are: " + rung_names());
  }

  void read_fields() {
    switch (e_.action) {
      case ScriptAction::set: e_.change = settings_change(need("settings", "an object of settings"), "settings"); break;
      case ScriptAction::ladder_rung: e_.rung = read_rung(need("rung", "a rung's number or name")); break;
      case ScriptAction::screenshot: {
        const json& f = need("file", "the PNG to write");
        if (!f.is_string() || f.get<std::string>().empty())
          fail("\"file\" must be a file name (got " + json_excerpt(f) + ")");
        e_.file = f.get<std::string>();
        break;
      }
      case ScriptAction::key: {
        const json& k = need("key", "one of the lab's keys");
        const std::string name = k.is_string() ? lower(k.get<std::string>()) : std::string();
        const auto found = std::find_if(kKeyBindings.begin(), kKeyBindings.end(),
                                        [&](const KeyBinding& b) { return key_name(b.key, b.ctrl) == name; });
        if (found == kKeyBindings.end()) {
          std::string names;
          for (const auto& n : script_key_names()) names += (names.empty() ? "" : ", ") + n;
          fail("\"key\" must be one of the lab's keys: " + names + " (got " + json_excerpt(k) + ")");
        }
        e_.key = found->key;
        e_.ctrl = found->ctrl;
        break;
      }
      case ScriptAction::drag: {
        e_.by = pair_of_numbers(need("by", "[dx, dy] in pixels"), "by", false);
        if (const json* b = maybe("button")) {
          const std::string name = b->is_string() ? b->get<std::string>() : "";
          if (name == "left") e_.button = MouseButton::left;
          else if (name == "right") e_.button = MouseButton::right;
          else if (name == "middle") e_.button = MouseButton::middle;
          else
            fail("\"button\" must be \"left\" (orbit), \"right\" or \"middle\" (pan) (got " + json_excerpt(*b) + ")");
        }
        if (const json* f = maybe("from")) e_.position = pair_of_numbers(*f, "from", true);
        if (const json* n = maybe("frames")) {
          if (!n->is_number_integer() || n->get<std::int64_t>() < 1 || n->get<std::int64_t>() > kMaxDragFrames)
            fail("\"frames\" must be a whole number in [1, " + std::to_string(kMaxDragFrames) + "] (got " +
                 json_excerpt(*n) + ")");
          e_.frames = n->get<int>();
        }
        break;
      }
      case ScriptAction::wheel: {
        const json& b = need("by", "wheel steps (positive: closer)");
        if (!b.is_number() || b.get<double>() == 0 || std::abs(b.get<double>()) > 1000)
          fail("\"by\" must be a non-zero number of wheel steps in [-1000, 1000] (got " + json_excerpt(b) + ")");
        e_.by = {b.get<float>(), 0};
        if (const json* a = maybe("at")) e_.position = pair_of_numbers(*a, "at", true);
        break;
      }
      case ScriptAction::ab_start: {
        // B's changes: toggles, a ladder rung, and the rows of kSettings that vary in an A/B (theta).
        json b = json::object();
        std::string rows;
        if (const json* t = maybe("toggles")) b["toggles"] = *t;
        for (const SettingDef& s : kSettings) {
          if (!s.varies_in_ab) continue;
          const std::string key(s.key);
          if (const json* v = maybe(key.c_str())) b[key] = *v;
          rows += " and/or \"" + key + "\" (B's " +
                  std::string(s.noun.starts_with("the ") ? s.noun.substr(4) : s.noun) + ")";
        }
        const json* rung = maybe("rung");
        if (b.empty() && !rung)
          fail("\"ab_start\" needs \"toggles\" (B's toggles that differ from A's), \"rung\" (a ladder rung as B)" +
               rows);
        if (!b.empty()) e_.change = settings_change(b, "ab_start");
        if (rung) {
          // The rung's all-pairs toggles (sim/ladder.hpp), then the entry's own "toggles" on top of them.
          const std::size_t r = read_rung(*rung);
          if (r == 0)
            fail("rung 0 (\"" + std::string(kLadder[0].name) +
                 "\") as B would take seconds per step at the lab's N; "
                 "`nbodylab bench ladder` times it on a sample");
          const ToggleValues values = ladder_toggles(r);
          std::vector<std::pair<const ToggleDef*, int>> toggles;
          for (std::size_t i = 0; i < kToggleCount; ++i)
            if (kToggles[i].algorithm == Algorithm::allpairs) toggles.emplace_back(&kToggles[i], values.values[i]);
          toggles.insert(toggles.end(), e_.change.toggles.begin(), e_.change.toggles.end());
          e_.change.toggles = std::move(toggles);
        }
        break;
      }
      case ScriptAction::tour: {
        const json& k = need("tour", "\"allpairs\" or \"barneshut\"");
        const auto kind = k.is_string() ? tour_kind_from(k.get<std::string>()) : std::nullopt;
        if (!kind) fail("\"tour\" must be \"allpairs\" or \"barneshut\" (got " + json_excerpt(k) + ")");
        e_.tour = *kind;
        Tour tour;
        try {
          tour = load_tour(*kind);
        } catch (const InputError& e) {
          fail(e.what());
        }
        const json& st = need("step", "the step's number (1 is the first) or its title");
        if (st.is_number_integer() && st.get<std::int64_t>() >= 1 &&
            st.get<std::int64_t>() <= static_cast<std::int64_t>(tour.steps.size())) {
          e_.tour_step = static_cast<std::size_t>(st.get<std::int64_t>() - 1);
        } else {
          const auto found =
              st.is_string()
                  ? std::find_if(tour.steps.begin(), tour.steps.end(),
                                 [&](const TourStep& t) { return lower(t.title) == lower(st.get<std::string>()); })
                  : tour.steps.end();
          if (found == tour.steps.end())
            fail("\"step\" must be a number in [1, " + std::to_string(tour.steps.size()) + "] or a step's title (got " +
                 json_excerpt(st) + ")");
          e_.tour_step = static_cast<std::size_t>(found - tour.steps.begin());
        }
        break;
      }
      case ScriptAction::predict: {
        if (const json* m = maybe("mode")) {
          const std::string mode = m->is_string() ? lower(m->get<std::string>()) : "";
          if (mode != "on" && mode != "off") fail("\"mode\" must be \"on\" or \"off\" (got " + json_excerpt(*m) + ")");
          if (j_.contains("value"))
            fail("\"predict\" takes \"value\" (a prediction) or \"mode\" (on or off), not both");
          e_.predict_mode = mode == "on";
          break;
        }
        const json& v = need("value",
                             "the speed-up the class expects of the next step (e.g. 1.5), \"tutorial\" (the "
                             "tutorial's figure) or \"skip\"; or \"mode\": \"on\" to ask before each step");
        if (v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0 && v.get<double>() <= 1e9) {
          e_.prediction = v.get<double>();
        } else if (v.is_string() && lower(v.get<std::string>()) == "tutorial") {
          e_.predict_tutorial = true;
        } else if (!(v.is_string() && lower(v.get<std::string>()) == "skip")) {
          fail(
              "\"value\" must be a speed-up above 0 (1 is as fast as the step before; 2 twice as fast), \"tutorial\" "
              "or "
              "\"skip\" (got " +
              json_excerpt(v) + ")");
        }
        break;
      }
      case ScriptAction::export_predictions: {
        const json& f = need("file", "the table to write: FILE.csv or FILE.md");
        if (!f.is_string() || f.get<std::string>().empty())
          fail("\"file\" must be a file name (got " + json_excerpt(f) + ")");
        e_.file = f.get<std::string>();
        const std::string ext = lower(e_.file.extension().string());
        if (ext != ".csv" && ext != ".md")
          fail("\"file\" must end in .csv (a table for a spreadsheet) or .md (Markdown) (got " + json_excerpt(f) + ")");
        break;
      }
      case ScriptAction::stats:
      case ScriptAction::pause:
      case ScriptAction::resume:
      case ScriptAction::quit:
      case ScriptAction::ab_stop:
      case ScriptAction::ab_swap:
      case ScriptAction::ab_make_current: break;
    }
  }

  std::string allowed_keys() const {
    std::string keys;
    for (const auto& k : used_)
      if (k != "action") keys += (keys.empty() ? "" : ", ") + ("\"" + k + "\"");
    return keys.empty() ? "" : " (it takes " + keys + ")";
  }

  const json& j_;
  ScriptEntry& e_;
  const std::string& prefix_;
  std::set<std::string> used_;
};

}  // namespace

std::string_view to_string(ScriptAction action) {
  for (const auto& a : kScriptActions)
    if (a.action == action) return a.name;
  return "?";
}

bool SettingsChange::restarts() const {
  return std::any_of(settings.begin(), settings.end(),
                     [](const auto& s) { return s.first->group == SettingGroup::restart; });
}

std::string ScriptEntry::where() const {
  return "entry " + std::to_string(index) + " (line " + std::to_string(line) + ")";
}

std::string ScriptEntry::when() const {
  if (frame) return "frame " + std::to_string(*frame);
  char text[48];
  std::snprintf(text, sizeof text, "t = %g s", time_s.value_or(0));
  return text;
}

bool Script::quits() const {
  return std::any_of(entries.begin(), entries.end(),
                     [](const ScriptEntry& e) { return e.action == ScriptAction::quit; });
}

std::vector<std::string> script_key_names() {
  std::vector<std::string> names;
  for (const KeyBinding& b : kKeyBindings) names.push_back(key_name(b.key, b.ctrl));
  return names;
}

Script parse_script(const std::string& text, const std::string& name) {
  const std::string prefix = name + ": ";
  const json j = parse_user_json(text, prefix);
  if (!j.is_object())
    throw InputError(prefix + "a script is an object {\"events\": [...]} (got " + std::string(j.type_name()) + ")");
  Script script;
  script.name = name;
  for (const auto& [key, value] : j.items()) {
    if (key == "description") {
      if (!value.is_string()) throw InputError(prefix + "\"description\" must be a string");
      script.description = value.get<std::string>();
    } else if (key != "events") {
      throw InputError(prefix + "unknown key \"" + text_excerpt(key) +
                       "\" (a script has \"description\" and \"events\")");
    }
  }
  if (!j.contains("events"))
    throw InputError(prefix + "no \"events\": a script is {\"events\": [{\"frame\": 0, \"action\": ...}, ...]}");
  const json& events = j.at("events");
  if (!events.is_array() || events.empty())
    throw InputError(prefix + "\"events\" must be a non-empty array of entries");
  const std::vector<int> lines = event_lines(text);

  const ScriptEntry* last_frame = nullptr;
  const ScriptEntry* last_time = nullptr;
  script.entries.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    ScriptEntry& entry = script.entries.emplace_back();
    entry.index = i + 1;
    entry.line = i < lines.size() ? lines[i] : 0;
    EntryReader(events[i], entry, prefix).read();
    // Entries run in file order (each waits for its frame or time, and the ones after it wait too), so a
    // frame or a time smaller than one before it would run late: the file says something it does not do.
    if (entry.frame) {
      if (last_frame && *entry.frame < *last_frame->frame)
        throw InputError(prefix + entry.where() + ": frame " + std::to_string(*entry.frame) + " comes after frame " +
                         std::to_string(*last_frame->frame) + " (" + last_frame->where() +
                         "); entries run in file order, so list them in the order they happen");
      last_frame = &entry;
    } else {
      if (last_time && *entry.time_s < *last_time->time_s)
        throw InputError(prefix + entry.where() + ": " + entry.when() + " comes after " + last_time->when() + " (" +
                         last_time->where() + "); entries run in file order, so list them in the order they happen");
      last_time = &entry;
    }
  }
  return script;
}

std::filesystem::path resolve_script_path(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::exists(file, ec) || file.has_parent_path()) return file;
  try {
    const std::filesystem::path shipped = resource_root() / "assets" / "scripts" / file;
    if (std::filesystem::exists(shipped, ec)) return shipped;
  } catch (const Error&) {
    // No resources to look in: the file is reported missing as given.
  }
  return file;
}

Script load_script(const std::filesystem::path& file) {
  const std::filesystem::path path = resolve_script_path(file);
  return parse_script(read_text_file(path), path.string());
}

}  // namespace nbl
