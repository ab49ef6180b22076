// The guided tour through Burtscher's CUDA optimization tutorial: the all-pairs ladder step by step, or the
// Barnes-Hut kernels switch by switch. What each step sets comes from the lab's own tables, never
// restated: an all-pairs step names a rung of kLadder (sim/ladder.hpp) and runs ladder_toggles(rung); a
// Barnes-Hut step names a switch of kToggles and its value, on top of the steps before it, from a
// "start" that names every Barnes-Hut toggle (so a step's configuration never depends on the defaults).
// The words a teacher reads out (two or three sentences per step, and what today's GPUs show) are data:
// assets/tour/allpairs.json and assets/tour/barneshut.json. They quote no measured figure: the tour
// shows what a GPU measured in the step's configuration from assets/measured/figures.json
// (sim/measured_figures.hpp), and the tutorial's speed-ups from the lab's tables (kLadder's per-GPU
// figures, the switch's `tutorial` text). A figure of the tutorial quoted in a text carries the tag
// "[tutorial: where]", shown as "(the tutorial, where)" (teaching_text). No CUDA here.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/settings.hpp"
#include "sim/toggles.hpp"

namespace nbl {

enum class TourKind { allpairs, barneshut };
std::string_view to_string(TourKind kind);
std::optional<TourKind> tour_kind_from(std::string_view name);  // "allpairs", "barneshut"

struct TourStep {
  std::string title;
  std::string text;      // what the step changes and why it should help: two or three sentences
  std::string this_gpu;  // what today's GPUs show for the step and why, in words ("" if nothing to add); the figures are data
  std::string kernel;    // the Barnes-Hut kernel it acts on ("tree build"...), a StepStats stage name; all-pairs: "force"
  std::optional<std::size_t> rung;  // all-pairs: the kLadder rung it runs
  const ToggleDef* toggle = nullptr;  // Barnes-Hut: the switch it turns (none for the first step)
  int value = 0;
  ToggleValues toggles;  // everything the step runs with (its algorithm's toggles; the others at defaults)
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
// Where the step comes from in the tutorial ("Burtscher's tutorial, Part I: ...").
std::string tutorial_reference(const Tour& tour, const TourStep& step);
// The tutorial's speed-ups of the step as numbers (each GPU or size the tutorial measured; empty when none).
std::vector<double> tutorial_speedups(const Tour& tour, const TourStep& step);

}  // namespace nbl
