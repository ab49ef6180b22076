// The guided tour through Burtscher's CUDA optimization tutorial: the all-pairs ladder step by step, or the
// Barnes-Hut kernels switch by switch. What each step sets comes from the lab's own tables, never
// restated: an all-pairs step names a rung of kLadder (sim/ladder.hpp) and runs ladder_toggles(rung); a
// Barnes-Hut step names a switch of kToggles and its value, or a setting (theta), on top of the steps
// before it, from a "start" that names every Barnes-Hut toggle and every setting a step may change (so a
// step's configuration never depends on the defaults). The first step is the tutorial's configuration
// (kTutorialConfiguration); a step may also switch nothing and say why a row of the tutorial's table
// has no switch here (a note).
// The words a teacher reads out (two or three sentences per step, and what today's GPUs show) are data:
// assets/tour/allpairs.json and assets/tour/barneshut.json. They quote no measured figure: the tour
// shows what a GPU measured in the step's configuration from assets/measured/figures.json
// (sim/measured_figures.hpp), and the tutorial's speed-ups from the lab's tables (kLadder's per-GPU
// figures, the switch's `tutorial` text). A figure of the tutorial quoted in a text carries the tag
// "[tutorial: where]", shown as "(the tutorial, where)" (teaching_text). No CUDA here.
#pragma once
#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/settings.hpp"
#include "sim/settings_table.hpp"
#include "sim/toggles.hpp"

namespace nbl {

// The tutorial's Barnes-Hut before the optimizations of its Kernel Speedups table (Part II): each
// setting as the command line writes it, with where the tutorial says so. The Barnes-Hut tour's first
// step runs exactly this (tests/sim/tour_test.cpp), and docs/teaching-audit.md's row lists it. The
// toggles it leaves out are not in the tutorial and change nothing in this configuration
// (tests/cuda/barneshut_variant_test.cpp).
struct TutorialChoice {
  std::string_view key;    // a Barnes-Hut toggle's key, or a setting's ("theta")
  std::string_view value;  // toggle_value_text's words, or the setting's number
  std::string_view evidence;
};
inline constexpr std::array kTutorialConfiguration = {
    TutorialChoice{"bh_build", "insertion",
                   "Part II, Kernel 2: Build Octree (slides 90-91): top-down insertion, locking child slots"},
    TutorialChoice{"bh_throttle", "off", "Part II, Kernel Speedups (slide 103): throttling barrier, an optimization"},
    TutorialChoice{"bh_combined_fence", "off",
                   "Part II, Kernel Speedups (slide 103): combined mem fence, an optimization"},
    TutorialChoice{"bh_waitfree", "off", "Part II, Kernel Speedups (slide 103): waitfree pre-pass, an optimization"},
    TutorialChoice{"bh_sort", "off", "Part II, Kernel Speedups (slide 103): sorting of bodies, an optimization"},
    TutorialChoice{"bh_sort_throttle", "off",
                   "Part II, Kernel 4: Sort Bodies (slide 93): 'throttle warps with optional barrier'"},
    TutorialChoice{
        "bh_traversal", "thread",
        "Part II, Kernel Speedups (slide 103): sync'ed execution, an optimization over each thread walking alone"},
    TutorialChoice{"bh_early_out", "off",
                   "Part II, Kernel 5: Force Calculation (slide 94): 'early out (nulls in back)', an optimization"},
    TutorialChoice{"bh_vote", "off", "Part II, Kernel Speedups (slide 103): thread voting, an optimization"},
    TutorialChoice{"bh_moments", "monopole",
                   "Part II, Barnes Hut Algorithm (slide 69): 'compute mass and center of mass of each cell'"},
    TutorialChoice{"bh_opening", "geometric",
                   "Part II, Compute Force (slides 78-79): a cell is opened when its centre of mass is too close; "
                   "Kernel 5 (slide 94): 'cache tree-level-based data', the distance per tree level"},
    TutorialChoice{"bh_rsqrt", "off", "Part II, Kernel Speedups (slide 103): rsqrtf instr., an optimization"},
    TutorialChoice{"bh_avoid_volatile", "off", "Part II, Kernel Speedups (slide 103): avoid volatile, an optimization"},
    TutorialChoice{"bh_block_size", "256", "Part II, Kernel 5: Force Calculation (slide 94): '256*5 threads per SM'"},
    TutorialChoice{"theta", "0.5",
                   "the slides give no number; the code they present, ECL-BH (v4.5 as HeCBench's src/bh-cuda), opens "
                   "by itolsq = 1 / (0.5 * 0.5)"},
};

// The rows of the tutorial's Kernel Speedups table (Part II, slide 103) that no toggle carries, with what
// it measured for them: a note step names one and says why the kernels here have no switch for it.
struct TutorialRow {
  std::string_view name;     // as the table heads it
  std::string_view figures;  // "0.99x (50k), 1.32x (500k), 1.69x (5M)"
};
inline constexpr std::array kTutorialRowsWithoutSwitch = {
    TutorialRow{"recalc. data", "0.99x (50k), 1.32x (500k), 1.69x (5M)"},
    TutorialRow{"full multithreading", "20.80x (50k), 27.99x (500k), 28.85x (5M)"},
};

// A scalar setting a Barnes-Hut step runs with besides its toggles: a row of kSettings that an A/B's B may
// differ in (varies_in_ab: theta), so that a step can be measured against the one before it on the same
// bodies (bench --compare, the lab's A/B).
struct TourSetting {
  const SettingDef* setting = nullptr;
  SettingValue value;
  bool operator==(const TourSetting&) const = default;
};

enum class TourKind { allpairs, barneshut };
std::string_view to_string(TourKind kind);
std::optional<TourKind> tour_kind_from(std::string_view name);  // "allpairs", "barneshut"

struct TourStep {
  std::string title;
  std::string text;  // what the step changes and why it should help: two or three sentences
  std::string
      this_gpu;  // what today's GPUs show for the step and why, in words ("" if nothing to add); the figures are data
  std::string kernel;  // the Barnes-Hut kernel it acts on ("tree build"...), a StepStats stage name; all-pairs: "force"
  std::optional<std::size_t> rung;  // all-pairs: the kLadder rung it runs
  const ToggleDef* toggle =
      nullptr;  // Barnes-Hut: the switch it turns (none for the first step, a note or a setting's step)
  int value = 0;
  ToggleValues toggles;               // everything the step runs with (its algorithm's toggles; the others at defaults)
  std::vector<TourSetting> settings;  // Barnes-Hut: every setting the start names, with the changes up to this step
  std::string
      tutorial;  // Barnes-Hut: where the tutorial has the step ("Part II: Kernel 4: Sort Bodies (slide 93)"); "" beyond it
  // A note: the step switches nothing and says why the tutorial's row `row` (of kTutorialRowsWithoutSwitch)
  // has no switch here; it runs the step before's configuration.
  bool note = false;
  std::string row;
  // The step this one is compared with: the one it builds on (the ladder's rule: a side-trip rung is
  // not built on); none for the first.
  std::optional<std::size_t> previous;
  // Too slow to run at the lab's N (the single-thread rung): shown, timed on a sample, never run live.
  bool sampled_only = false;
};

struct Tour {
  TourKind kind = TourKind::allpairs;
  std::string title;
  std::string intro;
  std::vector<TourStep> steps;

