#include "app/lab/panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "app/lab/setting_widgets.hpp"
#include "app/core/text_format.hpp"
#include "app/core/options/toggle_state.hpp"
#include "physics/gravity.hpp"
#include "cuda/engine/sass_analysis.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/ladder.hpp"
#include "sim/measured_figures.hpp"
#include "sim/resources.hpp"
#include "sim/tour.hpp"

namespace nbl {

namespace {

const ImVec4 kWarning(1.0f, 0.78f, 0.35f, 1.0f);
const ImVec4 kError(1.0f, 0.45f, 0.40f, 1.0f);
const ImVec4 kGood(0.55f, 0.90f, 0.60f, 1.0f);
const ImVec4 kMuted(0.62f, 0.66f, 0.75f, 1.0f);

// Frame-split colours (bar and legend).
const ImU32 kSimulateColor = IM_COL32(90, 150, 255, 255);
const ImU32 kVerticesColor = IM_COL32(110, 210, 140, 255);
const ImU32 kRenderColor = IM_COL32(250, 170, 70, 255);
const ImU32 kUiColor = IM_COL32(190, 120, 240, 255);

std::string fmt(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

void tooltip(const std::string& text) {
  if (!ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) return;
  ImGui::BeginTooltip();
  ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndTooltip();
}

void wrapped(const ImVec4& color, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, color);
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// One kernel build in flight or just finished: what, where it stands, for how long; a refusal's reason
// in its tooltip (the running build keeps running meanwhile).
void build_line(const BuildProgress& b) {
  const bool bad = b.state == BuildState::refused;
  const bool done = b.state == BuildState::ready || b.state == BuildState::superseded;
  char text[320];
  std::snprintf(text, sizeof text, "%s %s (%.1f s)",
                bad    ? "x"
                : done ? "ok"
                       : "...",
                build_phase_name(b.label, b.state).c_str(), b.age_s);
  wrapped(bad ? kError : done ? kGood : kWarning, text);
  if (!b.detail.empty()) tooltip(b.detail);
}

// A label in the left column and a value to its right, aligned across rows.
void row(const char* label, const std::string& value) {
  ImGui::TextColored(kMuted, "%s", label);
  ImGui::SameLine(ImGui::GetFontSize() * 9.5f);
  ImGui::TextUnformatted(value.c_str());
}

// What we measured for the toggles (assets/measured/figures.json), read once; a file that cannot be read
// is said in every tooltip rather than stopping the lab.
struct MeasuredFiguresFile {
  MeasuredFigures figures;
  std::string problem;
};

const MeasuredFiguresFile& measured_figures() {
  static const MeasuredFiguresFile file = [] {
    MeasuredFiguresFile f;
    try {
      f.figures = MeasuredFigures::load(find_resource("assets/measured/figures.json"));
    } catch (const std::exception& e) {
      f.problem = e.what();
    }
    return f;
  }();
  return file;
}

std::string toggle_tooltip(const ToggleDef& t, const std::string& inert) {
  std::string text = teaching_text(t.help);
  if (!t.tutorial.empty())
    text += "\n\nThe tutorial measured (" +
            std::string(t.algorithm == Algorithm::allpairs
                            ? "Part I: CC 1.3 Quadro FX 5800, CC 2.0 Tesla C2050, CC 3.0 GeForce GTX 680"
                            : "Part II, Kernel Speedups: GeForce GTX 480, 50k / 500k / 5M bodies") +
            "): " + std::string(t.tutorial);
  const MeasuredFiguresFile& measured = measured_figures();
  if (!measured.problem.empty()) text += "\n\nMeasured figures unavailable: " + measured.problem;
  else if (const std::string figures = measured.figures.describe(t.key); !figures.empty())
    text += "\n\nMeasured on a GPU, each in the configuration it names (it speaks for that one):\n" + figures;
  text += "\n\n" + (t.macro.empty() ? std::string("Becomes an NVRTC compiler option.")
                                    : "Kernel macro: " + std::string(t.macro));
  if (!inert.empty()) text += "\n\nInert now: " + inert;
  return text;
}

// One toggle's widget, chosen by its kind (table: sim/toggles.hpp).
void toggle_widget(const ToggleDef& t, SettingsEditor& editor, bool inert, const std::string& tip) {
  const std::size_t index = static_cast<std::size_t>(&t - kToggles.data());
  int value = editor.draft().toggles.values[index];
  const std::string label(t.label);
  ImGui::BeginDisabled(inert);
  switch (t.kind) {
    case ToggleKind::flag: {
      bool on = value != 0;
      if (ImGui::Checkbox(label.c_str(), &on)) editor.set_toggle(t, on ? 1 : 0);
      break;
    }
    case ToggleKind::choice: {
      const std::string current(t.choices[static_cast<std::size_t>(value)].label);
      if (ImGui::BeginCombo(label.c_str(), current.c_str())) {
        for (std::size_t c = 0; c < t.choices.size(); ++c)
          if (ImGui::Selectable(std::string(t.choices[c].label).c_str(), static_cast<int>(c) == value))
            editor.set_toggle(t, static_cast<int>(c));
        ImGui::EndCombo();
      }
      break;
    }
    case ToggleKind::integer: {
      // Sliders (unroll factor, block size); apply on release so a drag compiles one kernel, not fifty.
      const ImGuiSliderFlags flags =
          ImGuiSliderFlags_AlwaysClamp |
          (t.max_value / std::max(t.min_value, 1) >= 64 && t.step == 1 ? ImGuiSliderFlags_Logarithmic : 0);
      ImGui::SliderInt(label.c_str(), &value, t.min_value, t.max_value, "%d", flags);
      if (t.step > 1) value = t.min_value + (value - t.min_value + t.step / 2) / t.step * t.step;
      value = std::clamp(value, t.min_value, t.max_value);
      editor.draft().toggles.values[index] = value;  // follows the drag
      if (ImGui::IsItemDeactivatedAfterEdit()) editor.set_toggle(t, value);
      break;
    }
  }
  ImGui::EndDisabled();
  tooltip(tip);
}

// What a setting's tooltip says: what it does, when it applies, what "auto" means.
std::string setting_tooltip(const SettingDef& s) {
  std::string text(s.help);
  if (s.group == SettingGroup::restart) text += "\n\nApplies on restart (Reset, R).";
  if (s.unset_means) text += "\n\nauto: " + s.unset_means() + ".";
  return text;
}

// One scalar setting's widget, as its row in kSettings says (app/lab/setting_widgets.hpp). `running` holds
// what the unset settings resolved to, which an "auto" widget shows greyed out.
void setting_widget(const SettingWidget& w, SettingsEditor& editor, const Settings& running, bool unicode_font) {
  const SettingDef& s = *w.setting;
  const std::string label(unicode_font && !s.symbol_label.empty() ? s.symbol_label : s.label);
  const SettingValue value = s.access.get(editor.draft());
  const std::string tip = setting_tooltip(s);
  ImGui::PushID(s.key.data(), s.key.data() + s.key.size());
  switch (w.kind) {
    case PanelWidget::combo: {
      const int current = std::get<EnumValue>(value).value;
      if (ImGui::BeginCombo(label.c_str(), std::string(choice_name(s, current)).c_str())) {
        for (const EnumName& c : s.choices)
          if (ImGui::Selectable(std::string(c.label.empty() ? c.name : c.label).c_str(), c.value == current))
            editor.set(s, EnumValue{c.value});
        ImGui::EndCombo();
      }
      tooltip(tip);
      break;
    }
    case PanelWidget::radio: {
      const int current = std::get<EnumValue>(value).value;
      ImGui::TextColored(kMuted, "%s", label.c_str());
      tooltip(tip);
      for (const EnumName& c : s.choices) {
        ImGui::SameLine();
        if (ImGui::RadioButton(std::string(c.label.empty() ? c.name : c.label).c_str(), c.value == current))
          editor.set(s, EnumValue{c.value});
      }
      break;
    }
    case PanelWidget::checkbox: {
      bool on = std::get<bool>(value);
      if (ImGui::Checkbox(label.c_str(), &on)) editor.set(s, on);
      tooltip(tip);
      break;
    }
    case PanelWidget::slider:
    case PanelWidget::log_slider: {
      const ImGuiSliderFlags flags =
          ImGuiSliderFlags_AlwaysClamp | (w.kind == PanelWidget::log_slider ? ImGuiSliderFlags_Logarithmic : 0);
      SettingValue edited = value;
      bool moved = false;
      if (s.kind == SettingKind::integer) {
        int v = static_cast<int>(std::get<std::int64_t>(value));
        const std::string format = v == 0 && !s.zero_means.empty() ? std::string(s.zero_means) : "%d";
        moved = ImGui::SliderInt(label.c_str(), &v, static_cast<int>(w.min), static_cast<int>(w.max), format.c_str(),
                                 flags);
        edited = static_cast<std::int64_t>(v);
      } else {
        float v = static_cast<float>(std::get<double>(value));
        // Under the relative opening test theta opens only a new state's first pass: the slider says so.
        const bool first_pass_only = s.key == "theta" && running.toggles.is(Choice{"bh_opening", "relative"});
        moved = ImGui::SliderFloat(label.c_str(), &v, static_cast<float>(w.min), static_cast<float>(w.max),
                                   first_pass_only ? "%.2f (first pass only)" : "%.2f", flags);
        edited = static_cast<double>(v);
      }
      // A live setting follows the drag in the draft and reaches the simulation on release: dragging
      // theta or the steps per frame reconfigures the run once, not every frame.
      if (s.group != SettingGroup::live) {
        if (moved) editor.set(s, edited);
      } else {
        if (moved) s.access.set(editor.draft(), edited);
        if (ImGui::IsItemDeactivatedAfterEdit()) editor.set(s, s.access.get(editor.draft()));
      }
      tooltip(tip);
      break;
    }
    case PanelWidget::input: {
      const bool automatic = std::holds_alternative<Unset>(value);
      const SettingValue shown = automatic ? s.access.get(running) : value;
      ImGui::BeginDisabled(automatic);
      if (w.has_auto) ImGui::SetNextItemWidth(ImGui::CalcItemWidth() - ImGui::GetFontSize() * 4.0f);  // room for "auto"
      if (s.kind == SettingKind::integer) {
        std::int64_t v = std::holds_alternative<std::int64_t>(shown) ? std::get<std::int64_t>(shown) : s.integer_min;
        const std::int64_t step = std::max<std::int64_t>(1, v / 8);
        if (ImGui::InputScalar(label.c_str(), ImGuiDataType_S64, &v, &step, &step, "%" PRId64))
          editor.set(s, std::clamp(v, s.integer_min, s.integer_max));
      } else if (s.kind == SettingKind::unsigned64) {
        std::uint64_t v = std::get<std::uint64_t>(shown);
        if (ImGui::InputScalar(label.c_str(), ImGuiDataType_U64, &v)) editor.set(s, v);
      } else {
        double v = std::holds_alternative<double>(shown) ? std::get<double>(shown) : 0.0;
        // Out of range is refused when it is applied, with the setting's range in the message.
        if (ImGui::InputDouble(label.c_str(), &v, 0.0, 0.0, "%.3e", ImGuiInputTextFlags_EnterReturnsTrue))
          editor.set(s, v);
      }
      ImGui::EndDisabled();
      tooltip(tip);
      if (w.has_auto) {
        ImGui::SameLine();
        bool is_auto = automatic;
        if (ImGui::Checkbox("auto", &is_auto)) editor.set(s, is_auto ? SettingValue{Unset{}} : shown);
        tooltip("Leave it to the rule: " + s.unset_means() + ".");
      }
      break;
    }
  }
  ImGui::PopID();
}

// Draws a group's widgets in the table's order; consecutive checkboxes share a line.
void setting_widgets_of(SettingGroup group, Algorithm algorithm, SettingsEditor& editor, const Settings& running,
                        bool unicode_font) {
  bool after_checkbox = false;
  for (const SettingWidget& w : setting_widgets(group)) {
    if (w.setting->only_for && *w.setting->only_for != algorithm) continue;
    const bool checkbox = w.kind == PanelWidget::checkbox;
    if (checkbox && after_checkbox) ImGui::SameLine();
    setting_widget(w, editor, running, unicode_font);
    after_checkbox = checkbox;
  }
}

// A horizontal bar split into coloured parts (the frame-time split).
void split_bar(const std::vector<std::pair<double, ImU32>>& parts, double total) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  const float height = ImGui::GetFrameHeight() * 0.6f;
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), IM_COL32(40, 44, 58, 255), 2.0f);
  float x = origin.x;
  for (const auto& [ms, color] : parts) {
    const float w = total > 0 ? static_cast<float>(ms / total) * width : 0.0f;
    draw->AddRectFilled(ImVec2(x, origin.y), ImVec2(x + w, origin.y + height), color);
    x += w;
  }
  ImGui::Dummy(ImVec2(width, height));
}

