#include "app/view_options.hpp"

#include "sim/error.hpp"

namespace nbl {

FrameSize parse_frame_size(const std::string& text, const std::string& option) {
  const auto fail = [&] {
    return InputError(option + " takes WIDTHxHEIGHT in pixels, each " + std::to_string(kMinFrameSide) + ".." +
                      std::to_string(kMaxFrameSide) + ", e.g. 1920x1080 (got \"" + text + "\")");
  };
  const auto x = text.find_first_of("xX");
  if (x == std::string::npos || x == 0 || x + 1 >= text.size()) throw fail();
  FrameSize size;
  for (auto [part, out] : {std::pair{text.substr(0, x), &size.width}, std::pair{text.substr(x + 1), &size.height}}) {
    if (part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) throw fail();
    *out = std::stoi(part);
  }
  if (size.width < kMinFrameSide || size.height < kMinFrameSide || size.width > kMaxFrameSide || size.height > kMaxFrameSide)
    throw fail();
  return size;
}

void ViewOptions::add_to(CLI::App& app) {
  const std::string group = "View";
  given_["color"] = app.add_option("--color", color_, "Colour bodies by: " + color_mode_names())->group(group);
  given_["exposure"] = app.add_option("--exposure", exposure_, "Tone-map exposure (default 1)")->group(group);
  given_["point_size"] = app.add_option("--point-size", point_size_, "Sprite size multiplier (default 1)")->group(group);
  given_["octree_depth"] =
      app.add_option("--octree-depth", octree_depth_, "Draw Barnes-Hut cells down to this depth (0: none, 1: root)")->group(group);
  given_["bbox"] = app.add_flag("--bbox", bounding_box_, "Draw the bodies' bounding box")->group(group);
  given_["axes"] = app.add_flag("--axes", axes_, "Draw the coordinate axes")->group(group);
}

void ViewOptions::apply(Settings& s) const {
  auto given = [&](const char* name) { return given_.at(name)->count() > 0; };
  if (given("color")) {
    const auto mode = parse_color_mode(color_);
    if (!mode) throw InputError("--color must be one of: " + color_mode_names() + " (got \"" + color_ + "\")");
    s.view.color_mode = *mode;
  }
  if (given("exposure")) s.view.exposure = exposure_;
  if (given("point_size")) s.view.point_size = point_size_;
  if (given("octree_depth")) s.view.octree_depth = octree_depth_;
  if (given("bbox")) s.view.show_bounding_box = bounding_box_;
  if (given("axes")) s.view.show_axes = axes_;
  validate(s);
}

}  // namespace nbl
