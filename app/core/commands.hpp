// Each subcommand lives in its own file (cmd_*.cpp) and registers itself on the root CLI::App here.
// main() runs the one that was parsed, or the window when none was.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace nbl {

struct Command {
  CLI::App* app = nullptr;   // the subcommand (or the root, for the window)
  std::function<int()> run;  // returns the process exit code
};

Command add_window_command(CLI::App& root);   // bare `nbodylab`: the interactive window
Command add_bench_command(CLI::App& root);    // `nbodylab bench ...`
Command add_info_command(CLI::App& root);     // `nbodylab info`: the GPU and the program's paths
Command add_kernels_command(CLI::App& root);  // `nbodylab kernels`: generated code, --list / --check
Command add_render_command(CLI::App& root);   // `nbodylab render ...`: frames without a window (EGL)
Command add_picture_command(CLI::App& root);  // `nbodylab picture FILE.png ...`: the image check

// Exit codes shared by all commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;       // something failed while running
inline constexpr int kExitBadInput = 2;    // the user's input was rejected (nothing was run or written)
inline constexpr int kExitImageCheck = 3;  // the image check failed (`picture`, `render --check-picture`)
// Ended by SIGINT or SIGTERM after writing its outputs: 128 + the signal (app/core/interrupt.hpp).

// The exit codes as --help and README.md list them.
inline constexpr const char* kExitCodeHelp =
    "Exit codes: 0 done; 1 failed while running; 2 refused input (nothing was run or written); 3 the image "
    "check failed; 130 interrupted by Ctrl-C (143: SIGTERM), after writing what the session was asked to.";

}  // namespace nbl
