// Bare `nbodylab`: the interactive window. It arrives with the window issue; until then the program
// says so and points to what works today.
#include <cstdio>

#include "app/commands.hpp"
#include "app/run_options.hpp"

namespace nbl {

Command add_window_command(CLI::App& root) {
  return {&root, [] {
            std::printf(
                "nbodylab: the interactive window is not built yet.\n"
                "Run a simulation without a window:  nbodylab bench --algo barneshut -n 65536 --steps 10\n"
                "See all commands:                   nbodylab --help\n");
            return kExitOk;
          }};
}

}  // namespace nbl
