#include "app/core/frame_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "sim/file_util.hpp"
#include "sim/statistics.hpp"

namespace nbl {

namespace {

// A CSV field: quoted when it holds a comma, a quote or a line break (variant labels hold commas).
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(double value, const char* format = "%.3f") {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string optional_number(const std::optional<double>& value, const char* format = "%.4f") {
  return value ? number(*value, format) : std::string();
}

}  // namespace

const char* FrameTrace::csv_header() {
  return "frame,wall_s,interval_ms,simulate_ms,vertices_ms,render_ms,panel_ms,steps,building,build_state,build_label,"
         "variant,swap,swap_latency_s,script,ab_b,ab_state,ab_a_ms,ab_b_ms,ab_difference,swap_ms,teardown_ms,"
         "state_age_ms,steps_completed,stepping,camera_yaw_deg,camera_pitch_deg,camera_distance,drawn";
}

const char* FrameTrace::steps_csv_header() { return "step,wall_s,ms,kernel_ms,force_slices,variant,abandoned"; }

std::string FrameTrace::csv() const {
  std::string out = std::string(csv_header()) + "\n";
  for (const FrameRecord& r : records_) {
    out += std::to_string(r.frame) + "," + number(r.wall_s, "%.6f") + "," + number(r.interval_ms) + "," +
           number(r.simulate_ms) + "," + number(r.vertices_ms) + "," + number(r.render_ms) + "," +
           (r.panel_ms ? number(*r.panel_ms) : std::string()) + "," + std::to_string(r.steps) + "," +
           (r.building ? "1" : "0") + "," + field(r.build_state) + "," + field(r.build_label) + "," + field(r.variant) +
           "," + field(r.swap) + "," + (r.swap.empty() ? std::string() : number(r.swap_latency_s)) + "," +
           field(r.script) + "," + field(r.ab_b) + "," + field(r.ab_state) + "," + optional_number(r.ab_a_ms) + "," +
           optional_number(r.ab_b_ms) + "," + optional_number(r.ab_difference, "%.3g") + "," +
           optional_number(r.swap_ms) + "," + optional_number(r.teardown_ms) + "," +
           optional_number(r.state_age_ms, "%.3f") + "," + std::to_string(r.steps_completed) + "," +
           (r.stepping ? "1" : "0") + "," + optional_number(r.camera_yaw_deg, "%.4f") + "," +
           optional_number(r.camera_pitch_deg, "%.4f") + "," + optional_number(r.camera_distance, "%.6g") + "," +
           (r.drawn ? (*r.drawn ? "1" : "0") : "") + "\n";
  }
  return out;
}

std::string FrameTrace::steps_csv() const {
  std::string out = std::string(steps_csv_header()) + "\n";
  for (const StepRecord& r : steps_)
    out += std::to_string(r.step) + "," + number(r.wall_s, "%.6f") + "," + number(r.ms) + "," + number(r.kernel_ms) +
           "," + std::to_string(r.force_slices) + "," + field(r.variant) + "," + (r.abandoned ? "1" : "0") + "\n";
  return out;
}

std::filesystem::path FrameTrace::steps_file(const std::filesystem::path& file) {
  std::filesystem::path steps = file;
  steps.replace_filename(file.stem().string() + "-steps" + file.extension().string());
  return steps;
}

void FrameTrace::write_csv(const std::filesystem::path& file) const {
  write_file_atomically(file, csv());
  if (!steps_.empty()) write_file_atomically(steps_file(file), steps_csv());
}

TraceSummary FrameTrace::summarize() const {
  TraceSummary s;
  std::vector<double> all, outside, latencies, swap_ms, teardown_ms;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    const FrameRecord& r = records_[i];
    if (!r.swap.empty()) {
      (r.swap == "accepted" ? s.swaps_accepted : s.swaps_refused)++;
      latencies.push_back(r.swap_latency_s);
      if (r.swap == "accepted" && r.swap_ms) swap_ms.push_back(*r.swap_ms);
      if (r.swap == "accepted" && r.teardown_ms) teardown_ms.push_back(*r.teardown_ms);
    }
    if (i == 0) continue;  // the first frame builds fonts, shaders and buffers: start-up, not a frame's cost
    all.push_back(r.interval_ms);
    if (r.drawn && !*r.drawn) ++s.undrawn_frames;
    if (r.building) {
      ++s.build_frames;
      s.max_during_builds_ms = std::max(s.max_during_builds_ms, r.interval_ms);
    } else {
      outside.push_back(r.interval_ms);
      s.max_outside_builds_ms = std::max(s.max_outside_builds_ms, r.interval_ms);
    }
  }
  s.frames = all.size();
  if (!all.empty()) {
    s.median_ms = median(all);
    s.p95_ms = quantile(all, 0.95);
    s.max_ms = *std::max_element(all.begin(), all.end());
  }
  if (!outside.empty()) s.median_outside_builds_ms = median(outside);
  if (!latencies.empty()) {
    s.median_swap_latency_s = median(latencies);
    s.max_swap_latency_s = *std::max_element(latencies.begin(), latencies.end());
  }
  if (!swap_ms.empty()) {
    s.median_swap_ms = median(swap_ms);
    s.max_swap_ms = *std::max_element(swap_ms.begin(), swap_ms.end());
  }
  if (!teardown_ms.empty()) {
    s.median_teardown_ms = median(teardown_ms);
    s.max_teardown_ms = *std::max_element(teardown_ms.begin(), teardown_ms.end());
  }
  // A/B: consecutive frames comparing the same B form one group.
  std::vector<double> a_ms, b_ms, differences;
  auto close_group = [&] {
    if (s.comparisons.empty() || a_ms.empty()) return;
    TraceSummary::Comparison& c = s.comparisons.back();
    c.frames = a_ms.size();
    c.a_median_ms = median(a_ms);
    c.b_median_ms = median(b_ms);
    c.speedup = paired_speedup(a_ms, b_ms);
    if (!differences.empty()) c.difference_median = median(differences);
  };
  for (const FrameRecord& r : records_) {
    if (!r.ab_a_ms || !r.ab_b_ms) continue;
    if (s.comparisons.empty() || s.comparisons.back().b != r.ab_b) {
      close_group();
      a_ms.clear(), b_ms.clear(), differences.clear();
      TraceSummary::Comparison c;
      c.b = r.ab_b;
      s.comparisons.push_back(c);
    }
    a_ms.push_back(*r.ab_a_ms);
    b_ms.push_back(*r.ab_b_ms);
    if (r.ab_difference) differences.push_back(*r.ab_difference);
  }
  close_group();
  std::vector<double> step_ms, ages;
  for (const StepRecord& r : steps_) {
    if (r.abandoned) ++s.abandoned;
    else step_ms.push_back(r.ms), ++s.steps;
  }
  if (!step_ms.empty()) s.median_step_ms = median(step_ms);
  std::vector<const StepRecord*> finished;
  for (const StepRecord& r : steps_)
    if (!r.abandoned) finished.push_back(&r);
  if (finished.size() >= 2 && finished.back()->wall_s > finished.front()->wall_s)
    s.steps_per_s = static_cast<double>(finished.size() - 1) / (finished.back()->wall_s - finished.front()->wall_s);
  for (std::size_t i = 1; i < records_.size(); ++i)
    if (records_[i].state_age_ms) ages.push_back(*records_[i].state_age_ms);
  if (!ages.empty()) {
    s.median_state_age_ms = median(ages);
    s.p95_state_age_ms = quantile(ages, 0.95);
  }
  return s;
}

void FrameTrace::print_summary(std::ostream& out) const {
  const TraceSummary s = summarize();
  char line[640];
  out << "frame intervals: " << s.frames << " frame(s) after the first (which carries the start-up)\n";
  if (s.frames == 0) return;
  std::snprintf(line, sizeof line,
                "  all:             median %8.3f ms   p95 %8.3f ms (%.2fx the median)   max %8.3f ms\n", s.median_ms,
                s.p95_ms, s.median_ms > 0 ? s.p95_ms / s.median_ms : 0.0, s.max_ms);
  out << line;
  if (s.undrawn_frames > 0) {
    std::snprintf(line, sizeof line, "  drawn:           %zu of %zu (the others' picture was the one on screen)\n",
                  s.frames - s.undrawn_frames, s.frames);
    out << line;
  }
  if (s.frames > s.build_frames) {
    std::snprintf(line, sizeof line, "  outside builds:  median %8.3f ms   max %8.3f ms   (%zu frames)\n",
                  s.median_outside_builds_ms, s.max_outside_builds_ms, s.frames - s.build_frames);
    out << line;
  }
  if (s.build_frames > 0) {
    std::snprintf(line, sizeof line, "  during builds:   max %8.3f ms (%.2fx the median outside)   (%zu frames)\n",
                  s.max_during_builds_ms,
                  s.median_outside_builds_ms > 0 ? s.max_during_builds_ms / s.median_outside_builds_ms : 0.0,
                  s.build_frames);
    out << line;
  }
  if (s.swaps_accepted + s.swaps_refused > 0) {
    std::snprintf(line, sizeof line, "  builds: %d swapped in, %d refused; request to swap median %.3f s, max %.3f s\n",
                  s.swaps_accepted, s.swaps_refused, s.median_swap_latency_s, s.max_swap_latency_s);
    out << line;
  }
  if (s.swaps_accepted > 0) {
    std::snprintf(
        line, sizeof line,
        "  swap calls (frame loop): median %.3f ms, max %.3f ms; of that the old build's teardown median %.3f ms, "
        "max %.3f ms\n",
        s.median_swap_ms, s.max_swap_ms, s.median_teardown_ms, s.max_teardown_ms);
    out << line;
  }
  if (s.steps + s.abandoned > 0) {
    std::snprintf(line, sizeof line,
                  "  steps (own thread): %zu finished, %.3g steps/s, median %.3f ms a step; %zu abandoned; state on "
                  "screen median %.1f ms old, p95 %.1f ms\n",
                  s.steps, s.steps_per_s, s.median_step_ms, s.abandoned, s.median_state_age_ms, s.p95_state_age_ms);
    out << line;
  }
  for (const TraceSummary::Comparison& c : s.comparisons) {
    std::snprintf(line, sizeof line,
                  "  A/B, B = %s: %zu frame(s) compared; force computation A %.3f ms, B %.3f ms (medians); B is %s; "
                  "forces differ by %.2g (relative norm, median)\n",
                  c.b.empty() ? "a copy of A" : c.b.c_str(), c.frames, c.a_median_ms, c.b_median_ms,
                  c.speedup.describe().c_str(), c.difference_median);
    out << line;
  }
}

}  // namespace nbl
