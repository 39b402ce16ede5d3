// The `tapir` command: a CLI11 app with one subcommand per job (see
// tools/commands.h). Bad input prints a one-line error and exits non-zero.
#include <cstdio>
#include <new>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "engine/dist.h"
#include "engine/reference.h"
#include "lab/progress.h"
#include "lab/run_jobs.h"
#include "tools/commands.h"
#include "tools/config_file.h"
#include "tools/options.h"
#include "tools/version.h"

// Whether a parsed command (or the sub-subcommand it ran) takes task options.
static bool accepts_extras(const CLI::App* app) {
  if (app->get_allow_extras()) return true;
  for (const CLI::App* sub : app->get_subcommands())
    if (accepts_extras(sub)) return true;
  return false;
}

namespace {

// The command line as one text, for the ranks to compare.
std::string command_line(int argc, char** argv) {
  std::string text;
  for (int i = 1; i < argc; ++i) text += std::string(argv[i]) + '\n';
  return text;
}

// Under mpirun with several ranks a failure on one rank ends the whole job
// (engine/dist.h), so that no rank waits for it; a single process returns
// `code`.
int failed(const std::string& message, int code = 1) {
  if (tapir::dist::distributed()) tapir::dist::abort_job(message);
  std::fprintf(stderr, "tapir: %s\n", tapir::printable(message).c_str());
  return code;
}

// The app with every command; throws a tapir::Error when a command's
// defaults cannot be made (TAPIR_THREADS that is not a thread count).
struct Cli {
  CLI::App app{"tapir: a from-scratch tensor engine and lab for transformers' inductive biases"};
  std::vector<tapir::Command> commands;
};

void make_cli(Cli& cli) {
  CLI::App& app = cli.app;
  app.require_subcommand(1);
  // Handled while parsing, before the subcommand is required: `tapir --version`
  // prints the text and exits 0.
  const std::string version = tapir::version_text();  // also heads the man pages
  app.set_version_flag("--version", version,
                       "Print the version, the git commit and how this build was made, and exit");
  // Config files hold one section per subcommand ([train], [bench], ...);
  // an unknown section or key is an error (tools/config_file.h).
  tapir::add_config_option(app);
  cli.commands = {tapir::add_train_command(app),    tapir::add_eval_command(app),
                  tapir::add_dump_command(app),     tapir::add_bench_command(app),
                  tapir::add_compare_command(app),  tapir::add_search_command(app),
                  tapir::add_transfer_command(app), tapir::add_report_command(app),
                  tapir::add_plot_command(app),     tapir::add_selfcheck_command(app),
                  tapir::add_tasks_command(app),    tapir::add_layers_command(app),
                  tapir::add_robust_command(app),   tapir::add_robust_compare_command(app),
                  tapir::add_arch_command(app),     tapir::add_tokenizer_command(app),
                  tapir::add_claims_command(app)};
  cli.commands.push_back(tapir::add_completion_command(app));
  cli.commands.push_back(tapir::add_man_command(app, version.substr(0, version.find('\n'))));
  tapir::make_values_strict(app);
  // Unknown arguments fall through to here; only the commands that train
  // accept them (as task options), checked below. Set after the subcommands
  // are made, so that they do not inherit it.
  app.allow_extras();
}

int run(int argc, char** argv) {
  // Every line reaches a file or a pipe as it is printed (a long command's
  // log follows it), not in blocks at exit.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Cli cli;
  CLI::App& app = cli.app;
  try {
    make_cli(cli);
    tapir::check_config_file(app, argc, argv);
    tapir::Progress::check_environment();
    tapir::cpu_kernels();  // TAPIR_KERNELS is tuned, reference or unset
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (CLI::App* command : app.get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + command->get_name();
      known = known || command->check_name(argv[1]);
    }
    if (!known)
      return failed("unknown command " + tapir::quoted(argv[1]) + " (commands: " + names +
                    "; tapir --help says what each does)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConfigError& e) {
    return failed(tapir::config_file_error(app, e), e.get_exit_code());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help prints and exits 0
    // A bad value read from the --config file names the file.
    const std::string from_file =
        tapir::config_value_error(app, std::vector<std::string>(argv + 1, argv + argc), e);
    if (from_file.empty() && argc == 1)
      return failed("a command is required: tapir COMMAND ... (tapir --help lists them)",
                    e.get_exit_code());
    return failed(from_file.empty() ? tapir::parse_error_line(e) : from_file, e.get_exit_code());
  }
  try {
    tapir::dist::check_same("the command line", command_line(argc, argv));
    for (const auto& command : cli.commands) {
      if (!command.app->parsed()) continue;
      TAPIR_CHECK(!tapir::dist::distributed() || command.ranks == tapir::Ranks::several, "tapir ",
                  command.app->get_name(), " runs as one process, not on ", tapir::dist::size(),
                  " MPI ranks (train, search, compare, transfer and robust-compare do); start it "
                  "without mpirun or with -np 1");
      if (!accepts_extras(command.app) && !app.remaining().empty())
        throw tapir::Error("unexpected argument '" + app.remaining().front() + "' for " +
                           command.app->get_name());
      return command.run();
    }
  } catch (const std::bad_alloc&) {
    return failed(
        "out of memory: this machine cannot hold what the command was asked to build; lower "
        "--batch, --eval-batch, --width or --layers");
  } catch (const std::exception& e) {
    return failed(e.what());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  tapir::dist::init(argc, argv);
  tapir::set_build_stamp(tapir::build_stamp_text());
  const int code = run(argc, argv);
  tapir::dist::finalize();
  return code;
}
