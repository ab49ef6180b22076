#include "sim/measured_figures.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

std::string text_field(const nlohmann::json& entry, const char* key, std::size_t index, bool required) {
  const auto it = entry.find(key);
  if (it == entry.end() && !required) return "";
  if (it == entry.end() || !it->is_string() || (required && it->get<std::string>().empty()))
    throw InputError("figure " + std::to_string(index) + ": '" + key + "' must be " +
                     (required ? "a non-empty string" : "a string"));
  return it->get<std::string>();
}

}  // namespace

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
    if (!entry.is_object()) throw InputError("figure " + std::to_string(i) + " is not an object");
    out.figures_.push_back({text_field(entry, "toggle", i, true), text_field(entry, "what", i, true),
                            text_field(entry, "value", i, true), text_field(entry, "gpu", i, true),
                            text_field(entry, "commit", i, true), text_field(entry, "log", i, true),
                            text_field(entry, "note", i, false)});
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

std::string MeasuredFigures::describe(std::string_view toggle) const {
  const auto figures = of(toggle);
  // One line per comparison, its values in the file's order: "rsqrtf ...: 1.34x at n = 1M, 1.50x at n = 64k".
  std::vector<std::pair<std::string, std::string>> lines;
  for (const MeasuredFigure* f : figures) {
    auto line = std::find_if(lines.begin(), lines.end(), [&](const auto& l) { return l.first == f->what; });
    if (line == lines.end()) lines.emplace_back(f->what, f->value);
    else line->second += ", " + f->value;
  }
  // Then where they come from, one line per GPU and commit, and the notes.
  std::vector<std::pair<std::string, std::string>> sources;
  std::vector<std::string> notes;
  for (const MeasuredFigure* f : figures) {
    const std::string run = f->gpu + ", commit " + f->commit;
    auto source = std::find_if(sources.begin(), sources.end(), [&](const auto& s) { return s.first == run; });
    if (source == sources.end()) sources.emplace_back(run, f->log);
    else if (source->second.find(f->log) == std::string::npos) source->second += ", " + f->log;
    if (!f->note.empty() && std::find(notes.begin(), notes.end(), f->note) == notes.end()) notes.push_back(f->note);
  }
  std::string text;
  for (const auto& [what, values] : lines) text += (text.empty() ? "" : "\n") + what + ": " + values;
  for (const auto& [run, logs] : sources) text += "\n(" + run + ": " + logs + ")";
  for (const auto& note : notes) text += "\n" + note;
  return text;
}

}  // namespace nbl