  Algorithm algorithm() const { return kind == TourKind::allpairs ? Algorithm::allpairs : Algorithm::barneshut; }
  // The toggles the lab runs at `step`: the step's own, or for a step too slow to run live, its successor's
  // (the N-threads rung stands in for the single-thread one).
  const ToggleValues& running_toggles(std::size_t step) const;
};

// What the lab sets at step `step` (app/core/teaching/tour.cpp, TourSession::go) and the tests compare
// with what runs: the tour's algorithm, every toggle of that algorithm (the running ones: for a step too
// slow to run live, its successor's) and every setting the step declares. Everything else stays as the
// user has it (the scene, N, dt, softening, the view).
struct TourStepSettings {
  Algorithm algorithm = Algorithm::allpairs;
  ToggleValues toggles;  // only the tour's algorithm's toggles are the step's
  std::vector<TourSetting> settings;
};
TourStepSettings step_settings(const Tour& tour, std::size_t step);
// `base` as it runs at the step: step_settings applied to it.
Settings with_step_settings(const Tour& tour, std::size_t step, Settings base);
// A step's setting by key (nullptr when the step declares none of that key).
const TourSetting* find_tour_setting(const TourStep& step, std::string_view key);

// Reads a tour file; `name` prefixes every message. Throws InputError when it is not JSON of the tour's
// shape, or a step names a rung, switch or value that does not exist.
Tour parse_tour(const std::string& text, const std::string& name);
// The shipped tour (assets/tour/<kind>.json among the program's resources).
Tour load_tour(TourKind kind);
std::filesystem::path tour_file(TourKind kind);

// The tutorial's measured speed-up of the step over the one before it, in words, from the lab's tables:
// "1.83x on Fermi (CC 2.0), 1.64x on Kepler (CC 3.0), 0.99x on CC 1.3" for a rung, the switch's figures
// at 50k / 500k / 5M bodies for a Barnes-Hut switch; "" when the tutorial did not measure the step.
std::string tutorial_speedup(const Tour& tour, const TourStep& step);
// A teaching text as the program shows it: each tag "[tutorial: Part II, Kernel Speedups]" that marks a
// figure as the tutorial's becomes "(the tutorial, Part II, Kernel Speedups)".
std::string teaching_text(std::string_view text);
// Where the step comes from in the tutorial ("Burtscher's tutorial, Part I: ..."; "beyond the tutorial").
std::string tutorial_reference(const Tour& tour, const TourStep& step);
// The tutorial's speed-ups of the step as numbers (each GPU or size the tutorial measured; empty when none).
std::vector<double> tutorial_speedups(const Tour& tour, const TourStep& step);

}  // namespace nbl
