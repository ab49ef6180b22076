#include "app/core/options/view_options.hpp"

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
  if (size.width < kMinFrameSide || size.height < kMinFrameSide || size.width > kMaxFrameSide ||
      size.height > kMaxFrameSide)
    throw fail();
  return size;
}

void ViewOptions::add_to(CLI::App& app, bool window) {
  settings_.add_to(app, {SettingGroup::view}, window, Settings{}, "View");
}

void ViewOptions::apply(Settings& s) const {
  settings_.apply(s);
  validate(s);
}

}  // namespace nbl