void legend(ImU32 color, const char* name, double ms) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float s = ImGui::GetTextLineHeight() * 0.7f;
  ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(p.x, p.y + s * 0.25f), ImVec2(p.x + s, p.y + s * 1.25f), color,
                                            2.0f);
  ImGui::Dummy(ImVec2(s, s));
  ImGui::SameLine();
  ImGui::Text("%s %.2f ms", name, ms);
}

void plot(const char* id, const Series& series, const std::string& overlay, float height, float min = 0.0f) {
  ImGui::PlotLines(id, series.data(), series.count(), series.offset(), overlay.c_str(), min, FLT_MAX,
                   ImVec2(ImGui::GetContentRegionAvail().x, height));
}

// Relative energy drift against simulated time, each reading with its error bar (one standard error;
// none when exact), and the zero line.
void drift_plot(const std::deque<DriftPoint>& points, float height) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = ImGui::GetContentRegionAvail().x;
  ImGui::Dummy(ImVec2(width, height));
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(origin, ImVec2(origin.x + width, origin.y + height), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
  if (points.empty()) return;
  double lo = 0, hi = 0;
  for (const auto& p : points) {
    lo = std::min(lo, p.drift - p.error);
    hi = std::max(hi, p.drift + p.error);
  }
  if (hi - lo < 1e-12) hi = lo + 1e-12;
  const double t0 = points.front().sim_time, t1 = std::max(points.back().sim_time, t0 + 1e-12);
  const float pad = 4.0f;
  auto at = [&](double t, double v) {
    const float x = origin.x + pad + static_cast<float>((t - t0) / (t1 - t0)) * (width - 2 * pad);
    const float y = origin.y + pad + static_cast<float>((hi - v) / (hi - lo)) * (height - 2 * pad);
    return ImVec2(x, y);
  };
  const ImU32 axis = ImGui::GetColorU32(ImGuiCol_TextDisabled), line = ImGui::GetColorU32(ImGuiCol_PlotLines);
  draw->AddLine(at(t0, 0), at(t1, 0), axis);
  for (std::size_t k = 0; k < points.size(); ++k) {
    const DriftPoint& p = points[k];
    if (p.error > 0) {
      const ImVec2 top = at(p.sim_time, p.drift + p.error), bottom = at(p.sim_time, p.drift - p.error);
      draw->AddLine(top, bottom, axis);
      draw->AddLine(ImVec2(top.x - 2, top.y), ImVec2(top.x + 2, top.y), axis);
      draw->AddLine(ImVec2(bottom.x - 2, bottom.y), ImVec2(bottom.x + 2, bottom.y), axis);
    }
    if (k > 0) draw->AddLine(at(points[k - 1].sim_time, points[k - 1].drift), at(p.sim_time, p.drift), line, 1.5f);
    draw->AddCircleFilled(at(p.sim_time, p.drift), 2.0f, line);
  }
  const std::string range = fmt("%+.1e", hi) + " .. " + fmt("%+.1e", lo);
  draw->AddText(ImVec2(origin.x + pad + 2, origin.y + 1), axis, "relative energy drift");
  draw->AddText(ImVec2(origin.x + width - ImGui::CalcTextSize(range.c_str()).x - pad, origin.y + 1), axis,
                range.c_str());
}

