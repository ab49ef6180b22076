// What we measured for each kernel toggle on a real GPU, as data: assets/measured/figures.json, written
// by scripts/measured_figures.py from the bench logs of a GPU suite run that are kept under benchmarks/
// (the same script writes the table in BENCHMARKS.md). Each figure names the GPU, the commit and the log
// it comes from, so a figure never outlives the code it measured without saying so. The panel's toggle
// tooltips read it at run time; the tutorial's own figures stay in kToggles, they are published numbers.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace nbl {

struct MeasuredFigure {
  std::string toggle;  // the kToggles key it is about
  std::string what;    // the comparison: "rsqrtf vs 1.0f / sqrtf (ladder rung 4 vs 3)"
  std::string value;   // the figure: "1.34x at n = 1M"
  std::string gpu;     // the GPU, as the run's `nbodylab info` named it
  std::string commit;  // the commit the run's binaries were built at
  std::string log;     // the kept log it comes from, relative to the repository root
  std::string note;    // anything the log itself does not record, and where it comes from ("" if none)
};

class MeasuredFigures {
 public:
  MeasuredFigures() = default;
  // Throws InputError naming the file and the entry when the file is not the generator's shape.
  static MeasuredFigures load(const std::filesystem::path& file);
  static MeasuredFigures parse(const std::string& json);

  const std::vector<MeasuredFigure>& all() const { return figures_; }
  std::vector<const MeasuredFigure*> of(std::string_view toggle) const;
  // A toggle's figures for a tooltip: one line per comparison with its values, then the GPU, commit
  // and logs they come from; "" when the toggle has none.
  std::string describe(std::string_view toggle) const;

 private:
  std::vector<MeasuredFigure> figures_;
};

}  // namespace nbl
