// Fuzz target: the TOML/INI file of `tapir train --config FILE`. The input is
// written to a temporary file (one per process) and parsed as
// `tapir train --config FILE` by an app set up as tools/main.cpp sets it up
// (set_config, fallthrough, the train command). When that parses, the same
// file is parsed again into a train subcommand whose options are bound here
// (add_train_options plus the four options cmd_train.cpp adds), and turned
// into a validated TrainConfig with the task's recommended settings, as
// `tapir train` does before it trains.
// Expected outcomes: a config, a CLI::Error or a tapir::Error. A finding: a
// crash, a sanitizer report, a hang or any other exception.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "base/error.h"
#include "tests/fuzz/fuzz_input.h"
#include "tools/commands.h"
#include "tools/config_file.h"
#include "tools/options.h"
#include "tools/train_options.h"

namespace {

const std::string& input_path() {
  static const tapir::fuzz::TempPath path("config", ".toml");
  return path.str();
}

// As tools/main.cpp sets up its app, before any subcommand is added: those
// made later inherit fallthrough, which lets `train --config FILE` reach the
// app's --config.
void set_up_like_main(CLI::App& app) {
  app.require_subcommand(1);
  app.set_config("--config", "", "config file");
  app.fallthrough();
}

// `tapir train --config PATH` on `app`, its subcommands added.
void parse_train_config(CLI::App& app, const std::string& path) {
  app.allow_extras();
  const char* argv[] = {"tapir", "train", "--config", path.c_str()};
  tapir::check_config_file(app, 4,
                           const_cast<char**>(argv));  // as main does, before CLI11 reads it
  tapir::make_values_strict(app);
  app.parse(4, argv);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = input_path();
  tapir::fuzz::write_input(path, data, size);
  try {
    CLI::App app;
    set_up_like_main(app);
    // Kept: the runner owns the variables the options write to.
    const tapir::Command train = tapir::add_train_command(app);
    parse_train_config(app, path);

    CLI::App bound;
    set_up_like_main(bound);
    CLI::App* cmd = bound.add_subcommand("train");
    tapir::TrainOptions options;
    tapir::add_train_options(*cmd, options);
    std::string out, resume;
    bool force = false, quiet = false;
    cmd->add_option("--out", out);
    cmd->add_flag("--force", force);
    cmd->add_option("--resume", resume);
    cmd->add_flag("--quiet", quiet);
    parse_train_config(bound, path);
    tapir::TrainConfig config = tapir::finish_train_options(*cmd, options);
    tapir::recommend_unless_given(*cmd, config);
  } catch (const CLI::Error&) {
  } catch (const tapir::Error&) {
  }
  return 0;
}