std::vector<std::filesystem::path> preset_files() {
  std::vector<std::filesystem::path> files;
  try {
    for (const auto& entry : std::filesystem::directory_iterator(find_resource("assets/presets")))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
  } catch (const std::exception&) {
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

std::vector<LabCommand> Panel::build(const PanelFacts& f, SettingsEditor& editor) {
  commands_.clear();
  if (!visible_) return commands_;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - width_, 0), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(width_, io.DisplaySize.y), ImGuiCond_Always);
  ImGui::Begin("nbodylab", nullptr,
               ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                   ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoSavedSettings);
  ImGui::PushItemWidth(-ImGui::GetFontSize() * 9.0f);
  header(f);
  // The guided tour (app/core/teaching/tour.hpp): Burtscher's CUDA optimization tutorial step by step, in its own window at the scene's left.
  ImGui::TextColored(kMuted, "Guided tour:");
  ImGui::SameLine();
  if (ImGui::SmallButton("All-pairs ladder")) ask(LabCommand::tour_allpairs);
  tooltip(
      "Burtscher's CUDA optimization tutorial, Part I, step by step: each step switches one rung of the optimization "
      "ladder, says why it "
      "should help, shows the tutorial's speed-up beside the live one on this GPU and the change in the kernel code.");
  ImGui::SameLine();
  if (ImGui::SmallButton("Barnes-Hut kernels")) ask(LabCommand::tour_barneshut);
  tooltip(
      "Burtscher's CUDA optimization tutorial, Part II: the six Barnes-Hut kernels, then their optimizations one "
      "switch at a time.");
  ImGui::Spacing();
  const bool presenter = editor.draft().view.presenter;
  if (ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) simulation_section(f, editor);
  if (ImGui::CollapsingHeader("View", presenter ? ImGuiTreeNodeFlags_DefaultOpen : 0)) view_section(f, editor);
  if (presenter) {  // the compact panel: the rest is one key (F9) away
    ImGui::TextColored(kMuted, "Presenter layout: F9 for the full panel");
    ImGui::PopItemWidth();
    ImGui::End();
    caption(f);
    return commands_;
  }
  // Open at start on a GPU; on the CPU backend all but one toggle are inert, so the live numbers get the room.
  const ImGuiTreeNodeFlags toggles_open = f.simulation->backend().on_gpu() ? ImGuiTreeNodeFlags_DefaultOpen : 0;
  if (ImGui::CollapsingHeader("Optimizations", toggles_open)) optimizations_section(f, editor);
  if (ImGui::CollapsingHeader("A/B comparison")) ab_section(f, editor);
  if (ImGui::CollapsingHeader("Performance", ImGuiTreeNodeFlags_DefaultOpen)) performance_section(f);
  if (f.stats->has_step && f.stats->last_step.has_tree &&
      ImGui::CollapsingHeader("Octree", ImGuiTreeNodeFlags_DefaultOpen))
    tree_section(f);
  if (ImGui::CollapsingHeader("Accuracy")) accuracy_section(f);
  if (ImGui::CollapsingHeader("Generated code")) generated_code_section(f);
  if (ImGui::CollapsingHeader("Keys")) keys_section();
  ImGui::PopItemWidth();
  ImGui::End();
  return commands_;
}

void Panel::header(const PanelFacts& f) {
  const Simulation& sim = *f.simulation;
  ImGui::Text("nbodylab");
  ImGui::SameLine();
  ImGui::TextColored(kMuted, "%.0f FPS   %.3g steps/s   %s bodies   t = %.3f", f.stats->fps(), f.stepping.steps_per_s,
                     with_commas(static_cast<std::int64_t>(sim.body_count())).c_str(), sim.time());
  tooltip(
      "The picture, the camera and this panel run at the display's rate (FPS); the simulation steps on its "
      "own thread at its own rate (steps/s), and each frame draws the newest finished state. t is the simulated "
      "time in N-body units: G = 1 and a total mass of 1, so a time unit is sqrt(L^3 / (G M)) for the scene's "
      "length unit L (the Scene setting's tooltip gives each scene's scale; docs/glossary.md).");
  if (!f.stepping.slow_notice.empty()) wrapped(kWarning, f.stepping.slow_notice);
  ImGui::TextColored(kMuted, "%s", sim.backend().name().c_str());
  const BodyVertices& v = f.scene->vertices();
  ImGui::TextColored(v.path() == VertexPath::interop ? kGood : kMuted, "vertices: %s, %.2f ms/frame",
                     to_string(v.path()), v.update_ms());
  if (!v.interop_unavailable_reason().empty()) tooltip("Why not interop: " + v.interop_unavailable_reason());
  else if (v.path() == VertexPath::host_copy)
    tooltip("The CPU backend's bodies live in host memory: they are copied into the GL buffer each frame.");
  else
    tooltip(
        "CUDA writes the vertices into device memory: the CUDA splat reads them there, and the sprites draw "
        "from the GL vertex buffer, which CUDA fills from them on the GPU (cudaGraphicsGLRegisterBuffer) when GL "
        "draws it. Nothing crosses PCIe.");
  if (!sim.notice().empty()) wrapped(kWarning, sim.notice());
  for (const std::string& line : sim.file_description()) wrapped(kMuted, line);  // a loaded HDF5 snapshot: types, units
  if (!f.auto_n_note.empty()) wrapped(kMuted, f.auto_n_note);
  if (f.paused)
    wrapped(f.pause_reason.empty() ? kWarning : kError,
            f.pause_reason.empty() ? "Paused (Space to resume)" : f.pause_reason);
  if (!f.error.empty()) wrapped(kError, f.error);
  if (!f.gl_error.empty()) wrapped(kError, "OpenGL error (the first one; drawing may be wrong): " + f.gl_error);
  for (const BuildProgress& b : f.builds) build_line(b);
  if (!f.status.empty()) wrapped(kMuted, f.status);
  ImGui::Spacing();
}

