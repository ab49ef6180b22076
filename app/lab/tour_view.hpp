// The tour's window, docked at the left edge of the scene: the step's title and words,
// the tutorial's measured speed-up beside the live one on this GPU, where this GPU disagrees, what
// changed in the code (the kernel diff and the lines of the step's macros) and in the generated code, the
// previous / next buttons and the list of steps. It reads a TourSession and asks for commands; the lab
// does the rest.
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
  std::string running;  // what runs now ("float4 const rsqrt ..."), and whether the step's build is still pending
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

 private:
  std::vector<LabCommand> commands_;
  std::optional<std::size_t> jump_;
  float width_ = kWidth;
};

}  // namespace nbl
