// The `tapir` command: a CLI11 app with one subcommand per job (see
// tools/commands.h). Bad input prints a one-line error and exits non-zero.
#include <cstdio>

#include "engine/error.h"
#include "tools/commands.h"
#include "tools/config_file.h"
#include "tools/version.h"

// Whether a parsed command (or the sub-subcommand it ran) takes task options.
static bool accepts_extras(const CLI::App* app) {
  if (app->get_allow_extras()) return true;
  for (const CLI::App* sub : app->get_subcommands())
    if (accepts_extras(sub)) return true;
  return false;
}

int main(int argc, char** argv) {
  // Every line reaches a file or a pipe as it is printed (a long command's
  // log follows it), not in blocks at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"tapir: a from-scratch tensor engine and lab for transformers' inductive biases"};
  app.require_subcommand(1);
  // Handled while parsing, before the subcommand is required: `tapir --version`
  // prints the text and exits 0.
  app.set_version_flag("--version", tapir::version_text(),
                       "Print the version, the git commit and how this build was made, and exit");
  // Config files hold one section per subcommand ([train], [bench], ...);
  // an unknown section or key is an error (tools/config_file.h).
  tapir::add_config_option(app);
  std::vector<tapir::Command> commands = {
      tapir::add_train_command(app),    tapir::add_eval_command(app),
      tapir::add_dump_command(app),     tapir::add_bench_command(app),
      tapir::add_compare_command(app),  tapir::add_search_command(app),
      tapir::add_transfer_command(app), tapir::add_report_command(app),
      tapir::add_plot_command(app),     tapir::add_selfcheck_command(app),
      tapir::add_tasks_command(app),    tapir::add_layers_command(app),
      tapir::add_robust_command(app),   tapir::add_robust_compare_command(app)};
  // Unknown arguments fall through to here; only the commands that train
  // accept them (as task options), checked below. Set after the subcommands
  // are made, so that they do not inherit it.
  app.allow_extras();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConfigError& e) {
    std::fprintf(stderr, "tapir: %s\n", tapir::config_file_error(app, e).c_str());
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    // A bad value read from the --config file names the file.
    const std::string from_file =
        tapir::config_value_error(app, std::vector<std::string>(argv + 1, argv + argc), e);
    if (from_file.empty()) return app.exit(e);
    std::fprintf(stderr, "tapir: %s\n", from_file.c_str());
    return e.get_exit_code();
  }
  try {
    for (const auto& command : commands) {
      if (!command.app->parsed()) continue;
      if (!accepts_extras(command.app) && !app.remaining().empty())
        throw tapir::Error("unexpected argument '" + app.remaining().front() + "' for " +
                           command.app->get_name());
      return command.run();
    }
  } catch (const tapir::Error& e) {
    std::fprintf(stderr, "tapir: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapir: %s\n", e.what());
    return 1;
  }
  return 0;
}