void Panel::simulation_section(const PanelFacts& f, SettingsEditor& editor) {
  const Simulation& sim = *f.simulation;
  const Settings running = sim.effective_settings();
  const Algorithm algorithm = editor.draft().algorithm;

  setting_widgets_of(SettingGroup::restart, algorithm, editor, running, f.unicode_font);
  const bool restart = editor.restart_pending(sim.settings());
  if (restart) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.65f, 0.42f, 0.12f, 0.9f));
  if (ImGui::Button(restart ? "Restart with these" : "Reset")) ask(LabCommand::reset);
  if (restart) ImGui::PopStyleColor();
  tooltip(restart ? "Scene, N or seed changed: rebuild the bodies (R)." : "Back to the initial conditions (R).");
  ImGui::SameLine();
  if (ImGui::Button(f.paused ? "Resume" : "Pause")) ask(LabCommand::toggle_pause);
  ImGui::SameLine();
  ImGui::BeginDisabled(!f.paused);
  if (ImGui::Button("Step")) ask(LabCommand::step);
  ImGui::EndDisabled();

  setting_widgets_of(SettingGroup::live, algorithm, editor, running, f.unicode_font);

  ImGui::Separator();
  ImGui::InputText("##settings_file", &settings_file_);
  tooltip("Settings file (JSON): every field of the run, toggles by name.");
  ImGui::SameLine();
  if (ImGui::Button("Save")) ask(LabCommand::save_settings);
  ImGui::SameLine();
  if (ImGui::Button("Load")) ask(LabCommand::load_settings);
  static const auto presets = preset_files();
  if (!presets.empty()) {
    const std::string current =
        preset_file_.empty() ? "Presets..." : std::filesystem::path(preset_file_).stem().string();
    if (ImGui::BeginCombo("##presets", current.c_str())) {
      for (const auto& p : presets)
        if (ImGui::Selectable(p.stem().string().c_str(), p.string() == preset_file_)) {
          preset_file_ = p.string();
          ask(LabCommand::load_preset);
        }
      ImGui::EndCombo();
    }
    tooltip("Ready-made settings from assets/presets/ (scene, N, algorithm, view). Loading one restarts.");
  }
  bookmarks_section(f);
}

void Panel::bookmarks_section(const PanelFacts& f) {
  if (!f.bookmarks) return;
  const std::vector<Bookmark>& list = *f.bookmarks;
  const Bookmark* chosen = selected_bookmark(list);
  if (ImGui::BeginCombo("##bookmarks", chosen ? chosen->name.c_str() : "Bookmarks...")) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string label = list[i].name + (list[i].shipped ? "" : "  (yours)");
      if (ImGui::Selectable(label.c_str(), static_cast<int>(i) == selected_bookmark_)) {
        selected_bookmark_ = static_cast<int>(i);
        ask(LabCommand::load_bookmark);
      }
    }
    ImGui::EndCombo();
  }
  tooltip(
      "Jump to a saved moment: the bodies and the settings they ran with. Shipped: the default collision at "
      "65,536 bodies at its first passage (t = 3) and with its tails out (t = 6). Yours: saved below, into " +
      std::string(kUserBookmarkDir) + "/. Reset then returns to the bookmark.");
  ImGui::SameLine();
  ImGui::BeginDisabled(!chosen);
  if (ImGui::Button("Go")) ask(LabCommand::load_bookmark);
  ImGui::EndDisabled();
  ImGui::InputText("##bookmark_name", &bookmark_name_);
  tooltip(
      "The new bookmark's name: NAME.tipsy (the bodies, with the time) and NAME.json (the settings); a name ending "
      "in .hdf5 writes NAME.hdf5 instead, in GADGET-4's layout (with particle types, IDs and units).");
  ImGui::SameLine();
  if (ImGui::Button("Bookmark now")) ask(LabCommand::save_bookmark);
}

void Panel::record_section(const PanelFacts& f) {
  ImGui::BeginDisabled(f.recording);
  ImGui::InputText("##record_target", &record_target_);
  tooltip(
      "Where the recording goes: FILE.mp4 / .mkv / .webm / .mov (H.264 through ffmpeg), FILE.rgba (raw frames, "
      "for a machine without ffmpeg), or null (nothing written: what capturing costs).");
  ImGui::Checkbox("With the panel", &record_include_panel_);
  tooltip("Record the whole window, panel included, or the picture alone.");
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (f.recording) ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.75f, 0.15f, 0.12f, 1.0f));
  if (ImGui::Button(f.recording ? "Stop recording (F10)" : "Record (F10)")) ask(LabCommand::toggle_recording);
  if (f.recording) ImGui::PopStyleColor();
  tooltip(
      "Frames are read back through a ring of pixel buffers and encoded on another thread: the frame loop "
      "does not wait. A frame the encoder cannot take in time is dropped, and the previous one repeated in "
      "its place, so the video keeps the session's timing.");
  if (f.recording) wrapped(kError, f.record_line);
}

// Presenter mode's caption: the title and the live figure, bottom left of the picture, in the large
// font on a dark band so it reads over bright cores.
void Panel::caption(const PanelFacts& f) {
  if (f.caption_title.empty() && f.caption_figure.empty()) return;
  const ImGuiIO& io = ImGui::GetIO();
  const float margin = ImGui::GetFontSize();
  const float room =
      std::max(io.DisplaySize.x - width() - 2 * margin, 8 * margin);  // the picture's width, not the panel's
  ImGui::SetNextWindowPos(ImVec2(margin, io.DisplaySize.y - margin), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
  ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(room, io.DisplaySize.y));
  ImGui::SetNextWindowBgAlpha(0.7f);
  ImGui::Begin("##caption", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoInputs |
                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
  if (f.caption_font) ImGui::PushFont(f.caption_font);
  ImGui::PushTextWrapPos(room - ImGui::GetStyle().WindowPadding.x);
  ImGui::TextUnformatted(f.caption_title.c_str());
  if (!f.caption_figure.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.85f, 0.2f, 1.0f));
    ImGui::TextUnformatted(f.caption_figure.c_str());
    ImGui::PopStyleColor();
  }
  ImGui::PopTextWrapPos();
  if (f.caption_font) ImGui::PopFont();
  ImGui::End();
}

