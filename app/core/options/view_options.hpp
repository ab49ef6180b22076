// Command-line options for what the picture looks like, shared by the window and `nbodylab render`: the
// view group of kSettings (colour mode, point size, exposure, octree overlay, bounding box, axes, and for
// the window vsync), and the --size parser.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "app/core/options/setting_options.hpp"
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
  // `window`: the window's options, vsync included (render has no display to wait for).
  void add_to(CLI::App& app, bool window);
  // Applies the options that were given on top of `settings` (after --settings FILE), then validates.
  void apply(Settings& settings) const;

 private:
  SettingOptions settings_;
};

}  // namespace nbl
