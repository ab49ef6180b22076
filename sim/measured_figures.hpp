// What we measured for each kernel toggle on a real GPU, as data: assets/measured/figures.json, written
// by scripts/measured_figures.py from the bench logs of GPU runs that are kept under benchmarks/ (the
// same script writes the table in BENCHMARKS.md). Each figure names the GPU, the commit and the log it
// comes from, and the configuration it was measured in: the algorithm, the scene, N, theta and every
// toggle, and for a comparison the toggles of the side it is compared with. A teaching text shows a
// figure only for the configuration it talks about: the tour a figure whose two sides are the step and
// the step before it (comparing()), a tooltip each figure with its configuration in words (describe()).
// The tutorial's own figures stay in kToggles and kLadder: they are published numbers.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/toggles.hpp"

namespace nbl {

// Toggles by key, each value as the command line writes it ("on", "insertion", "128"), or "*" for one the
// measured variant made inert (the single-thread port's block size): any value ran the same code. A
// toggle a run did not have (it came later) is absent.
using MeasuredToggles = std::vector<std::pair<std::string, std::string>>;

struct MeasuredConfig {
  std::string algorithm;  // "allpairs" or "barneshut"
  std::string scene;      // "plummer", "collision", ...
  std::int64_t bodies = 0;
  std::optional<double> theta;  // Barnes-Hut: the opening angle the run had
  MeasuredToggles toggles;
  std::vector<std::string> varied;  // toggles a sweep varied: the figure speaks for several values
  std::string source;               // where the configuration was read: the log's command line, ...
};

struct MeasuredFigure {
  std::string toggle;     // the kToggles key it is about
  std::string what;       // the comparison: "rsqrtf vs 1.0f / sqrtf (ladder rung 4)"
  std::string value;      // the figure: "1.34x at n = 1M"
  std::string gpu;        // the GPU, as the run's `nbodylab info` named it
  std::string commit;     // the commit the run's binaries were built at
  std::string log;        // the kept log it comes from, relative to the repository root
  std::string note;       // anything the log itself does not record, and where it comes from ("" if none)
  std::string kernel;     // the stage the comparison is about ("force", "tree build"; "" for the whole step)
  MeasuredConfig config;  // what was measured (with the change on)
  std::optional<MeasuredToggles> baseline;  // a comparison: the toggles of the side it is compared with
};

class MeasuredFigures {
 public:
  MeasuredFigures() = default;
  // Throws InputError naming the file and the entry when the file is not the generator's shape.
  static MeasuredFigures load(const std::filesystem::path& file);
  static MeasuredFigures parse(const std::string& json);

  const std::vector<MeasuredFigure>& all() const { return figures_; }
  std::vector<const MeasuredFigure*> of(std::string_view toggle) const;
  // The comparisons measured between exactly these two configurations of `algorithm`: `after` (the
  // figure's configuration) against `before` (its baseline). A configuration matches when it names
  // every toggle of the algorithm with the value `after` or `before` holds; a figure from before a
  // toggle existed, or of a sweep, matches nothing.
  std::vector<const MeasuredFigure*> comparing(Algorithm algorithm, const ToggleValues& after,
                                               const ToggleValues& before) const;
  // A toggle's figures for a tooltip: one line per comparison and configuration with its values, the
  // configuration in words (scene, N, how it differs from today's defaults), then the GPU, commit and
  // logs they come from; "" when the toggle has none.
  std::string describe(std::string_view toggle) const;

 private:
  std::vector<MeasuredFigure> figures_;
};

// Whether `measured` names every toggle of `algorithm` with the value `t` holds (or "*").
bool measured_in(const MeasuredToggles& measured, Algorithm algorithm, const ToggleValues& t);
// A configuration in words: "plummer, 1,048,576 bodies, theta 0.5; with bh_build=insertion (the rest
// at today's defaults); without toggles added since: bh_moments".
std::string describe_config(const MeasuredConfig& config);

}  // namespace nbl