void Panel::view_section(const PanelFacts& f, SettingsEditor& editor) {
  const ViewSettings& v = editor.draft().view;
  setting_widgets_of(SettingGroup::view, editor.draft().algorithm, editor, f.simulation->effective_settings(),
                     f.unicode_font);
  if (v.octree_depth > 0 && f.simulation->settings().algorithm != Algorithm::barneshut)
    wrapped(kMuted, "All-pairs builds no tree: switch to Barnes-Hut to see cells.");
  else if (f.scene->overlay().cells_left_out > 0)
    wrapped(kWarning, "Showing the first " + with_commas(static_cast<std::int64_t>(f.scene->overlay().cells_drawn)) +
                          " cells; " + with_commas(static_cast<std::int64_t>(f.scene->overlay().cells_left_out)) +
                          " deeper ones left out.");
  {
    // Which renderer drew the last frame, and what it cost (the render switch above).
    const std::string path = f.scene->body_path();
    if (path == "sprites")
      ImGui::TextColored(kMuted, "bodies: GL point sprites, %.2f ms GPU for the whole picture",
                         f.scene->render_gpu_ms());
    else
      ImGui::TextColored(kMuted, "bodies: %s %.2f ms + GL passes %.2f ms", path.c_str(), f.scene->splat_ms(),
                         f.scene->render_gpu_ms());
    if (const Splatter* splatter = f.scene->splatter();
        splatter && path == "splat (host)" && !splatter->device_unavailable_reason().empty())
      wrapped(kMuted, "The splat runs on the host: " + splatter->device_unavailable_reason());
  }
  if (v.auto_exposure && f.scene->white_in_stars() > 0)
    ImGui::TextColored(kMuted, "white point: %.0f lone stars, exposure passes %.2f ms", f.scene->white_in_stars(),
                       f.scene->exposure_gpu_ms());
  if (v.follow_bound && f.scene->bound())
    ImGui::TextColored(kMuted, "following %.0f%% of the mass (bound), %.2f ms per frame (estimate on a worker)",
                       100 * f.scene->bound()->bound_fraction, f.scene->follow_cpu_ms());
  {
    // The dark halos (sim/scenes.hpp): simulated, drawn only when asked.
    std::size_t dark = 0;
    double dark_mass = 0;
    for (const BodyGroup& g : f.simulation->body_groups())
      if (g.dark) dark += g.end - g.begin, dark_mass += g.mass;
    if (dark > 0)
      wrapped(kMuted, with_commas(static_cast<std::int64_t>(dark)) + " bodies (" +
                          std::to_string(static_cast<int>(std::lround(100 * dark_mass))) +
                          "% of the mass) are the galaxies' dark halos: " +
                          (v.show_dark_matter ? "drawn, each as bright as its mass." : "simulated, not drawn."));
  }
  if (ImGui::Button("Fit camera (F)")) ask(LabCommand::fit_camera);
  ImGui::SameLine();
  if (ImGui::Button("Screenshot (F12)")) ask(LabCommand::screenshot);
  record_section(f);
  ImGui::TextColored(kMuted, "%s", f.gl_description.c_str());
}

void Panel::optimizations_section(const PanelFacts& f, SettingsEditor& editor) {
  const Settings& d = editor.draft();
  const bool on_gpu = f.simulation->backend().on_gpu();
  if (!on_gpu) {
    std::string read;  // what the CPU backend reads, by its panel labels
    for (const ToggleId id : kCpuBarnesHutToggles) read += (read.empty() ? "" : ", ") + std::string(id.def().label);
    wrapped(kMuted, "The CPU backend reads only " + read +
                        " (Barnes-Hut); the other toggles shape the GPU kernels, "
                        "so they are greyed out here. Hover one to read what it does.");
  }
  // Groups in the table's order; each toggle once, under its group.
  std::vector<std::string_view> groups;
  for (const auto& t : kToggles)
    if (t.algorithm == d.algorithm && std::find(groups.begin(), groups.end(), t.group) == groups.end())
      groups.push_back(t.group);
  for (const auto group : groups) {
    ImGui::TextColored(kMuted, "%.*s", static_cast<int>(group.size()), group.data());
    ImGui::Indent();
    for (const auto& t : kToggles) {
      if (t.algorithm != d.algorithm || t.group != group) continue;
      const std::string inert = toggle_inert_reason(t, d, on_gpu);
      ImGui::PushID(static_cast<int>(&t - kToggles.data()));
      toggle_widget(t, editor, !inert.empty(), toggle_tooltip(t, inert));
      ImGui::PopID();
    }
    ImGui::Unindent();
  }
  if (ImGui::Button("Default toggles")) {
    for (const auto& t : kToggles)
      if (t.algorithm == d.algorithm) editor.set_toggle(t, t.default_value);
  }
  ladder_section(f);
}

