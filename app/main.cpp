// nbodylab: an interactive laboratory for GPU N-body gravity. This file only dispatches: each
// subcommand is registered by its own cmd_*.cpp (commands.hpp).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "app/core/commands.hpp"
#include "cuda/background_work.hpp"
#include "sim/error.hpp"

namespace {

// The window's options are the root's, so CLI11 takes them in front of a subcommand's name
// (`nbodylab -n 5 render`) and when a subcommand passes on what it does not know (`bench --trace t.csv`).
// Each one given with a subcommand is handed to the innermost parsed subcommand that has an option of the
// same name, where it means the same; any other is refused, naming it. None is dropped.
void hand_window_options_to_subcommand(CLI::App& root) {
  std::vector<CLI::App*> chain;  // the parsed subcommands, innermost first
  for (CLI::App* app = &root;;) {
    const auto parsed = app->get_subcommands();
    if (parsed.empty()) break;
    app = parsed.front();
    chain.insert(chain.begin(), app);
  }
  if (chain.empty()) return;  // the window: every root option is its own
  std::string command;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) command += (command.empty() ? "" : " ") + (*it)->get_name();
  for (CLI::Option* option : root.get_options()) {
    if (option == root.get_help_ptr() || option == root.get_version_ptr() || option->count() == 0) continue;
    const std::string names = option->get_name(false, true);
    CLI::Option* same = nullptr;
    for (CLI::App* app : chain)
      if ((same = app->get_option_no_throw(option->get_name())) != nullptr) break;
    if (!same)
      throw nbl::InputError(names + " is an option of the window, and `nbodylab " + command + "` does not take it (" +
                            "`nbodylab " + command + " --help` lists what it takes)");
    if (same->count() > 0)
      throw nbl::InputError(names + " is given both before and after `" + command + "`: give it once");
    same->add_result(option->results());
    same->run_callback();  // its checks and its variable, as if it had been given after the name
  }
}

void add_footer(CLI::App& app) {
  app.footer(nbl::kExitCodeHelp);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_footer(*sub);
}

}  // namespace

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
  root.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "nbodylab: " + std::string(e.what()) + "\nRun with --help for more information.\n";
  });

  std::vector<nbl::Command> commands;
  nbl::Command window;
  try {
    window = nbl::add_window_command(root);
    commands.push_back(nbl::add_bench_command(root));
    commands.push_back(nbl::add_info_command(root));
    commands.push_back(nbl::add_kernels_command(root));
    commands.push_back(nbl::add_render_command(root));
    commands.push_back(nbl::add_picture_command(root));
    add_footer(root);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nbodylab: internal error while setting up the command line: %s\n", e.what());
    return nbl::kExitError;
  }

  try {
    root.parse(argc, argv);
    hand_window_options_to_subcommand(root);
  } catch (const CLI::ParseError& e) {
    const int code = root.exit(e);
    return code == 0 ? nbl::kExitOk : nbl::kExitBadInput;
  } catch (const nbl::InputError& e) {
    std::fprintf(stderr, "nbodylab: %s\n", e.what());
    return nbl::kExitBadInput;
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
