#include "app/lab/tour_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

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
    out.push_back(f->value + " (" + f->gpu + ", " + bodies + " bodies, " + f->config.scene + " scene, commit " + f->commit +
                  "; " + f->log + ")");
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
      ImGui::TextColored(kAccent, "%s kernel: %s -> %s", c.kernel.c_str(), c.file_before.empty() ? "none" : c.file_before.c_str(),
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

void mix_section(const StepCode& code, bool first_step) {
  if (!code.mix_problem.empty()) {
    wrapped(kMuted, code.mix_problem);
    return;
  }
  if (!code.mix_ready) {
    wrapped(kMuted, "Compiling both sides with NVRTC (no GPU needed)...");
    return;
  }
  for (std::size_t k = 0; k < code.mix.size(); ++k) {
    const EntryMix& m = code.mix[k];
    const auto rows = mix_rows(m);
    ImGui::TextColored(kAccent, "%s (%s kernel)", m.entry.c_str(), m.kernel.c_str());
    ImGui::PushID(static_cast<int>(k));
    if (ImGui::BeginTable("mix", first_step ? 2 : 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
      ImGui::TableSetupColumn("");
      if (!first_step) ImGui::TableSetupColumn("before");
      ImGui::TableSetupColumn(first_step ? "this step" : "this step");
      ImGui::TableHeadersRow();
      for (const MixRow& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.label.c_str());
        if (!first_step) {
          ImGui::TableNextColumn();
          ImGui::TextColored(kMuted, "%s", r.before.empty() ? "-" : r.before.c_str());
        }
        ImGui::TableNextColumn();
        const bool differs = !first_step && r.before != r.after;
        ImGui::TextColored(differs ? kWarning : ImVec4(1, 1, 1, 1), "%s", r.after.empty() ? "-" : r.after.c_str());
      }
      ImGui::EndTable();
    }
    ImGui::PopID();
  }
  if (code.mix.empty()) wrapped(kMuted, "No kernel's code changed.");
}

}  // namespace

std::vector<LabCommand> TourView::build(const TourFacts& f, float height) {
  commands_.clear();
  const TourSession& session = *f.session;
  const Tour& tour = session.tour();
  const TourStep& step = session.current();
  ImGui::SetNextWindowPos(ImVec2(0, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width_, height), ImGuiCond_Always);
  ImGui::Begin("Tour", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoTitleBar |
                   ImGuiWindowFlags_NoSavedSettings);
  ImGui::TextColored(kMuted, "TOUR  %s", tour.title.c_str());
  ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize("Close tour").x - ImGui::GetStyle().FramePadding.x * 2);
  if (ImGui::SmallButton("Close tour")) commands_.push_back(LabCommand::tour_close);

  ImGui::TextColored(kMuted, "Step %zu of %zu", session.step() + 1, tour.steps.size());
  ImGui::SetWindowFontScale(1.45f);
  wrapped(ImVec4(1, 1, 1, 1), step.title);
  ImGui::SetWindowFontScale(1.0f);

  ImGui::BeginDisabled(!session.has_previous());
  if (ImGui::Button("< Previous")) commands_.push_back(LabCommand::tour_previous);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!session.has_next());
  if (ImGui::Button("Next >")) commands_.push_back(LabCommand::tour_next);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::SetNextItemWidth(-1);
  char current[160];
  std::snprintf(current, sizeof current, "%zu. %s", session.step() + 1, step.title.c_str());
  if (ImGui::BeginCombo("##steps", current)) {
    for (std::size_t i = 0; i < tour.steps.size(); ++i) {
      char item[160];
      std::snprintf(item, sizeof item, "%zu. %s", i + 1, tour.steps[i].title.c_str());
      if (ImGui::Selectable(item, i == session.step())) jump_ = i;
    }
    ImGui::EndCombo();
  }
  ImGui::Separator();

  ImGui::BeginChild("step", ImVec2(0, 0), false);
  if (!step.previous && !tour.intro.empty()) {  // the first step: what the whole tour does
    wrapped(kMuted, teaching_text(tour.intro));
    ImGui::Spacing();
  }
  wrapped(ImVec4(0.93f, 0.94f, 0.97f, 1.0f), teaching_text(step.text));

  label("The tutorial measured");
  const std::string tutorial = tutorial_speedup(tour, step);
  const char* none = step.previous ? "Nothing: this step is beyond the tutorial."
                                    : "This is the starting point; the tutorial measured each next step against the one before.";
  wrapped(tutorial.empty() ? kMuted : ImVec4(1, 1, 1, 1), tutorial.empty() ? none : tutorial);
  wrapped(kMuted, tutorial_reference(tour, step));

  label("Live on this GPU");
  const ImVec4 live_color = f.live.state == LiveSpeedup::State::measured ? (f.live.median >= 1.0 ? kGood : kWarning) : kMuted;
  if (f.live.state == LiveSpeedup::State::measured) {
    ImGui::SetWindowFontScale(1.3f);
    wrapped(live_color, f.live.text.substr(0, f.live.text.find(" (")));
    ImGui::SetWindowFontScale(1.0f);
    wrapped(kMuted, f.live.text.find(" (") == std::string::npos ? f.live.label : f.live.text.substr(f.live.text.find(" (") + 1));
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
      wrapped(kMuted, "Not measured in this configuration yet (scripts/measured_figures.py lists the GPU runs that "
                      "would measure it).");
    for (const auto& m : measured) wrapped(ImVec4(1, 1, 1, 1), m);
  }
  if (!step.this_gpu.empty()) {
    label("On today's GPUs");
    wrapped(kWarning, teaching_text(step.this_gpu));
  }

  ImGui::Spacing();
  if (ImGui::CollapsingHeader("What changed in the code", ImGuiTreeNodeFlags_DefaultOpen)) code_section(session.code(), !step.previous);
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
