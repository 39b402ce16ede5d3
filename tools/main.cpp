// The `tapir` command: a CLI11 app with one subcommand per job (see
// tools/commands.h). Bad input prints a one-line error and exits non-zero.
#include <cstdio>

#include "engine/error.h"
#include "tools/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"tapir: a from-scratch tensor engine and lab for transformers' inductive biases"};
  app.require_subcommand(1);
  std::vector<tapir::Command> commands = {
      tapir::add_train_command(app), tapir::add_eval_command(app),
      tapir::add_dump_command(app),  tapir::add_bench_command(app),
      tapir::add_plot_command(app),  tapir::add_selfcheck_command(app)};
  CLI11_PARSE(app, argc, argv);
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const tapir::Error& e) {
    std::fprintf(stderr, "tapir: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapir: %s\n", e.what());
    return 1;
  }
  return 0;
}
