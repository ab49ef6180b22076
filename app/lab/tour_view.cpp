#include "app/lab/tour_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sim/ladder.hpp"
#include "sim/measured_figures.hpp"
#include "sim/resources.hpp"

namespace nbl {

namespace {

// The panel's colours (app/lab/panel.cpp), and the diff's.
const ImVec4 kWarning(1.0f, 0.78f, 0.35f, 1.0f);
const ImVec4 kError(1.0f, 0.45f, 0.40f, 1.0f);
const ImVec4 kGood(0.55f, 0.90f, 0.60f, 1.0f);
const ImVec4 kMuted(0.62f, 0.66f, 0.75f, 1.0f);
const ImVec4 kAccent(0.55f, 0.75f, 1.0f, 1.0f);
const ImVec4 kRemoved(1.0f, 0.55f, 0.50f, 1.0f);
const ImVec4 kAdded(0.55f, 0.92f, 0.60f, 1.0f);

void wrapped(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

void label(const char* text) {
  ImGui::Spacing();
  ImGui::TextColored(kAccent, "%s", text);
}

// What a GPU measured for exactly this step against the step before it (assets/measured/figures.json,
// scripts/measured_figures.py): figures whose configuration is the step's toggles and whose baseline is
// the previous step's, with the GPU, the scene and N they were measured at. A figure measured in another
// configuration is not shown here: it would speak for code this step does not run.
std::vector<std::string> measured_for(const Tour& tour, const TourStep& step) {
  static const MeasuredFigures figures = [] {
    try {
      return MeasuredFigures::load(find_resource("assets/measured/figures.json"));
    } catch (const std::exception&) {
      return MeasuredFigures{};
    }
  }();
  std::vector<std::string> out;
  if (!step.previous) return out;
  const ToggleValues& before = tour.steps[*step.previous].toggles;
  for (const MeasuredFigure* f : figures.comparing(tour.algorithm(), step.toggles, before)) {
    std::string bodies = std::to_string(f->config.bodies);
    for (int i = static_cast<int>(bodies.size()) - 3; i > 0; i -= 3) bodies.insert(static_cast<std::size_t>(i), ",");
    out.push_back(f->value + " (" + f->gpu + ", " + bodies + " bodies, " + f->config.scene + " scene, commit " +
                  f->commit + "; " + f->log + ")");
  }
  return out;
}

void code_section(const StepCode& code, bool first_step) {
  if (!code.problem.empty()) {
    wrapped(kError, "The kernel sources could not be read: " + code.problem);
    return;
  }
  if (first_step) {
    wrapped(kMuted, "The kernels this step runs (cuda/kernels/):");
    for (const auto& [stage, file] : code.kernels) ImGui::BulletText("%s: %s", stage.c_str(), file.c_str());
    return;
  }
  for (std::size_t k = 0; k < code.changes.size(); ++k) {
    const KernelCodeChange& c = code.changes[k];
    ImGui::PushID(static_cast<int>(k));
    if (c.file_before == c.file_after)
      ImGui::TextColored(kAccent, "%s kernel (%s)", c.kernel.c_str(), c.file_after.c_str());
    else
      ImGui::TextColored(kAccent, "%s kernel: %s -> %s", c.kernel.c_str(),
                         c.file_before.empty() ? "none" : c.file_before.c_str(),
                         c.file_after.empty() ? "none" : c.file_after.c_str());
    for (const auto& m : c.macro_changes) ImGui::BulletText("-D %s", m.c_str());
    for (const auto& o : c.option_changes) ImGui::BulletText("NVRTC option %s", o.c_str());
    if (!c.macro_lines.empty()) {
      ImGui::TextColored(kMuted, "Lines naming the step's macros:");
      for (const SourceLine& l : c.macro_lines) {
        ImGui::TextColored(kMuted, "%s:%d", l.file.c_str(), l.line);
        ImGui::SameLine();
        ImGui::TextUnformatted(l.text.c_str());
      }
    }
    if (!c.diff.empty()) {
      int changed = 0;
      for (const DiffLine& d : c.diff) changed += d.kind == '+' || d.kind == '-';
      ImGui::TextColored(kMuted, "The code the compiler sees, before -> after (%d line(s) differ):", changed);
      const float line = ImGui::GetTextLineHeightWithSpacing();
      const float rows = std::min(static_cast<float>(c.diff.size()), 18.0f);
      ImGui::BeginChild("diff", ImVec2(0, line * rows + 8), true, ImGuiWindowFlags_HorizontalScrollbar);
      for (const DiffLine& d : c.diff) {
        if (d.kind == '@') {
          ImGui::TextColored(kMuted, "@@ %s:%d", d.line.file.c_str(), d.line.line);
          continue;
        }
        const ImVec4 color = d.kind == '+' ? kAdded : d.kind == '-' ? kRemoved : kMuted;
        ImGui::TextColored(color, "%c %s", d.kind, d.line.text.c_str());
      }
      ImGui::EndChild();
    } else if (c.macro_lines.empty() && c.option_changes.empty()) {
      wrapped(kMuted, "Same source lines; only the macros above change what they compile to.");
    }
    ImGui::PopID();
    ImGui::Spacing();
  }
}

// The force loop in both compilers' counts, each row labelled with the code it counts, and the machine
// code's verdict: what a class should believe about instructions per interaction.
// The "before" (unless this is the first step) and "this step" cells of a row, the latter marked where it
// differs.
void before_after_cells(const std::string& before, const std::string& after, bool first_step) {
  if (!first_step) {
    ImGui::TableNextColumn();
    ImGui::TextColored(kMuted, "%s", before.empty() ? "-" : before.c_str());
  }
  ImGui::TableNextColumn();
  const bool differs = !first_step && before != after;
  ImGui::TextColored(differs ? kWarning : ImVec4(1, 1, 1, 1), "%s", after.empty() ? "-" : after.c_str());
}

void hot_loop_section(const HotLoopChange& loop, bool first_step) {
  ImGui::TextColored(kMuted, "The hot loop, per interaction (static counts: the instructions in the loop's code)");
  if (ImGui::BeginTable("loop", first_step ? 3 : 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("code");
    ImGui::TableSetupColumn("");
    if (!first_step) ImGui::TableSetupColumn("before");
    ImGui::TableSetupColumn("this step");
    ImGui::TableHeadersRow();
    for (const HotLoopRow& r : hot_loop_rows(loop)) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextColored(r.code == "SASS" ? kAccent : kMuted, "%s", r.code.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.label.c_str());
      before_after_cells(r.before, r.after, first_step);
    }
    ImGui::EndTable();
  }
  if (!first_step) wrapped(kWarning, loop.verdict());
}

void mix_section(const StepCode& code, bool first_step) {
  if (!code.mix_problem.empty()) {
    wrapped(kMuted, code.mix_problem);
    return;
  }
  if (!code.mix_ready) {
    wrapped(kMuted, "Compiling both sides with NVRTC and reading their machine code (no GPU needed)...");
    return;
  }
  wrapped(kMuted,
          "PTX is NVRTC's intermediate code; SASS is the machine code ptxas makes of it, what the SM runs. "
          "The two can disagree, so both are shown.");
  for (std::size_t k = 0; k < code.mix.size(); ++k) {
    const EntryMix& m = code.mix[k];
    const auto rows = mix_rows(m);
    ImGui::TextColored(kAccent, "%s (%s kernel)", m.entry.c_str(), m.kernel.c_str());
    ImGui::PushID(static_cast<int>(k));
    if (m.loop) hot_loop_section(*m.loop, first_step);
    ImGui::TextColored(kMuted, "The whole kernel (PTX counts from NVRTC, registers from ptxas)");
    if (ImGui::BeginTable("mix", first_step ? 2 : 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("");
      if (!first_step) ImGui::TableSetupColumn("before");
      ImGui::TableSetupColumn("this step");
      ImGui::TableHeadersRow();
      for (const MixRow& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.label.c_str());
        before_after_cells(r.before, r.after, first_step);
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
  if (code.mix.empty()) wrapped(kMuted, "No kernel's code changed.");
}

std::string speedup_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, v >= 100 ? "%.0fx" : "%.2fx", v);
  return text;
}

}  // namespace

std::optional<double> TourView::typed_prediction() const {
  const std::string text(prediction_text_);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str()) return std::nullopt;
  while (*end == ' ' || *end == 'x' || *end == 'X') ++end;  // "1.5x" is read as 1.5
  if (*end != '\0' || !std::isfinite(v) || !(v > 0)) return std::nullopt;
  return v;
}

// The step waits for the class: what it will change, and the question.
void TourView::prediction_card(const TourFacts& f) {
  const TourSession& session = *f.session;
  const TourStep& step = session.tour().steps[*session.awaiting()];
  label("Predict, then measure");
  wrapped(ImVec4(1, 1, 1, 1),
          "How much faster will this step run than step " + std::to_string(*step.previous + 1) +
              "? Enter the speed-up you expect (above 1 is faster, below 1 slower), then run the step.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  const bool entered = ImGui::InputText("expected speed-up##prediction", prediction_text_, sizeof prediction_text_,
                                        ImGuiInputTextFlags_CharsDecimal | ImGuiInputTextFlags_EnterReturnsTrue);
  const bool valid = typed_prediction().has_value();
  ImGui::BeginDisabled(!valid);
  if (ImGui::Button("Run the step") || (entered && valid)) commands_.push_back(LabCommand::tour_run_step);
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (ImGui::Button("Skip the prediction")) commands_.push_back(LabCommand::tour_skip_prediction);
  wrapped(kMuted, "The running kernels stay those of step " + std::to_string(session.step() + 1) +
                      " until you run this step. Right / Page Down runs it too; Left / Page Up goes back.");
  if (f.live.state == LiveSpeedup::State::no_gpu)
    wrapped(kWarning,
            "This lab runs on the CPU backend: A/B cannot run here, so the step will not be measured live. "
            "Predictions are still recorded, beside the tutorial's figures.");
}

// A predicted step: the class's figure, this machine's and the tutorial's, side by side.
void TourView::prediction_result(const TourFacts& f, const PredictionRow& row) {
  label("Predicted, measured, and the tutorial");
  if (ImGui::BeginTable("prediction", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchSame)) {
    ImGui::TableSetupColumn("predicted");
    ImGui::TableSetupColumn("live on this machine");
    ImGui::TableSetupColumn("the tutorial");
    ImGui::TableHeadersRow();
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::SetWindowFontScale(1.3f);
    ImGui::TextUnformatted(row.predicted ? speedup_text(*row.predicted).c_str() : "skipped");
    ImGui::SetWindowFontScale(1.0f);
    if (row.predicted && row.prediction_source != "the class") wrapped(kMuted, row.prediction_source);
    ImGui::TableNextColumn();
    if (row.live) {
      ImGui::SetWindowFontScale(1.3f);
      ImGui::TextColored(*row.live >= 1.0 ? kGood : kWarning, "%s", speedup_text(*row.live).c_str());
      ImGui::SetWindowFontScale(1.0f);
      if (row.live_low && row.live_high && (*row.live_low != *row.live || *row.live_high != *row.live)) {
        char interval[64];
        std::snprintf(interval, sizeof interval, "%.2f to %.2f", *row.live_low, *row.live_high);
        wrapped(kMuted, std::string(interval) + " (95% interval)");
      }
    } else {
      wrapped(kMuted, f.live.state == LiveSpeedup::State::no_gpu ? "needs a GPU: the CPU backend runs"
                      : row.live_note.empty()                    ? "measuring..."
                                                                 : row.live_note);
    }
    ImGui::TableNextColumn();
    wrapped(row.tutorial.empty() ? kMuted : ImVec4(1, 1, 1, 1),
            row.tutorial.empty() ? "not measured by the tutorial" : row.tutorial);
    ImGui::EndTable();
  }
  if (!row.code.empty())
    wrapped(kMuted, "Force loop, " + row.code + " instructions per interaction (" + row.count_kind +
                        "): " + (row.per_interaction_before.empty() ? "-" : row.per_interaction_before) + " before, " +
                        row.per_interaction_after + " now.");
}

std::vector<LabCommand> TourView::build(const TourFacts& f, float height) {
  commands_.clear();
  const TourSession& session = *f.session;
  const Tour& tour = session.tour();
  const std::size_t shown = session.awaiting().value_or(session.step());
  const TourStep& step = tour.steps[shown];
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width_, height), ImGuiCond_Always);
  ImGui::Begin("Tour", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextColored(kMuted, "TOUR  %s", tour.title.c_str());
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("Close tour").x -
                  ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::SmallButton("Close tour")) commands_.push_back(LabCommand::tour_close);

