// The tour's window, docked at the left edge of the scene: the step's title and words,
// the tutorial's measured speed-up beside the live one on this GPU, where this GPU disagrees, what
// changed in the code (the kernel diff and the lines of the step's macros) and in the generated code, the
// previous / next buttons and the list of steps. Predict, then measure: a step that waits for the class's
// prediction shows its words and source change with an input for the expected speed-up and "Run the
// step" / "Skip"; a predicted step shows the prediction, the live measurement and the tutorial's figure
// side by side. It reads a TourSession and asks for commands; the lab does the rest.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/core/lab_commands.hpp"
#include "app/core/teaching/tour.hpp"

namespace nbl {

struct TourFacts {
  const TourSession* session = nullptr;
  LiveSpeedup live;
  std::string running;    // what runs now ("float4 const rsqrt ..."), and whether the step's build is still pending
  std::string lab_error;  // the lab's last error (a refused build, B cleared), shown where the tour's reader looks
};

class TourView {
 public:
  static constexpr float kWidth = 560.0f;  // in screen units at content scale 1

  // Draws the window; returns what its buttons asked for. `x` and `height` in ImGui display units.
  std::vector<LabCommand> build(const TourFacts& facts, float height);
  // The step the list asked for (once).
  std::optional<std::size_t> take_jump() { return std::exchange(jump_, std::nullopt); }
  float width() const { return width_; }  // in ImGui display units
  void set_width(float w) { width_ = w; }
  // The speed-up typed into the prediction field: a number above 0, or none (empty or not a number).
  std::optional<double> typed_prediction() const;
  void clear_prediction() { prediction_text_[0] = '\0'; }

 private:
  void prediction_card(const TourFacts& facts);
  void prediction_result(const TourFacts& facts, const PredictionRow& row);

  std::vector<LabCommand> commands_;
  char prediction_text_[32] = "";
  std::optional<std::size_t> jump_;
  float width_ = kWidth;
};

}  // namespace nbl
