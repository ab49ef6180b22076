// nbodylab: an interactive laboratory for GPU N-body gravity. This file only dispatches: each
// subcommand is registered by its own cmd_*.cpp (commands.hpp).
#include <cstdio>
#include <exception>
#include <vector>

#include "app/core/commands.hpp"
#include "cuda/background_work.hpp"
#include "sim/error.hpp"

int main(int argc, char** argv) {
  // Destroyed when main returns, after the command's objects (the lab, its backends) and before any
  // static: every worker thread finishes what it runs and is joined (cuda/background_work.hpp).
  const nbl::BackgroundWork background_work;

  CLI::App root{
      "nbodylab - GPU N-body gravity you can take apart.\n"
      "Without a subcommand it opens the interactive window (two colliding galaxies).",
      "nbodylab"};
  root.set_version_flag("--version", "nbodylab 0.1.0");
  root.require_subcommand(0, 1);

  std::vector<nbl::Command> commands;
  nbl::Command window;
  try {
    window = nbl::add_window_command(root);
    commands.push_back(nbl::add_bench_command(root));
    commands.push_back(nbl::add_info_command(root));
    commands.push_back(nbl::add_kernels_command(root));
    commands.push_back(nbl::add_render_command(root));
    commands.push_back(nbl::add_picture_command(root));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbodylab: internal error while setting up the command line: %s\n", e.what());
    return nbl::kExitError;
  }

  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = root.exit(e);
    return code == 0 ? nbl::kExitOk : nbl::kExitBadInput;
  }

  try {
    for (auto& command : commands)
      if (command.app->parsed()) return command.run();
    return window.run();
  } catch (const nbl::InputError& e) {
    std::fprintf(stderr, "nbodylab: %s\n", e.what());
    return nbl::kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbodylab: %s\n", e.what());
    return nbl::kExitError;
  }
}
