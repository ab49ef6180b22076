#include "app/core/script_runner.hpp"

#include <algorithm>
#include <cstdio>

#include "app/core/frame_sinks.hpp"
#include "app/core/text_format.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/ladder.hpp"

namespace nbl {

void apply_settings_change(const SettingsChange& change, ScriptTarget& target) {
  SettingsEditor& editor = target.editor();
  for (const auto& [setting, value] : change.settings) editor.set(*setting, value);
  for (const auto& [toggle, value] : change.toggles) editor.set_toggle(*toggle, value);
  if (change.kernels_dir) {
    editor.draft().kernels_dir = *change.kernels_dir;
    editor.changed();
  }
  if (change.restarts()) target.restart();
}

void apply_tour_step(TourKind kind, std::size_t step, SettingsEditor& editor) {
  const Tour tour = load_tour(kind);
  const TourStepSettings running = step_settings(tour, std::min(step, tour.steps.size() - 1));  // its toggles, theta
  editor.set_algorithm(running.algorithm);
  for (std::size_t i = 0; i < kToggleCount; ++i)
    if (kToggles[i].algorithm == running.algorithm) editor.set_toggle(kToggles[i], running.toggles.values[i]);
  for (const TourSetting& setting : running.settings) editor.set(*setting.setting, setting.value);
}

void ScriptRunner::check(const std::function<std::string(ScriptAction)>& cannot) const {
  for (const ScriptEntry& e : script_.entries) {
    const std::string why = cannot(e.action);
    if (!why.empty())
      throw InputError(script_.name + ": " + e.where() + ": \"" + std::string(to_string(e.action)) + "\": " + why);
    if (e.action == ScriptAction::screenshot || e.action == ScriptAction::export_predictions) {
      try {
        if (e.action == ScriptAction::screenshot) check_png_output(e.file, "screenshot");
        else check_output_file(e.file, "export_predictions");
      } catch (const InputError& error) {
        throw InputError(script_.name + ": " + e.where() + ": " + error.what());
      }
    }
  }
}

std::vector<ScriptAction> ScriptRunner::run_due(std::int64_t frame, double seconds, ScriptTarget& target) {
  std::vector<ScriptAction> ran;
  while (next_ < script_.entries.size()) {
    const ScriptEntry& e = script_.entries[next_];
    const bool due = e.frame ? frame >= *e.frame : seconds >= *e.time_s;
    if (!due) break;
    ++next_;  // before running it: an entry that fails is not retried
    if (e.action == ScriptAction::set || e.action == ScriptAction::ladder_rung || e.action == ScriptAction::tour ||
        e.action == ScriptAction::predict)
      target.editor().set_origin(script_.name + ": " + e.where() + ", \"" + std::string(to_string(e.action)) +
                                 "\" at " +
                                 e.when());  // a refusal of its settings names this entry (SettingsEditor::refusals)
    try {
      execute(e, target);
    } catch (const Error& error) {
      throw Error(script_.name + ": " + e.where() + ", \"" + std::string(to_string(e.action)) + "\" at " + e.when() +
                  ": " + error.what());
    }
    ran.push_back(e.action);
  }
  return ran;
}

std::string ScriptRunner::unfinished_note(std::int64_t frames_run) const {
  if (finished()) return "";
  const ScriptEntry& e = script_.entries[next_];
  return std::to_string(script_.entries.size() - next_) + " of " + std::to_string(script_.entries.size()) +
         " script entries did not run: the session ended after " + std::to_string(frames_run) + " frame(s), before " +
         e.where() + " at " + e.when();
}

void ScriptRunner::execute(const ScriptEntry& e, ScriptTarget& target) {
  switch (e.action) {
    case ScriptAction::set: apply_settings_change(e.change, target); break;
    case ScriptAction::ladder_rung: {
      // The rung's toggles as the ladder defines them (sim/ladder.hpp), not restated here; the ladder
      // is all-pairs, so the Barnes-Hut toggles stay as they are.
      const ToggleValues rung = ladder_toggles(e.rung);
      for (std::size_t i = 0; i < kToggleCount; ++i)
        if (kToggles[i].algorithm == Algorithm::allpairs) target.editor().set_toggle(kToggles[i], rung.values[i]);
      break;
    }
    case ScriptAction::screenshot: target.screenshot(e.file); break;
    case ScriptAction::stats: target.print_stats(); break;
    case ScriptAction::pause: target.set_paused(true); break;
    case ScriptAction::resume: target.set_paused(false); break;
    case ScriptAction::quit: target.quit(); break;
    case ScriptAction::key: target.press_key(e.key, e.ctrl); break;
    case ScriptAction::drag: target.drag(e.button, e.position, e.by, e.frames); break;
    case ScriptAction::wheel: target.scroll(e.position, e.by[0]); break;
    case ScriptAction::ab_start: target.ab_start(e.change); break;
    case ScriptAction::ab_stop: target.ab_stop(); break;
    case ScriptAction::ab_swap: target.ab_swap(); break;
    case ScriptAction::ab_make_current: target.ab_make_current(); break;
    case ScriptAction::tour: target.tour(e.tour, e.tour_step); break;
    case ScriptAction::predict:
      if (e.predict_mode) target.set_predicting(*e.predict_mode);
      else target.predict(e.prediction, e.predict_tutorial);
      break;
    case ScriptAction::export_predictions: target.export_predictions(e.file); break;
  }
}

std::string stats_line(std::int64_t frame, double seconds, const LabStats& stats, const Simulation& simulation) {
  char text[256];
  std::snprintf(text, sizeof text,
                "stats: frame %lld, t = %.2f s: %.1f FPS (frame %.2f ms: simulate %.2f, vertices %.2f, render %.2f",
                static_cast<long long>(frame), seconds, stats.fps(), stats.frame_ms.median(),
                stats.simulate_ms.median(), stats.vertices_ms.median(), stats.render_ms.median());
  std::string line = text;
  if (stats.ui_ms.count() > 0 && stats.ui_ms.max() > 0) {
    std::snprintf(text, sizeof text, ", panel %.2f", stats.ui_ms.median());
    line += text;
  }
  line += " ms, medians)";
  if (stats.has_step) {
    std::snprintf(text, sizeof text, "; step %.3f ms", stats.step_ms.median());
    line += text;
    for (const auto& [name, series] : stats.stages) {
      std::snprintf(text, sizeof text, ", %s %.3f", name.c_str(), series.median());
      line += text;
    }
    line += "; " + si(stats.median_interactions_per_s(), "") + "interactions/s (whole step)";
  }
  line += "; " + with_commas(static_cast<std::int64_t>(simulation.body_count())) + " bodies, " +
          simulation.backend().name();
  if (const std::string variant = simulation.backend().variant_label(); !variant.empty()) line += ": " + variant;
  for (const BuildProgress& b : simulation.builds())
    line += std::string("; build ") + to_string(b.state) + ": " + b.label;
  return line + "\n";
}

}  // namespace nbl