// A/B: B's toggles (and theta) beside the running ones, B's force pass timed on the same state each
// frame and compared. Every figure is a median over the last frames with its spread; the speed-up
// carries a 95% confidence interval, so noise is visible.
void Panel::ab_section(const PanelFacts& f, SettingsEditor& editor) {
  const Settings& a = editor.draft();
  const std::optional<Settings>& b = editor.comparison();
  if (!f.simulation->backend().on_gpu()) {
    wrapped(kMuted, "A/B compares two GPU kernel variants on the same state; the CPU backend has one code path.");
    return;
  }
  if (!b) {
    wrapped(kMuted,
            "Compare the running variant (A) with another one (B): both compute forces from the same "
            "state every frame; A moves the bodies, B is only timed and compared.");
    if (ImGui::Button("Start A/B (B = a copy of A)")) editor.start_comparison(a);
    if (a.algorithm == Algorithm::allpairs) {
      ImGui::SameLine();
      if (ImGui::BeginCombo("##ab_rung", "B = ladder rung...")) {
        for (std::size_t r = 0; r < kLadder.size(); ++r) {
          if (kLadder[r].name == "1 thread") continue;  // one GPU thread: seconds per step at the lab's N
          if (ImGui::Selectable(std::string(kLadder[r].name).c_str())) {
            Settings rung = a;
            rung.toggles = ladder_toggles(r);
            editor.start_comparison(rung);
          }
        }
        ImGui::EndCombo();
      }
      tooltip(
          "B runs one rung of the tutorial's ladder (the single-thread rung is left out: it takes seconds per "
          "step at the lab's N; `nbodylab bench ladder` times it on a sample).");
    }
    return;
  }
  for (const BuildProgress& p : f.ab_builds) build_line(p);
  // B's toggles, the ones that differ from A's highlighted.
  ImGui::TextColored(kMuted, "B's toggles (changed ones in orange)");
  for (const auto& t : kToggles) {
    if (t.algorithm != a.algorithm) continue;
    const std::size_t i = static_cast<std::size_t>(&t - kToggles.data());
    int value = b->toggles.values[i];
    const bool differs = value != a.toggles.values[i];
    ImGui::PushID(static_cast<int>(1000 + i));
    if (differs) ImGui::PushStyleColor(ImGuiCol_Text, kWarning);
    const std::string label(t.label);
    bool changed = false;
    switch (t.kind) {
      case ToggleKind::flag: {
        bool on = value != 0;
        changed = ImGui::Checkbox(label.c_str(), &on);
        value = on ? 1 : 0;
        break;
      }
      case ToggleKind::choice:
        if (ImGui::BeginCombo(label.c_str(), std::string(t.choices[static_cast<std::size_t>(value)].label).c_str())) {
          for (std::size_t c = 0; c < t.choices.size(); ++c)
            if (ImGui::Selectable(std::string(t.choices[c].label).c_str(), static_cast<int>(c) == value)) {
              value = static_cast<int>(c);
              changed = true;
            }
          ImGui::EndCombo();
        }
        break;
      case ToggleKind::integer:
        ImGui::SliderInt(label.c_str(), &value, t.min_value, t.max_value, "%d", ImGuiSliderFlags_AlwaysClamp);
        if (t.step > 1) value = t.min_value + (value - t.min_value + t.step / 2) / t.step * t.step;
        changed = ImGui::IsItemDeactivatedAfterEdit();  // build only the value the slider settles on
        break;
    }
    if (differs) ImGui::PopStyleColor();
    ImGui::PopID();
    if (changed) editor.set_comparison_toggle(t, std::clamp(value, t.min_value, t.max_value));
  }
  if (a.algorithm == Algorithm::barneshut) {
    float theta = static_cast<float>(b->opening_angle);
    ImGui::SliderFloat("B's theta", &theta, 0.0f, 2.0f, "%.2f");
    if (ImGui::IsItemDeactivatedAfterEdit()) editor.set_comparison_theta(theta);
  }
  if (ImGui::Button("Swap A and B")) ask(LabCommand::ab_swap);
  ImGui::SameLine();
  if (ImGui::Button("Make B current")) ask(LabCommand::ab_make_current);
  ImGui::SameLine();
  if (ImGui::Button("Clear B")) ask(LabCommand::ab_clear);
  if (ImGui::Button("Colour by A/B difference")) editor.view().color_mode = ColorMode::ab_difference;
  tooltip(
      "Each body coloured by how far B's force on it differs from A's, relative to the RMS force: blue is "
      "rounding (1e-7), white 1e-4, red a percent or more.");

  const ComparisonHistory& h = *f.ab_history;
  if (!f.ab_ready || h.size() == 0) {
    wrapped(kMuted, "Waiting for B's build and the first comparison...");
    return;
  }
  ImGui::Separator();
  ImGui::Text("Over the last %zu frames (median, 10-90%%):", h.size());
  if (ImGui::BeginTable("ab", 4, ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_RowBg)) {
    ImGui::TableSetupColumn("stage");
    ImGui::TableSetupColumn("A ms");
    ImGui::TableSetupColumn("B ms");
    ImGui::TableSetupColumn("B vs A");
    ImGui::TableHeadersRow();
    for (const auto& row : h.rows()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(row.stage.c_str());
      auto cell = [](const Spread& s) {
        ImGui::TableNextColumn();
        if (s.empty()) ImGui::TextColored(kMuted, "-");
        else ImGui::Text("%.3f", s.median);
        if (!s.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%.3f .. %.3f ms", s.low, s.high);
      };
      cell(row.a_ms);
      cell(row.b_ms);
      ImGui::TableNextColumn();
      if (row.speedup.empty()) {
        ImGui::TextColored(kMuted, "-");
      } else {
        const bool faster = row.speedup.low > 1.0, slower = row.speedup.high < 1.0;
        ImGui::TextColored(faster ? kGood : slower ? kWarning : kMuted, "%.2fx", row.speedup.median);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("B is %s\n95%% interval %.3f .. %.3f over %zu paired frames%s",
                            row.speedup.describe().c_str(), row.speedup.low, row.speedup.high, row.speedup.pairs,
                            faster || slower ? "" : "\nThe interval holds 1: no difference this noise can show.");
      }
    }
    ImGui::EndTable();
  }
  const Spread norm = h.difference_relative_norm(), worst = h.difference_max();
  wrapped(h.any_non_finite() ? kError : kMuted,
          "B's forces vs A's: relative norm " + fmt("%.2g", norm.median) + ", largest body " +
              fmt("%.2g", worst.median) + " of the RMS force" + (h.any_non_finite() ? " (NaN or inf in B!)" : ""));
  tooltip(
      "||aB - aA|| / ||aA|| over every body, and the largest per-body difference relative to the RMS force "
      "(the metric that survives cancellation). Against the double-precision reference: Accuracy.");
}

void Panel::ladder_section(const PanelFacts& f) {
  const LadderJob& ladder = *f.ladder;
  ImGui::Spacing();
  const bool have_gpu = f.device->has_value();
  ImGui::BeginDisabled(ladder.running() || !have_gpu);
  if (ImGui::Button(ladder.running() ? "Running the ladder..." : "Run ladder")) ask(LabCommand::run_ladder);
  ImGui::EndDisabled();
  tooltip(
      std::string("Runs every rung of the all-pairs optimization ladder (Burtscher's CUDA optimization tutorial, Part "
                  "I) on this GPU and lists "
                  "time, speed-ups, GFLOP/s and force error per rung, as nbodylab bench ladder does. The simulation "
                  "pauses meanwhile.") +
      (have_gpu ? "" : "\n\nNeeds a GPU."));
  if (!ladder.error().empty()) wrapped(kError, ladder.error());
  const LadderTable& table = ladder.table();
  if (table.columns.empty()) return;
  if (!table.note.empty()) wrapped(kMuted, table.note);
  if (ImGui::BeginTable(
          "ladder", static_cast<int>(table.columns.size()),
          ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX,
          ImVec2(0, ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(table.rows.size() + 2)))) {
    for (const auto& c : table.columns) ImGui::TableSetupColumn(c.c_str());
    ImGui::TableHeadersRow();
    for (const auto& r : table.rows) {
      ImGui::TableNextRow();
      for (std::size_t c = 0; c < r.size() && c < table.columns.size(); ++c) {
        ImGui::TableSetColumnIndex(static_cast<int>(c));
        ImGui::TextUnformatted(r[c].c_str());
      }
    }
    ImGui::EndTable();
  }
  ladder_chart(table);
}

// Each rung's speed-up over the rung it builds on, on this GPU (bar) beside the tutorial's on its
// GTX 680 (tick), on a log scale from 0.5x to 4x (the first step, 1 thread to N threads, is off the
// scale and says so); the rung's rate as % of its issue-slot ceiling after the name.
void Panel::ladder_chart(const LadderTable& table) {
  if (table.speedup.empty()) return;
  ImGui::Spacing();
  ImGui::TextUnformatted("Speed-up per step: this GPU (bar) and the tutorial's GTX 680 (tick)");
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float line = ImGui::GetTextLineHeightWithSpacing();
  const float width = ImGui::GetContentRegionAvail().x;
  const float label_w = width * 0.42f, chart_w = width - label_w - 4.0f;
  const double lo = std::log(0.5), hi = std::log(4.0);
  auto x_of = [&](double v) {
    return static_cast<float>((std::log(std::clamp(v, 0.5, 4.0)) - lo) / (hi - lo)) * chart_w;
  };
  const ImU32 bar = ImGui::GetColorU32(ImGuiCol_PlotHistogram), tick = IM_COL32(255, 255, 255, 220),
              axis = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  for (std::size_t r = 1; r < table.speedup.size() && r < kLadder.size(); ++r) {
    const LadderRung& rung = kLadder[r];
    const ImVec2 p = ImGui::GetCursorScreenPos();
    std::string label = std::to_string(r) + " " + std::string(rung.name);
    if (r < table.issue_pct.size() && std::isfinite(table.issue_pct[r])) label += fmt("  %.0f%%", table.issue_pct[r]);
    ImGui::TextUnformatted(label.c_str());
    const float x0 = p.x + label_w, y0 = p.y + 2.0f, y1 = p.y + line - 4.0f;
    draw->AddRectFilled(ImVec2(x0, y0), ImVec2(x0 + chart_w, y1), ImGui::GetColorU32(ImGuiCol_FrameBg));
    const float one = x0 + x_of(1.0);
    const double here = table.speedup[r];
    if (std::isfinite(here)) {
      const float x = x0 + x_of(here);
      draw->AddRectFilled(ImVec2(std::min(one, x), y0 + 2), ImVec2(std::max(one, x), y1 - 2), bar);
      const std::string text = fmt(here >= 4.0 ? ">%.0fx" : "%.2fx", here >= 4.0 ? 4.0 : here);
      draw->AddText(ImVec2(x0 + chart_w - ImGui::CalcTextSize(text.c_str()).x - 2, p.y), axis,
                    (here >= 4.0 ? fmt("%.0fx", here) : text).c_str());
    }
    if (rung.speedup_cc30 > 0) {
      const float x = x0 + x_of(rung.speedup_cc30);
      draw->AddLine(ImVec2(x, y0 - 1), ImVec2(x, y1 + 1), tick, 2.0f);
    }
    draw->AddLine(ImVec2(one, y0), ImVec2(one, y1), axis);
  }
  ImGui::TextColored(kMuted,
                     "%% after a name: the measured rate against the issue-slot ceiling of the rung's own loop.");
}

void Panel::performance_section(const PanelFacts& f) {
  const LabStats& s = *f.stats;
  const FrameTimes& t = s.last_frame;
  ImGui::Text("%.1f FPS", s.fps());
  ImGui::SameLine();
  const Spread frame = s.frame_ms.spread();
  ImGui::TextColored(kMuted, "(frame %.1f ms, p90 %.1f; %d frames)", frame.median, frame.high, s.frame_ms.count());
  tooltip(
      "FPS is the wall-clock interval from one frame to the next (median over the frames in view), not the sum "
      "of the parts below: on a GPU they can overlap.");
  const double fps = s.fps();
  if (f.stepping.drawn_per_s > 0 && f.stepping.drawn_per_s < 0.9 * fps) {
    ImGui::TextColored(kMuted, "%.0f of them drawn a second", f.stepping.drawn_per_s);
    tooltip(
        "A frame whose picture would be the one already on screen (the same state, camera and view, no input) "
        "draws nothing and waits for the display's next refresh, so a slow step gets the GPU's time. The "
        "panel's figures still move ten times a second, and any input draws at once.");
  }
  split_bar({{t.vertices_ms, kVerticesColor}, {t.render_ms, kRenderColor}, {t.ui_ms, kUiColor}},
            std::max({t.frame_ms, t.vertices_ms + t.render_ms + t.ui_ms, 1e-3}));
  legend(kVerticesColor, "vertices", t.vertices_ms);
  legend(kRenderColor, "render", t.render_ms);
  ImGui::SameLine(ImGui::GetContentRegionAvail().x * 0.5f);
  legend(kUiColor, "panel", t.ui_ms);
  plot("##frame", s.frame_ms, "frame ms", ImGui::GetFontSize() * 2.5f);

  const SteppingFacts& st = f.stepping;
  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSimulateColor), "%.3g steps/s", st.steps_per_s);
  ImGui::SameLine();
  const std::string step_text = st.step_ms > 0 ? "step " + fmt_ms(st.step_ms) : std::string("no step finished yet");
  const std::string running =
      st.running_ms > 0 ? "; the step in flight has run " + fmt_ms(st.running_ms) : std::string();
  wrapped(kMuted, "(" + step_text + "; state on screen " + fmt_ms(st.state_age_ms) + " old" + running + ")");
  tooltip(
      "The simulation runs on its own thread: steps/s counts the steps finished over the last seconds, the step "
      "time is one step's wall time there, and the state on screen is the newest finished one. A step never "
      "holds up a frame: when a variant is slow, the picture moves slowly while the window stays live.");
  if (!st.abandoned_note.empty()) wrapped(kMuted, st.abandoned_note);

  if (!s.has_step) {
    ImGui::TextColored(kMuted, "No steps yet.");
    return;
  }
  const StepStats& step = s.last_step;
  ImGui::Separator();
  // Every live figure: the median over the frames in view, with the 10th-90th percentile range.
  auto with_spread = [](const Spread& v, const char* format, double scale = 1.0) {
    if (v.empty()) return std::string("-");
    return fmt(format, v.median * scale) + "  (" + fmt(format, v.low * scale) + " .. " + fmt(format, v.high * scale) +
           ")";
  };
  const Spread step_ms = s.step_ms.spread();
  row("step", with_spread(step_ms, "%.2f") + " ms");
  tooltip("Median over the last " + std::to_string(step_ms.count) + " steps, with the 10th and 90th percentiles.");
  const Spread whole = s.interactions_per_s.spread(), force = s.force_interactions_per_s.spread();
  row("interactions/s", si(whole.median, "") + " whole step");
  tooltip("Interactions of the step over the whole step's time (" + si(whole.low, "") + " .. " + si(whole.high, "") +
          ", 10-90%). An interaction is one pull evaluated on a body: by another body, or in Barnes-Hut by a cell "
          "standing in for its bodies (a quadrupole cell counts as one).");
  if (!force.empty()) {
    row("", si(force.median, "") + " force kernel alone");
    tooltip("Interactions over the force stage's time alone (" + si(force.low, "") + " .. " + si(force.high, "") +
            ", 10-90%): the rate the tutorial and BENCHMARKS.md quote.");
  }
  const double flops = force.empty() ? whole.median * kFlopsPerInteraction : force.median * kFlopsPerInteraction;
  std::string ceiling = "no GPU ceiling on the CPU backend";
  const auto& device = *f.device;
  if (f.simulation->backend().on_gpu() && device) {
    const double peak = device->fp32_peak_flops();
    ceiling = fmt("%.1f%%", 100.0 * flops / peak) + " of the " + fmt("%.1f", peak / 1e12) + " TFLOP/s fp32 ceiling";
  }
  const double gflops = flops / 1e9;
  const std::string gflops_text =
      gflops >= 1000 ? with_commas(static_cast<std::int64_t>(gflops + 0.5)) + " GFLOP/s" : fmt("%.1f GFLOP/s", gflops);
  ImGui::Text("%s", (gflops_text + (f.unicode_font ? "  ·  " : "  -  ") + ceiling).c_str());
  tooltip(std::string("20 flops per interaction, the convention every n-body code quotes (Burtscher's tutorial "
                      "included), of the ") +
          (force.empty() ? "whole step" : "force kernel alone") +
          ". The ceiling: every FP32 lane retires one FMA per clock at the peak clock (cuda/device.hpp); the "
          "issue-slot ceiling, usually the tighter one, is under Generated code.");
  plot("##step", s.step_ms, "step ms", ImGui::GetFontSize() * 2.5f);

  // Per-kernel bars, scaled to the step: medians over the frames in view, the spread in the tooltip.
  const double total = std::max(step_ms.empty() ? step.total_ms : step_ms.median, 1e-6);
  for (const auto& [name, series] : s.stages) {
    const Spread ms = series.spread();
    const std::string text =
        name + "  " + fmt("%.3f ms", ms.median) + "  (" + fmt("%.0f%%", 100.0 * ms.median / total) + ")";
    ImGui::ProgressBar(static_cast<float>(ms.median / total), ImVec2(-FLT_MIN, 0), text.c_str());
    tooltip(name + ": median " + fmt("%.3f", ms.median) + " ms, 10-90% " + fmt("%.3f", ms.low) + " .. " +
            fmt("%.3f", ms.high) + " ms over " + std::to_string(ms.count) + " steps (CUDA events on the GPU)");
  }
  if (ImGui::TreeNode("Per-kernel history")) {
    for (const auto& [name, series] : s.stages)
      plot(("##" + name).c_str(), series, name + " " + fmt("%.3f ms", series.latest()), ImGui::GetFontSize() * 2.0f);
    ImGui::TreePop();
  }
  for (const auto& notice : step.notices) wrapped(kWarning, notice);
}

