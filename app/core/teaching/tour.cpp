#include "app/core/teaching/tour.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/core/text_format.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/ladder.hpp"

namespace nbl {

namespace {

std::string number(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

template <class T>
bool ready(const std::future<T>& f) {
  return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

int mix_count(const KernelInfo& k, const char* cls) {
  for (const auto& [name, count] : k.instruction_mix)
    if (name == cls) return count;
  return 0;
}

// Issued PTX instructions per interaction in the hot loop (the loop's instructions over its unrolled
// bodies); NaN without a loop of interactions. Only the force kernels' loops evaluate interactions: the
// RMS-pull kernel beside them (bh_pull_scale) has a loop with a square root too, but of one sum per body.
double per_interaction(const KernelInfo& k, const std::string& entry) {
  const int bodies = mix_count(k, "loop bodies");
  const bool force = entry == "allpairs_force" || entry == "bh_force";
  return force && bodies > 0 ? static_cast<double>(mix_count(k, "loop instructions")) / bodies : std::nan("");
}

// The kernels of both sides compiled by NVRTC (cached like every build), each entry's report side by side.
std::vector<EntryMix> compile_mix(std::vector<std::pair<std::string, KernelSource>> before,
                                  std::vector<std::pair<std::string, KernelSource>> after) {
  auto engine = shared_kernel_engine();
  std::vector<EntryMix> out;
  for (const auto& [stage, source] : after) {
    if (before.empty() && stage != "force") continue;  // the first step: the force kernel, where the tour starts
    const auto b = std::find_if(before.begin(), before.end(), [&](const auto& s) { return s.first == stage; });
    if (b != before.end() && b->second.same_code(source)) continue;
    const auto now = engine->compile(source);
    std::shared_ptr<const CompiledProgram> then;
    if (b != before.end()) then = engine->compile(b->second);
    for (const PtxEntryStats& e : now->entries) {
      EntryMix m;
      m.kernel = stage;
      m.entry = e.name;
      m.after = now->kernel_info(e.name);
      if (is_force_entry(e.name)) m.loop = hot_loop_change(then.get(), *now, e.name);
      if (then && then->entry(e.name)) {
        m.before = then->kernel_info(e.name);
        m.before_exists = true;
        // An entry the step did not change (the integrator beside a new force loop) is left out.
        if (m.before.registers == m.after.registers && m.before.instruction_mix == m.after.instruction_mix) continue;
      }
      out.push_back(std::move(m));
    }
  }
  // The kernels with a hot loop of interactions first: where the step's change shows.
  std::stable_sort(out.begin(), out.end(), [](const EntryMix& a, const EntryMix& b) {
    return !std::isnan(per_interaction(a.after, a.entry)) && std::isnan(per_interaction(b.after, b.entry));
  });
  return out;
}

}  // namespace

std::vector<MixRow> mix_rows(const EntryMix& m) {
  std::vector<MixRow> rows;
  auto side = [&](bool exists, const std::string& text) { return exists ? text : std::string(); };
  rows.push_back({"registers per thread",
                  side(m.before_exists && m.before.registers >= 0, std::to_string(m.before.registers)),
                  m.after.registers >= 0 ? std::to_string(m.after.registers) : ""});
  const struct {
    const char* cls;
    const char* label;
  } classes[] = {{"total", "PTX instructions (whole kernel)"},
                 {"fma.f32", "fma.f32"},
                 {"rsqrt", "rsqrt (MUFU.RSQ)"},
                 {"sqrt", "sqrt"},
                 {"div", "div"},
                 {"ld.global", "loads: global"},
                 {"ld.shared", "loads: shared"},
                 {"ld.const", "loads: constant"},
                 {"shfl.sync", "shuffles"},
                 {"setp", "compares (setp)"},
                 {"bra", "branches"},
                 {"bar.sync", "barriers"},
                 {"atom", "atomics"}};
  for (const auto& c : classes) {
    const int b = mix_count(m.before, c.cls), a = mix_count(m.after, c.cls);
    if (a == 0 && b == 0) continue;
    rows.push_back({c.label, side(m.before_exists, std::to_string(b)), std::to_string(a)});
  }
  if (m.after.spill_bytes > 0 || (m.before_exists && m.before.spill_bytes > 0))
    rows.push_back({"spill bytes", side(m.before_exists, std::to_string(m.before.spill_bytes)),
                    std::to_string(m.after.spill_bytes)});
  return rows;
}

void TourSession::go(std::size_t index, SettingsEditor& editor, const Simulation& simulation) {
  step_ = std::min(index, tour_.steps.size() - 1);
  ab_started_ = false;
  if (editor.comparison()) editor.clear_comparison();            // the last step's B; this step's starts in sync()
  const TourStepSettings running = step_settings(tour_, step_);  // the algorithm, its toggles, theta
  editor.set_algorithm(running.algorithm);
  for (std::size_t i = 0; i < kToggleCount; ++i)
    if (kToggles[i].algorithm == running.algorithm) editor.set_toggle(kToggles[i], running.toggles.values[i]);
  for (const TourSetting& setting : running.settings) editor.set(*setting.setting, setting.value);

  const double softening = simulation.effective_settings().softening.value_or(simulation.softening());
  code_ = StepCode{};
  const TourStep& s = current();
  try {
    auto engine = shared_kernel_engine();
    for (const auto& [stage, source] : kernel_sources(tour_.algorithm(), s.toggles, softening))
      code_.kernels.emplace_back(stage, source.file);
    if (s.previous)
      code_.changes =
          kernel_code_changes(*engine, tour_.algorithm(), tour_.steps[*s.previous].toggles, s.toggles, softening);
  } catch (const std::exception& e) {
    code_.problem = e.what();
  }
  start_mix(softening);

  // The N-threads step is compared with the single-thread rung, which cannot run at the lab's N: time it
  // on a sample once per tour (a GPU only).
  const bool needs_sample = s.sampled_only || (s.previous && tour_.steps[*s.previous].sampled_only);
  if (needs_sample && simulation.backend().on_gpu() && !sampled_ && !sampled_job_.valid()) {
    AllPairsBenchOptions o;
    o.n = simulation.body_count();
    o.scene = simulation.settings().scene;
    o.seed = simulation.settings().seed;
    o.softening = softening;
    o.measure_clock = false;
    o.progress = false;
    // A few bodies against all: one thread takes about 15 ms per body at 65,536 (H100), and while its
    // passes run a module load anywhere on the device waits for them. The ladder's budget (2e7
    // interactions, 4.7 s a pass) froze the lab's frame for 14 s on the H200.
    o.single_thread_budget = 3e5;
    sampled_job_ = std::async(std::launch::async, [o] { return time_single_thread_rung(o); });
  }
}

void TourSession::start_mix(double softening) {
  const TourStep& s = current();
  if (std::string why; !KernelEngine::nvrtc_available(&why)) {
    code_.mix_problem = "No generated-code figures: " + why;
    return;
  }
  auto after = kernel_sources(tour_.algorithm(), s.toggles, softening);
  auto before = s.previous ? kernel_sources(tour_.algorithm(), tour_.steps[*s.previous].toggles, softening)
                           : std::vector<std::pair<std::string, KernelSource>>{};
  mix_job_ = std::async(std::launch::async, [before, after] { return compile_mix(before, after); });
}

void TourSession::sync(SettingsEditor& editor, const Simulation& simulation) {
  if (ready(mix_job_)) {
    try {
      code_.mix = mix_job_.get();
    } catch (const CompileError& e) {
      code_.mix_problem = std::string("The kernel did not compile: ") + e.what();
    } catch (const std::exception& e) {
      code_.mix_problem = e.what();
    }
    code_.mix_ready = true;
    fill_code_counts();
  }
  if (ready(sampled_job_)) {
    try {
      sampled_ = sampled_job_.get();
    } catch (const std::exception& e) {
      sampled_problem_ = e.what();
    }
  }
  const TourStep& s = current();
  if (ab_started_ || !s.previous || s.sampled_only || tour_.steps[*s.previous].sampled_only) return;
  if (!simulation.backend().on_gpu() || simulation.settings().algorithm != tour_.algorithm()) return;
  Settings b = editor.draft();
  b.toggles = tour_.steps[*s.previous].toggles;
  editor.start_comparison(b);
  ab_started_ = true;
}

void TourSession::close(SettingsEditor& editor) {
  if (editor.comparison()) editor.clear_comparison();
}

std::string TourSession::sampled_note() const {
  if (!sampled_problem_.empty()) return "The single-thread rung could not be timed: " + sampled_problem_;
  if (!sampled_) return sampled_job_.valid() ? "Timing the single-thread rung on a sample of the bodies..." : "";
  const double s = sampled_->ms * 1e-3;
  return "One GPU thread would take " + (s >= 1 ? number("%.3g s", s) : number("%.3g ms", sampled_->ms)) +
         " per force pass at " + with_commas(static_cast<std::int64_t>(sampled_->n)) + " bodies (timed on the first " +
         with_commas(static_cast<std::int64_t>(sampled_->timed_bodies)) + " against all of them and scaled by " +
         number("%.4g", static_cast<double>(sampled_->n) /
                            static_cast<double>(std::max<std::size_t>(sampled_->timed_bodies, 1))) +
         ", as bench ladder does). The lab runs the next step's code meanwhile.";
}

LiveSpeedup TourSession::live(const Simulation& simulation, const ComparisonHistory& history, bool ab_ready,
                              double force_ms) const {
  LiveSpeedup l;
  const TourStep& s = current();
  if (!simulation.backend().on_gpu()) {
    l.state = LiveSpeedup::State::no_gpu;
    l.text =
        "Live GPU timings need a GPU: this lab runs on " + simulation.backend().name() +
        (simulation.notice().empty() ? "" : " (" + simulation.notice() + ")") +
        ". The code changes and the tutorial's figures are all here; run the tour on a machine with an NVIDIA GPU to "
        "see this step's speed-up measured.";
    return l;
  }
  if (!s.previous) {
    l.state = LiveSpeedup::State::not_applicable;
    l.text = s.sampled_only ? sampled_note() : "The starting point: the next steps are measured against it.";
    return l;
  }
  const std::string previous = "step " + std::to_string(*s.previous + 1);
  if (tour_.steps[*s.previous].sampled_only) {  // N threads against one thread: the sample, scaled
    l.label = "the single-thread rung timed on a sample and scaled";
    if (!sampled_ || force_ms <= 0) {
      l.state = LiveSpeedup::State::waiting;
      l.text = sampled_problem_.empty() ? "Measuring: " + sampled_note() : sampled_note();
      if (l.text == "Measuring: ") l.text = "Measuring...";
      return l;
    }
    l.state = LiveSpeedup::State::measured;
    l.median = l.low = l.high = sampled_->ms / force_ms;
    l.text = with_commas(static_cast<std::int64_t>(std::llround(l.median))) + "x faster than " + previous +
             " (force pass; " + previous + " timed on " +
             with_commas(static_cast<std::int64_t>(sampled_->timed_bodies)) + " bodies and scaled to " +
             with_commas(static_cast<std::int64_t>(sampled_->n)) + ", this step's median over the last frames)";
    return l;
  }
  l.label = "A/B on the same state every frame";
  if (simulation.settings().algorithm != tour_.algorithm() ||
      !toggle_changes(simulation.settings().toggles, tour_.running_toggles(step_), tour_.algorithm()).empty() ||
      !ab_ready || history.size() == 0) {
    l.state = LiveSpeedup::State::waiting;
    l.text =
        "Measuring: building this step's and " + previous + "'s kernels, then comparing them on the same bodies...";
    return l;
  }
  const auto rows = history.rows();
  const auto total = std::find_if(rows.begin(), rows.end(), [](const auto& r) { return r.stage == "total"; });
  if (total == rows.end() || total->speedup.empty()) {
    l.state = LiveSpeedup::State::waiting;
    l.text = "Measuring...";
    return l;
  }
  // A is this step, B the previous one: this step's speed-up is B's time over A's, the inverse of A/B's.
  l.state = LiveSpeedup::State::measured;
  l.median = 1.0 / total->speedup.median;
  l.low = 1.0 / total->speedup.high;
  l.high = 1.0 / total->speedup.low;
  const double half = 0.5 * (l.high - l.low);
  const bool faster = l.median >= 1.0;
  l.text = number("%.2fx", faster ? l.median : 1.0 / l.median) + (faster ? " faster" : " slower") + " than " +
           previous + " (" + (faster ? number("+-%.2f", half) : number("+-%.2f", half / (l.median * l.median))) + ", " +
           (tour_.kind == TourKind::allpairs ? "force kernel" : "all Barnes-Hut stages") + ", median of " +
           std::to_string(total->speedup.pairs) + " frames on the same bodies)";
  if (tour_.kind == TourKind::barneshut && !s.kernel.empty()) {
    const auto stage = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.stage == s.kernel; });
    if (stage != rows.end() && !stage->speedup.empty())
      l.text += "; " + s.kernel + " alone " + number("%.2fx", 1.0 / stage->speedup.median);
  }
  return l;
}

// ---- Predict, then measure ----------------------------------------------------------------------------

namespace {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string markdown_cell(std::string text) {
  for (std::size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

std::string optional_number(const std::optional<double>& v) { return v ? number("%.6g", *v) : std::string(); }

std::string extension_of(const std::filesystem::path& file) {
  std::string e = file.extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// A speed-up as the table shows it: "1.23x".
std::string times(double v) { return number(v >= 100 ? "%.0fx" : "%.2fx", v); }

}  // namespace

PredictionRow& PredictionTable::row(std::size_t step) {
  auto it = std::find_if(rows_.begin(), rows_.end(), [&](const PredictionRow& r) { return r.step >= step; });
  if (it != rows_.end() && it->step == step) return *it;
  PredictionRow r;
  r.step = step;
  return *rows_.insert(it, r);
}

const PredictionRow* PredictionTable::find(std::size_t step) const {
  for (const PredictionRow& r : rows_)
    if (r.step == step) return &r;
  return nullptr;
}

std::string PredictionTable::csv() const {
  std::string out =
      "step,title,predicted_speedup,prediction_source,live_speedup,live_low,live_high,live_note,tutorial,code,"
      "per_interaction_before,per_interaction_after,count,machine_code\n";
  for (const PredictionRow& r : rows_) {
    const std::vector<std::string> fields = {std::to_string(r.step + 1),
                                             r.title,
                                             optional_number(r.predicted),
                                             r.prediction_source,
                                             optional_number(r.live),
                                             optional_number(r.live_low),
                                             optional_number(r.live_high),
                                             r.live_note,
                                             r.tutorial,
                                             r.code,
                                             r.per_interaction_before,
                                             r.per_interaction_after,
                                             r.count_kind,
                                             r.machine_code};
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + csv_field(fields[i]);
    out += "\n";
  }
  return out;
}

std::string PredictionTable::markdown(std::string_view heading) const {
  std::string out = "## " + std::string(heading) + "\n\n";
  out +=
      "| step | title | predicted | live on this machine (95% interval) | the tutorial | instructions per interaction, "
      "force loop |\n";
  out += "| --- | --- | --- | --- | --- | --- |\n";
  for (const PredictionRow& r : rows_) {
    std::string predicted = r.predicted ? times(*r.predicted) : std::string("skipped");
    if (r.predicted && !r.prediction_source.empty() && r.prediction_source != "the class")
      predicted += " (" + r.prediction_source + ")";
    std::string live = r.live ? times(*r.live) : std::string("-");
    if (r.live && r.live_low && r.live_high && (*r.live_low != *r.live || *r.live_high != *r.live))
      live += " (" + number("%.2f", *r.live_low) + " to " + number("%.2f", *r.live_high) + ")";
    if (!r.live_note.empty()) live = r.live ? live + "; " + r.live_note : r.live_note;
    std::string code = "-";
    if (!r.code.empty())
      code = r.code + ", " + r.count_kind + ": " + (r.per_interaction_before.empty() ? "-" : r.per_interaction_before) +
             " -> " + (r.per_interaction_after.empty() ? "-" : r.per_interaction_after);
    else if (!r.machine_code.empty()) code = r.machine_code;
    out += "| " + std::to_string(r.step + 1) + " | " + markdown_cell(r.title) + " | " + markdown_cell(predicted) +
           " | " + markdown_cell(live) + " | " + markdown_cell(r.tutorial.empty() ? "-" : r.tutorial) + " | " +
           markdown_cell(code) + " |\n";
  }
  return out;
}

void check_prediction_table_path(const std::filesystem::path& file, std::string_view what) {
  const std::string e = extension_of(file);
  if (e != ".csv" && e != ".md")
    throw InputError(std::string(what) + ": \"" + file.string() +
                     "\" must end in .csv (a table for a spreadsheet) or .md (Markdown)");
  check_output_file(file, what);
}

void PredictionTable::write(const std::filesystem::path& file, std::string_view heading) const {
  check_prediction_table_path(file, "the predictions table");
  write_file_atomically(file, extension_of(file) == ".csv" ? csv() : markdown(heading));
}

bool TourSession::asks_prediction(std::size_t index) const {
  return predicting_ && index < tour_.steps.size() && tour_.steps[index].previous.has_value();
}

void TourSession::set_predicting(bool on) {
  predicting_ = on;
  if (!on) cancel_prediction();
}

void TourSession::cancel_prediction() {
  awaiting_.reset();
  preview_ = StepCode{};
}

void TourSession::request(std::size_t index, SettingsEditor& editor, const Simulation& simulation) {
  index = std::min(index, tour_.steps.size() - 1);
  if (!asks_prediction(index)) {
    cancel_prediction();
    go(index, editor, simulation);
    return;
  }
  awaiting_ = index;
  // What the step will change in the source, for the class to reason from (the generated code, which
  // tells the answer away, comes once the step runs).
  preview_ = StepCode{};
  const TourStep& s = tour_.steps[index];
  try {
    const double softening = simulation.effective_settings().softening.value_or(simulation.softening());
    auto engine = shared_kernel_engine();
    for (const auto& [stage, source] : kernel_sources(tour_.algorithm(), s.toggles, softening))
      preview_.kernels.emplace_back(stage, source.file);
    preview_.changes =
        kernel_code_changes(*engine, tour_.algorithm(), tour_.steps[*s.previous].toggles, s.toggles, softening);
  } catch (const std::exception& e) {
    preview_.problem = e.what();
  }
}

std::optional<double> TourSession::tutorial_prediction() const {
  const std::size_t index = awaiting_ ? *awaiting_ : step_ + 1;
  if (index >= tour_.steps.size()) return std::nullopt;
  const std::vector<double> values = tutorial_speedups(tour_, tour_.steps[index]);
  if (values.empty()) return std::nullopt;
  return values.back();  // the ladder's GeForce GTX 680, the Barnes-Hut switches' 5,000,000 bodies
}

void TourSession::predict(std::optional<double> speedup, const std::string& source, SettingsEditor& editor,
                          const Simulation& simulation) {
  predicting_ = true;
  if (!awaiting_) {
    std::size_t next = step_ + 1;
    while (next < tour_.steps.size() && !tour_.steps[next].previous) ++next;
    if (next >= tour_.steps.size())
      throw Error("the tour is at its last step (" + std::to_string(step_ + 1) + " of " +
                  std::to_string(tour_.steps.size()) + "): there is no step left to predict");
    awaiting_ = next;
  }
  const std::size_t index = *awaiting_;
  const TourStep& s = tour_.steps[index];
  PredictionRow& r = predictions_.row(index);
  r = PredictionRow{};
  r.step = index;
  r.title = s.title;
  r.predicted = speedup;
  r.prediction_source = speedup ? source : (source.empty() ? "skipped" : source);
  r.tutorial = tutorial_speedup(tour_, s);
  if (!r.tutorial.empty()) r.tutorial += " (" + tutorial_reference(tour_, s) + ")";
  cancel_prediction();
  go(index, editor, simulation);
}

void TourSession::note_live(const LiveSpeedup& live) {
  if (awaiting_) return;                  // the running kernels are still the previous step's
  if (!predictions_.find(step_)) return;  // a step opened without a prediction
  PredictionRow* r = &predictions_.row(step_);
  switch (live.state) {
    case LiveSpeedup::State::measured:
      r->live = live.median;
      r->live_low = live.low;
      r->live_high = live.high;
      r->live_note = live.label;
      break;
    case LiveSpeedup::State::no_gpu: r->live_note = "no live A/B: the CPU backend runs, and A/B needs a GPU"; break;
    case LiveSpeedup::State::not_applicable: r->live_note = live.text; break;
    case LiveSpeedup::State::waiting:
      if (!r->live) r->live_note = "not measured: the step's A/B had not finished when the session moved on";
      break;
  }
}

void TourSession::fill_code_counts() {
  if (!predictions_.find(step_)) return;
  PredictionRow& r = predictions_.row(step_);
  r.code.clear();
  r.per_interaction_before.clear();
  r.per_interaction_after.clear();
  r.count_kind.clear();
  r.machine_code = machine_code_verdict();
  for (const EntryMix& m : code_.mix) {
    if (!m.loop) continue;
    const HotLoopChange& c = *m.loop;
    const bool sass = c.sass_after && (!c.has_before || c.sass_before);
    const std::optional<HotLoop>& before = sass ? c.sass_before : c.ptx_before;
    const std::optional<HotLoop>& after = sass ? c.sass_after : c.ptx_after;
    if (!after) continue;
    r.code = sass ? "SASS" : "PTX (SASS not read: " + c.sass_missing + ")";
    r.per_interaction_before = before ? number("%.2f", before->per_interaction()) : "";
    r.per_interaction_after = number("%.2f", after->per_interaction());
    r.count_kind = "static";  // the loop's code; no measurement of issued instructions in this view
    return;
  }
  if (r.machine_code.empty() && code_.mix_problem.empty())
    r.machine_code = "the step does not change the force kernel's code";
}

std::string TourSession::machine_code_verdict() const {
  for (const EntryMix& m : code_.mix)
    if (m.loop) return m.loop->verdict();
  return "";
}

}  // namespace nbl
