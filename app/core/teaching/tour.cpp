#include "app/core/teaching/tour.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app/core/text_format.hpp"
#include "sim/error.hpp"
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
  const double ipi_b = per_interaction(m.before, m.entry), ipi_a = per_interaction(m.after, m.entry);
  if (m.kernel == "force" && (!std::isnan(ipi_a) || !std::isnan(ipi_b)))  // a force loop: one square root per interaction
    rows.push_back({"PTX instructions per interaction (hot loop)", std::isnan(ipi_b) || !m.before_exists ? "" : number("%.2f", ipi_b),
                    std::isnan(ipi_a) ? "" : number("%.2f", ipi_a)});
  rows.push_back({"registers per thread", side(m.before_exists && m.before.registers >= 0, std::to_string(m.before.registers)),
                  m.after.registers >= 0 ? std::to_string(m.after.registers) : ""});
  const struct {
    const char* cls;
    const char* label;
  } classes[] = {{"total", "PTX instructions (whole kernel)"}, {"fma.f32", "fma.f32"}, {"rsqrt", "rsqrt (MUFU.RSQ)"},
                 {"sqrt", "sqrt"}, {"div", "div"}, {"ld.global", "loads: global"}, {"ld.shared", "loads: shared"},
                 {"ld.const", "loads: constant"}, {"shfl.sync", "shuffles"}, {"setp", "compares (setp)"}, {"bra", "branches"},
                 {"bar.sync", "barriers"}, {"atom", "atomics"}};
  for (const auto& c : classes) {
    const int b = mix_count(m.before, c.cls), a = mix_count(m.after, c.cls);
    if (a == 0 && b == 0) continue;
    rows.push_back({c.label, side(m.before_exists, std::to_string(b)), std::to_string(a)});
  }
  if (m.after.spill_bytes > 0 || (m.before_exists && m.before.spill_bytes > 0))
    rows.push_back({"spill bytes", side(m.before_exists, std::to_string(m.before.spill_bytes)), std::to_string(m.after.spill_bytes)});
  return rows;
}

void TourSession::go(std::size_t index, SettingsEditor& editor, const Simulation& simulation) {
  step_ = std::min(index, tour_.steps.size() - 1);
  ab_started_ = false;
  if (editor.comparison()) editor.clear_comparison();  // the last step's B; this step's starts in sync()
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
      code_.changes = kernel_code_changes(*engine, tour_.algorithm(), tour_.steps[*s.previous].toggles, s.toggles, softening);
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
  return "One GPU thread would take " + (s >= 1 ? number("%.3g s", s) : number("%.3g ms", sampled_->ms)) + " per force pass at " +
         with_commas(static_cast<std::int64_t>(sampled_->n)) + " bodies (timed on the first " +
         with_commas(static_cast<std::int64_t>(sampled_->timed_bodies)) + " against all of them and scaled by " +
         number("%.4g", static_cast<double>(sampled_->n) / static_cast<double>(std::max<std::size_t>(sampled_->timed_bodies, 1))) +
         ", as bench ladder does). The lab runs the next step's code meanwhile.";
}

LiveSpeedup TourSession::live(const Simulation& simulation, const ComparisonHistory& history, bool ab_ready, double force_ms) const {
  LiveSpeedup l;
  const TourStep& s = current();
  if (!simulation.backend().on_gpu()) {
    l.state = LiveSpeedup::State::no_gpu;
    l.text = "Live GPU timings need a GPU: this lab runs on " + simulation.backend().name() +
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
             " (force pass; " + previous + " timed on " + with_commas(static_cast<std::int64_t>(sampled_->timed_bodies)) +
             " bodies and scaled to " + with_commas(static_cast<std::int64_t>(sampled_->n)) + ", this step's median over the last frames)";
    return l;
  }
  l.label = "A/B on the same state every frame";
  if (simulation.settings().algorithm != tour_.algorithm() || !toggle_changes(simulation.settings().toggles, tour_.running_toggles(step_), tour_.algorithm()).empty() ||
      !ab_ready || history.size() == 0) {
    l.state = LiveSpeedup::State::waiting;
    l.text = "Measuring: building this step's and " + previous + "'s kernels, then comparing them on the same bodies...";
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
  l.text = number("%.2fx", faster ? l.median : 1.0 / l.median) + (faster ? " faster" : " slower") + " than " + previous +
           " (" + (faster ? number("+-%.2f", half) : number("+-%.2f", half / (l.median * l.median))) + ", " +
           (tour_.kind == TourKind::allpairs ? "force kernel" : "all Barnes-Hut stages") + ", median of " +
           std::to_string(total->speedup.pairs) + " frames on the same bodies)";
  if (tour_.kind == TourKind::barneshut && !s.kernel.empty()) {
    const auto stage = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.stage == s.kernel; });
    if (stage != rows.end() && !stage->speedup.empty())
      l.text += "; " + s.kernel + " alone " + number("%.2fx", 1.0 / stage->speedup.median);
  }
  return l;
}

}  // namespace nbl
