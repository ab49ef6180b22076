// `nbodylab picture FILE.png ...`: the image check of render/picture_detail.hpp on existing PNGs (a
// render's frames, a screenshot, an old picture to compare with). Exit 1 when any file fails it.
#include <cstdio>
#include <string>
#include <vector>

#include "app/core/commands.hpp"
#include "render/image.hpp"
#include "render/picture_detail.hpp"

namespace nbl {

Command add_picture_command(CLI::App& root) {
  struct State {
    std::vector<std::string> files;
  };
  auto state = std::make_shared<State>();
  CLI::App* sub = root.add_subcommand(
      "picture",
      "Check that PNG frames hold detail (local contrast over the scene; docs/window.md, \"The image check\"):\n"
      "  nbodylab picture frames/frame_00600.png docs/screenshots/*.png\n"
      "Prints the measure for each file; exits 1 when any fails.");
  sub->add_option("files", state->files, "PNG files")->required()->check(CLI::ExistingFile);
  return {sub, [state] {
            int failed = 0;
            for (const std::string& file : state->files) {
              const PictureDetail detail = picture_detail(read_png(file));
              std::printf("%s: %s\n", file.c_str(), describe(detail).c_str());
              failed += passes(detail) ? 0 : 1;
            }
            return failed ? kExitError : kExitOk;
          }};
}

}  // namespace nbl