void Panel::tree_section(const PanelFacts& f) {
  const TreeStats& tree = f.stats->last_step.tree;
  row("max depth", std::to_string(tree.max_depth));
  row("cells", with_commas(tree.cells));
  row("children / cell", fmt("%.2f", tree.children_per_cell));
  row("nodes touched", fmt("min %.0f", tree.nodes_touched.min) + fmt("  avg %.1f", tree.nodes_touched.avg) +
                           fmt("  max %.0f", tree.nodes_touched.max));
  tooltip(
      "Per body: the tree nodes (cells and bodies) its force walk loads and tests, accepted or opened; where a "
      "warp or a group walks together, the shared walk's count. The tutorial measures the same for its kernel 5 "
      "(Part II, Nodes Touched per Activity).");
}

void Panel::accuracy_section(const PanelFacts& f) {
  const EnergyMonitor& e = *f.energy;
  const char* pm = f.unicode_font ? " ± " : " +/- ";
  if (e.latest() && e.baseline() && !e.drift().empty()) {
    const EnergyReport& r = *e.latest();
    const DriftPoint& last = e.drift().back();
    row("energy", fmt("%.6f", r.total) + (r.sampled ? pm + fmt("%.1e", r.potential_error) : ""));
    row("drift", fmt("%+.2e", last.drift) + (last.error > 0 ? pm + fmt("%.1e", last.error) : "") +
                     fmt("  at t = %.3f", e.latest_time()));
    tooltip(
        "(E - E0) / |E0|: the total energy's change since it was first measured after the start or the last "
        "restart. Leapfrog keeps it small and bounded; a growing drift means dt is too large for the closest "
        "encounters, or the forces err.");
    row("virial 2K/|W|", fmt("%.3f", r.virial_ratio()));
    tooltip(
        "Twice the kinetic energy over the magnitude of the softened potential energy: 1 for a system in "
        "equilibrium (the Plummer sphere starts there), 0 for one at rest (the cold sphere).");
    drift_plot(e.drift(), ImGui::GetFontSize() * 4.0f);
    ImGui::TextColored(kMuted, "%s", r.method.c_str());
    tooltip(
        r.sampled
            ? "The potential energy is estimated from a random sample of bodies; the bars are one standard error, so "
              "drift inside them is noise."
            : "Every pair is summed: the error (~1e-7 relative, float pairs) lies far below any drift worth showing. "
              "Took " +
                  fmt("%.2f s", e.latest_seconds()) + " of wall time, spread over frames.");
  }
  if (e.busy()) {
    ImGui::TextColored(
        kMuted, "%s",
        e.progress() > 0 ? fmt("Measuring energy... %.0f%%", 100 * e.progress()).c_str() : "Measuring energy...");
  } else if (!e.latest()) {
    ImGui::TextColored(kMuted, "Energy is measured every few seconds.");
  }
  ImGui::Separator();
  if (ImGui::Button("Measure force error")) ask(LabCommand::measure_force_error);
  tooltip("Accelerations of the running variant against the double-precision direct sum on a sample of bodies.");
  const auto& reading = *f.force_error;
  if (reading) {
    const ForceError& err = reading->error;
    if (reading->variant != f.current_variant) {
      ImGui::SameLine();
      ImGui::TextColored(kWarning, "(older settings)");
    }
    if (err.non_finite) {
      wrapped(kError, "NaN or inf in the accelerations");
    } else {
      row("relative RMS", fmt("%.2e", err.rms));
      row("median / p99", fmt("%.2e", err.median) + fmt(" / %.2e", err.p99));
      row("max", fmt("%.2e", err.max));
      tooltip(
          "Per body: |a - a_ref| / |a_ref|. Where the pulls on a body nearly cancel this blows up although the "
          "approximation is no worse there.");
      row("vs RMS: p99 / max", fmt("%.2e", err.normalized_p99) + fmt(" / %.2e", err.normalized_max));
      tooltip(
          "|a - a_ref| / sqrt(mean |a_ref|^2): the error against the sample's typical acceleration, which "
          "cancellation cannot inflate. Median " +
          fmt("%.2e", err.normalized_median) + ", RMS " + fmt("%.2e", err.normalized_rms) + "; RMS acceleration " +
          fmt("%.3e", err.reference_rms) + ".");
      row("sample",
          with_commas(static_cast<std::int64_t>(reading->sample)) + " bodies, " + fmt("%.0f ms", reading->ms));
    }
  }
}