  ImGui::TextColored(kMuted, "Step %zu of %zu%s", shown + 1, tour.steps.size(),
                     session.awaiting() ? "  (waiting for a prediction)" : "");
  ImGui::SetWindowFontScale(1.45f);
  wrapped(ImVec4(1, 1, 1, 1), step.title);
  ImGui::SetWindowFontScale(1.0f);

  ImGui::BeginDisabled(!session.has_previous() && !session.awaiting());
  if (ImGui::Button("< Previous")) commands_.push_back(LabCommand::tour_previous);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!session.has_next() || session.awaiting());
  if (ImGui::Button("Next >")) commands_.push_back(LabCommand::tour_next);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  char current[160];
  std::snprintf(current, sizeof current, "%zu. %s", shown + 1, step.title.c_str());
  if (ImGui::BeginCombo("##steps", current)) {
    for (std::size_t i = 0; i < tour.steps.size(); ++i) {
      char item[160];
      std::snprintf(item, sizeof item, "%zu. %s", i + 1, tour.steps[i].title.c_str());
      if (ImGui::Selectable(item, i == shown)) jump_ = i;
    }
    ImGui::EndCombo();
  }
  bool predicting = session.predicting();
  if (ImGui::Checkbox("Predict, then measure", &predicting)) commands_.push_back(LabCommand::tour_toggle_predicting);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Before each step runs, the class enters the speed-up it expects; the step then shows the prediction "
        "beside the live measurement and the tutorial's figure, and the table exports as CSV and Markdown.");
  if (!session.predictions().empty()) {
    ImGui::SameLine();
    if (ImGui::SmallButton("Export table")) commands_.push_back(LabCommand::tour_export_predictions);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "Writes tour-%s-predictions.csv and .md beside the screenshots: per step the prediction, the live "
          "speed-up with its interval, the tutorial's figure and the force loop's instructions per interaction.",
          std::string(to_string(tour.kind)).c_str());
  }
  ImGui::Separator();

  ImGui::BeginChild("step", ImVec2(0, 0), false);
  if (session.awaiting()) {
    prediction_card(f);
    ImGui::Spacing();
    wrapped(ImVec4(0.93f, 0.94f, 0.97f, 1.0f), teaching_text(step.text));
    ImGui::Spacing();
    if (ImGui::CollapsingHeader("What this step changes in the code", ImGuiTreeNodeFlags_DefaultOpen))
      code_section(session.awaiting_code(), false);
    ImGui::EndChild();
    ImGui::End();
    return commands_;
  }
  if (!step.previous && !tour.intro.empty()) {  // the first step: what the whole tour does
    wrapped(kMuted, teaching_text(tour.intro));
    ImGui::Spacing();
  }
  if (const PredictionRow* row = session.predictions().find(session.step())) prediction_result(f, *row);
  wrapped(ImVec4(0.93f, 0.94f, 0.97f, 1.0f), teaching_text(step.text));

  label("The tutorial measured");
  const std::string tutorial = tutorial_speedup(tour, step);
  const char* none = step.previous
                         ? "Nothing: this step is beyond the tutorial."
                         : "This is the starting point; the tutorial measured each next step against the one before.";
  wrapped(tutorial.empty() ? kMuted : ImVec4(1, 1, 1, 1), tutorial.empty() ? none : tutorial);
  wrapped(kMuted, tutorial_reference(tour, step));

  label("Live on this GPU");
  const ImVec4 live_color =
      f.live.state == LiveSpeedup::State::measured ? (f.live.median >= 1.0 ? kGood : kWarning) : kMuted;
  if (f.live.state == LiveSpeedup::State::measured) {
    ImGui::SetWindowFontScale(1.3f);
    wrapped(live_color, f.live.text.substr(0, f.live.text.find(" (")));
    ImGui::SetWindowFontScale(1.0f);
    wrapped(kMuted, f.live.text.find(" (") == std::string::npos ? f.live.label
                                                                : f.live.text.substr(f.live.text.find(" (") + 1));
    // A step that reads about as fast as the one before: what the machine code says about it.
    const bool level = (f.live.low <= 1.0 && f.live.high >= 1.0) || std::abs(f.live.median - 1.0) < 0.03;
    if (level && step.previous) {
      const std::string verdict = session.machine_code_verdict();
      wrapped(kWarning,
              "Why it reads about as fast as step " + std::to_string(*step.previous + 1) + ": " +
                  (verdict.empty() ? "this step does not change the force kernel's code (its other kernels are "
                                     "in the code view below)."
                                   : verdict));
    }
  } else {
    wrapped(live_color, f.live.text);
  }
  if (step.sampled_only && f.live.state != LiveSpeedup::State::no_gpu) wrapped(kMuted, session.sampled_note());
  if (!f.running.empty()) wrapped(kMuted, f.running);
  if (!f.lab_error.empty()) wrapped(kError, f.lab_error);

  const auto measured = measured_for(tour, step);
  if (step.previous) {
    label("Measured on a GPU in this step's configuration");
    if (measured.empty())
      wrapped(kMuted,
              "Not measured in this configuration yet (scripts/measured_figures.py lists the GPU runs that "
              "would measure it).");
    for (const auto& m : measured) wrapped(ImVec4(1, 1, 1, 1), m);
  }
  if (!step.this_gpu.empty()) {
    label("On today's GPUs");
    wrapped(kWarning, teaching_text(step.this_gpu));
  }

  ImGui::Spacing();
  if (ImGui::CollapsingHeader("What changed in the code", ImGuiTreeNodeFlags_DefaultOpen))
    code_section(session.code(), !step.previous);
  if (ImGui::CollapsingHeader("What changed in the generated code", ImGuiTreeNodeFlags_DefaultOpen))
    mix_section(session.code(), !step.previous);
  if (ImGui::CollapsingHeader("All steps")) {
    for (std::size_t i = 0; i < tour.steps.size(); ++i) {
      char item[160];
      std::snprintf(item, sizeof item, "%zu. %s", i + 1, tour.steps[i].title.c_str());
      if (ImGui::Selectable(item, i == session.step())) jump_ = i;
    }
  }
  wrapped(kMuted, "Keys: Right / Page Down next step, Left / Page Up previous.");
  ImGui::EndChild();
  ImGui::End();
  return commands_;
}

}  // namespace nbl
