// `nbodylab picture FILE.png ...`: the image check of render/picture_detail.hpp on existing PNGs (a
// render's frames, a screenshot, an old picture to compare with). Every file is checked and reported,
// one line each; the exit code says the worst: 2 when a file cannot be read as a PNG, else 3 when a
// picture fails the check, else 0.
#include <cstdio>
#include <string>
#include <vector>

#include "app/core/commands.hpp"
#include "render/image.hpp"
#include "render/picture_detail.hpp"
#include "sim/error.hpp"

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
      "Prints the measure for each file; exits 3 when any fails, 2 when any cannot be read.");
  sub->add_option("files", state->files, "PNG files")->required()->type_name("FILE.png");
  return {sub, [state] {
            int unreadable = 0, failed = 0;
            for (const std::string& file : state->files) {
              try {
                const PictureDetail detail = picture_detail(read_png(file));
                std::printf("%s: %s\n", file.c_str(), describe(detail).c_str());
                failed += passes(detail) ? 0 : 1;
              } catch (const Error& e) {
                std::fflush(stdout);
                std::fprintf(stderr, "nbodylab: %s: cannot check it: %s\n", file.c_str(), e.what());
                ++unreadable;
              }
            }
            if (unreadable + failed > 0 && state->files.size() > 1)
              std::fprintf(stderr, "nbodylab picture: %zu file(s): %d cannot be read, %d fail the image check\n",
                           state->files.size(), unreadable, failed);
            return unreadable ? kExitBadInput : failed ? kExitImageCheck : kExitOk;
          }};
}

}  // namespace nbl