void Panel::generated_code_section(const PanelFacts& f) {
  const auto& kernels = *f.kernels;
  if (kernels.empty()) {
    wrapped(kMuted, f.simulation->backend().on_gpu()
                        ? "The backend reports no kernels yet."
                        : "The CPU backend compiles no kernels; run on a GPU to see the generated code.");
    return;
  }
  for (const auto& k : kernels) {
    if (k.reload_failed)
      wrapped(kError, k.name + ": the edited source does not compile; the previous module still runs.");
    if (!ImGui::TreeNodeEx(k.name.c_str(), k.reload_failed ? ImGuiTreeNodeFlags_DefaultOpen : 0)) continue;
    if (!k.variant.empty()) wrapped(kMuted, k.variant);
    auto known = [](int v, const char* unit) { return v < 0 ? std::string("?") : std::to_string(v) + unit; };
    row("registers", known(k.registers, " / thread"));
    row("spills", known(k.spill_bytes, " bytes"));
    row("shared memory", known(k.shared_bytes, " bytes"));
    if (k.instructions_per_interaction > 0) issue_ceiling_rows(f, k);
    int most = 1;
    for (const auto& [op, count] : k.instruction_mix) most = std::max(most, count);
    for (const auto& [op, count] : k.instruction_mix) {
      const std::string text = op + "  " + std::to_string(count);
      ImGui::ProgressBar(static_cast<float>(count) / static_cast<float>(most), ImVec2(-FLT_MIN, 0), text.c_str());
    }
    if (!k.compile_log.empty()) {
      ImGui::TextColored(k.reload_failed ? kError : kMuted, "compiler log");
      ImGui::BeginChild("log", ImVec2(0, ImGui::GetFontSize() * 8.0f), true, ImGuiWindowFlags_HorizontalScrollbar);
      ImGui::TextUnformatted(k.compile_log.c_str());
      ImGui::EndChild();
    }
    ImGui::TreePop();
  }
}

// Where the running kernel stands against the issue-slot ceiling: an SM issues at most 128
// thread-instructions per clock, so a hot loop of k instructions per interaction cannot beat
// SMs x 128 x clock / k interactions per second, whatever the memory does.
void Panel::issue_ceiling_rows(const PanelFacts& f, const KernelInfo& k) {
  row("per interaction", fmt("%.2f", k.instructions_per_interaction) + " instructions");
  tooltip("Issued instructions in the hot loop per interaction, counted in " + k.instruction_source +
          ". The SASS count is what the SM issues; the PTX count is the compiler's intermediate code, close but "
          "not the same (without -ftz, ptxas adds three instructions around every rsqrt that the PTX does not show).");
  const auto& device = *f.device;
  if (!device) return;
  const double ceiling = issue_ceiling(device->sm_count, device->clock_mhz, k.instructions_per_interaction);
  row("issue ceiling", si(ceiling, "") + " interactions/s");
  tooltip(
      "Issue slots: each of an SM's four schedulers issues one warp instruction per clock, 128 thread-instructions. " +
      std::to_string(device->sm_count) + " SMs x 128 instructions per clock x " + std::to_string(device->clock_mhz) +
      " MHz (the GPU's peak clock as the driver reports it; `nbodylab bench clock` measures the clock under load) / " +
      fmt("%.2f", k.instructions_per_interaction) + " instructions per interaction.");
  const Spread measured = f.stats->force_interactions_per_s.spread();
  if (!measured.empty() && ceiling > 0 && k.name.find("force") != std::string::npos)
    row("measured", si(measured.median, "") + "/s = " + fmt("%.0f%%", 100.0 * measured.median / ceiling) + " of it");
}

void Panel::keys_section() {
  for (const auto& k : kKeyBindings)
    if (!k.keys.empty()) row(std::string(k.keys).c_str(), std::string(k.description));
  for (const auto& [what, does] : kMouseBindings) row(std::string(what).c_str(), std::string(does));
}

}  // namespace nbl
