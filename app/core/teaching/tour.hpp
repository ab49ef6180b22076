// The guided tour in the lab: one step of sim/tour.hpp at a time. A step sets the
// running toggles through the panel's own path (SettingsEditor), and on a GPU starts A/B with B = the
// step it builds on, so the live speed-up of this step over the previous one comes from the same state
// every frame (sim/comparison.hpp). The single-thread rung is too slow to run at the lab's N: it is timed
// on a sample and scaled, as `bench ladder` does, and said so. What changed in the code (the kernel diff,
// cuda/engine/kernel_code_view.hpp) is read when the step opens; the generated-code mix of both sides (PTX from
// NVRTC, which needs no GPU) is compiled on a worker thread. Nothing here draws: app/lab/tour_view.cpp does.
#pragma once
#include <cstddef>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "app/core/teaching/allpairs_bench.hpp"
#include "app/core/settings_editor.hpp"
#include "app/core/simulation.hpp"
#include "cuda/engine/kernel_code_view.hpp"
#include "sim/comparison.hpp"
#include "sim/tour.hpp"

namespace nbl {

// The generated code of one kernel entry on both sides of a step (PTX analysis and ptxas's report).
struct EntryMix {
  std::string kernel;  // the stage
  std::string entry;   // the kernel's name
  KernelInfo before, after;
  bool before_exists = false;
};
// One row of the mix table: a quantity before and after ("" where a side has none).
struct MixRow {
  std::string label, before, after;
};
std::vector<MixRow> mix_rows(const EntryMix& mix);

struct StepCode {
  std::vector<KernelCodeChange> changes;  // empty for the first step (nothing before it)
  std::vector<std::pair<std::string, std::string>> kernels;  // the step's kernels: stage, file (the first step's view)
  std::string problem;                    // why the sources could not be read ("" when they were)
  std::vector<EntryMix> mix;              // filled by the worker
  bool mix_ready = false;
  std::string mix_problem;  // why there is no mix (no NVRTC, a compile error)
};

// The live comparison of a step with the one it builds on, in words the tour shows.
struct LiveSpeedup {
  enum class State { no_gpu, not_applicable, waiting, measured } state = State::waiting;
  std::string text;    // "1.34x faster than step 4 (+-0.02; force kernel, 118 frames on this state)"
  double median = 0;   // this step over the previous one: above 1 is faster
  double low = 0, high = 0;
  std::string label;   // how it was measured ("A/B on the same state", "rung 0 timed on 19 bodies and scaled")
};

class TourSession {
 public:
  explicit TourSession(Tour tour) : tour_(std::move(tour)) {}

  const Tour& tour() const { return tour_; }
  std::size_t step() const { return step_; }
  const TourStep& current() const { return tour_.steps[step_]; }
  bool has_next() const { return step_ + 1 < tour_.steps.size(); }
  bool has_previous() const { return step_ > 0; }

  // Opens step `index` (clamped): the running algorithm and toggles become the step's, through `editor`;
  // the code view is read and its mix starts compiling. A/B starts in sync() once the algorithm runs.
  void go(std::size_t index, SettingsEditor& editor, const Simulation& simulation);
  // Once per frame, before the editor's sync: starts the step's A/B (B = the previous step) when the
  // simulation runs the tour's algorithm on a GPU, once per step (a B the lab cleared stays cleared,
  // with the lab's reason on screen); collects the mix and the single-thread timing when they are done.
  void sync(SettingsEditor& editor, const Simulation& simulation);
  // Ends the tour's A/B (the toggles stay as the last step left them).
  void close(SettingsEditor& editor);

  const StepCode& code() const { return code_; }
  // This step against the one it builds on, from `history` (A = this step, B = the previous one), or
  // for the N-threads step from the sampled single-thread rung and A's median force time `force_ms`.
  LiveSpeedup live(const Simulation& simulation, const ComparisonHistory& history, bool ab_ready, double force_ms) const;
  // The tour's own figure for a step the lab cannot run (the single-thread rung): "about 3.1 s per force
  // pass at 65,536 bodies (timed on 305 bodies, scaled)"; "" when none.
  std::string sampled_note() const;

 private:
  void start_mix(double softening);

  Tour tour_;
  std::size_t step_ = 0;
  bool ab_started_ = false;  // this step's A/B was handed to the editor
  StepCode code_;
  std::future<std::vector<EntryMix>> mix_job_;
  std::optional<SampledRung> sampled_;
  std::future<SampledRung> sampled_job_;
  std::string sampled_problem_;
};

}  // namespace nbl
