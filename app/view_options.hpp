// Command-line options for what the picture looks like, shared by the window and `nbodylab render`:
// colour mode, exposure, point size, octree overlay, bounding box, axes, and the --size parser.
#pragma once
#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "sim/settings.hpp"

namespace nbl {

struct FrameSize {
  int width = 0, height = 0;
};

inline constexpr int kMinFrameSide = 16;
inline constexpr int kMaxFrameSide = 16384;

// "1920x1080" -> {1920, 1080}. Throws InputError naming `option` for anything else, or sides outside
// [16, 16384].
FrameSize parse_frame_size(const std::string& text, const std::string& option = "--size");

class ViewOptions {
 public:
  void add_to(CLI::App& app);
  // Applies the options that were given on top of `settings` (after --settings FILE), then validates.
  void apply(Settings& settings) const;

 private:
  std::string color_;
  float exposure_ = 1, point_size_ = 1;
  int octree_depth_ = 0;
  bool bounding_box_ = false, axes_ = false;
  std::map<std::string, CLI::Option*> given_;
};

}  // namespace nbl
