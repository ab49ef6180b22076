// The guided tour in the lab: one step of sim/tour.hpp at a time. A step sets the
// running toggles through the panel's own path (SettingsEditor), and on a GPU starts A/B with B = the
// step it builds on, so the live speed-up of this step over the previous one comes from the same state
// every frame (sim/comparison.hpp). The single-thread rung is too slow to run at the lab's N: it is timed
// on a sample and scaled, as `bench ladder` does, and said so. What changed in the code (the kernel diff,
// cuda/engine/kernel_code_view.hpp) is read when the step opens; the generated-code mix of both sides (PTX from
// NVRTC, which needs no GPU) is compiled on a worker thread, with the force loop counted in PTX and in SASS
// (kernel_code_view.hpp's hot_loop_change). Predict, then measure, a mode for a class: a step waits for the
// speed-up the class expects before its kernels switch, then the session's table holds the prediction
// beside the live measurement, the tutorial's figure and the machine code's count, and exports as CSV or
// Markdown. Nothing here draws: app/lab/tour_view.cpp does.
#pragma once
#include <cstddef>
#include <filesystem>
#include <future>
#include <optional>
#include <string>
#include <string_view>
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
  std::optional<HotLoopChange> loop;  // a force kernel: its hot loop in PTX and SASS, before and after
};
// One row of the mix table: a quantity before and after ("" where a side has none).
struct MixRow {
  std::string label, before, after;
};
std::vector<MixRow> mix_rows(const EntryMix& mix);

struct StepCode {
  std::vector<KernelCodeChange> changes;                     // empty for the first step (nothing before it)
  std::vector<std::pair<std::string, std::string>> kernels;  // the step's kernels: stage, file (the first step's view)
  std::string problem;                                       // why the sources could not be read ("" when they were)
  std::vector<EntryMix> mix;                                 // filled by the worker
  bool mix_ready = false;
  std::string mix_problem;  // why there is no mix (no NVRTC, a compile error)
};

// The live comparison of a step with the one it builds on, in words the tour shows.
struct LiveSpeedup {
  enum class State { no_gpu, not_applicable, waiting, measured } state = State::waiting;
  std::string text;   // "1.34x faster than step 4 (+-0.02; force kernel, 118 frames on this state)"
  double median = 0;  // this step over the previous one: above 1 is faster
  double low = 0, high = 0;
  std::string label;  // how it was measured ("A/B on the same state", "rung 0 timed on 19 bodies and scaled")
};

// One step of a predict-then-measure session: what the class expected, what the GPU measured, what the
// tutorial measured, and what the machine code's count says.
struct PredictionRow {
  std::size_t step = 0;  // 0-based
  std::string title;
  std::optional<double> predicted;                  // the speed-up over the step before it; none: skipped
  std::string prediction_source;                    // "the class", "the tutorial's figure", or why it was skipped
  std::optional<double> live, live_low, live_high;  // measured: the median and its 95% interval
  std::string live_note;                            // how it was measured, or why it was not
  std::string tutorial;                             // the tutorial's figure in words ("" when it measured none)
  std::string code;                                 // "SASS" or "PTX": what the counts below count ("" when none)
  std::string per_interaction_before, per_interaction_after;  // the force loop's instructions per interaction
  std::string count_kind;    // "static" (instructions in the loop's code) or "issued" (measured)
  std::string machine_code;  // the code view's verdict on the force loop ("" when it did not change)
};

// The session's rows, in step order, and their export.
class PredictionTable {
 public:
  PredictionRow& row(std::size_t step);  // the step's row, created when it has none
  const PredictionRow* find(std::size_t step) const;
  const std::vector<PredictionRow>& rows() const { return rows_; }
  bool empty() const { return rows_.empty(); }

  std::string csv() const;
  std::string markdown(std::string_view heading) const;
  // CSV for FILE.csv, Markdown for FILE.md, written whole or not at all. Throws InputError for another
  // extension (check_prediction_table_path), Error when it cannot be written.
  void write(const std::filesystem::path& file, std::string_view heading) const;

 private:
  std::vector<PredictionRow> rows_;
};
// Refuses (InputError) a table file that is neither .csv nor .md or cannot be created; `what` names it.
void check_prediction_table_path(const std::filesystem::path& file, std::string_view what);

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
  LiveSpeedup live(const Simulation& simulation, const ComparisonHistory& history, bool ab_ready,
                   double force_ms) const;
  // The tour's own figure for a step the lab cannot run (the single-thread rung): "about 3.1 s per force
  // pass at 65,536 bodies (timed on 305 bodies, scaled)"; "" when none.
  std::string sampled_note() const;
  // What the machine code says about the open step's force loop (HotLoopChange::verdict), once the
  // generated code is compiled; "" when the step leaves the force kernel as it was, or before.
  std::string machine_code_verdict() const;

  // ---- Predict, then measure ----
  bool predicting() const { return predicting_; }
  void set_predicting(bool on);  // off: a step that waits for its prediction is dropped (nothing switches)
  // The step shown for a prediction, its kernels not switched yet; none when no step waits.
  std::optional<std::size_t> awaiting() const { return awaiting_; }
  const StepCode& awaiting_code() const { return preview_; }  // that step's source change (no generated code yet)
  // Whether opening `index` waits for a prediction: in predict mode, a step that has one before it.
  bool asks_prediction(std::size_t index) const;
  // Moves to step `index` (clamped): a step that asks for a prediction waits for it (awaiting()); any
  // other opens at once (go()).
  void request(std::size_t index, SettingsEditor& editor, const Simulation& simulation);
  // The speed-up expected of the awaited step over the one it builds on (none: skipped; `source` says whose
  // it is), recorded in the table; then the step opens. Without a step waiting, the next step is the one
  // predicted (predict mode turns on). Throws Error when the tour has no step left to predict.
  void predict(std::optional<double> speedup, const std::string& source, SettingsEditor& editor,
               const Simulation& simulation);
  // The tutorial's figure for the step predict() would take (its newest GPU's, or its largest N); none
  // when the tutorial did not measure it.
  std::optional<double> tutorial_prediction() const;
  void cancel_prediction();  // the awaited step is dropped; the open one stays
  // Once per frame: the open step's live measurement (Lab::tour_live) into its row, if it has one.
  void note_live(const LiveSpeedup& live);
  const PredictionTable& predictions() const { return predictions_; }

 private:
  void start_mix(double softening);
  void fill_code_counts();

  Tour tour_;
  std::size_t step_ = 0;
  bool ab_started_ = false;  // this step's A/B was handed to the editor
  StepCode code_;
  std::future<std::vector<EntryMix>> mix_job_;
  std::optional<SampledRung> sampled_;
  std::future<SampledRung> sampled_job_;
  std::string sampled_problem_;

  bool predicting_ = false;
  std::optional<std::size_t> awaiting_;
  StepCode preview_;
  PredictionTable predictions_;
};

}  // namespace nbl
