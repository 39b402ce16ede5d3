// The command line (tools/commands.h): every command that runs kernels takes
// --threads with train's help text and default, and a count outside
// [1, 256] stops the command line with the same message everywhere; the
// commands that only read and write files take no --threads. And what dump
// writes.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/safetensors.h"
#include "engine/threads.h"
#include "optim/trainer.h"
#include "tests/resume_files.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"
#include "tools/commands.h"
#include "tools/config_file.h"
#include "tools/options.h"
#include "tools/search_options.h"

using namespace tapir;

namespace {

// The app of tools/main.cpp, with every command. The runners are kept: they
// own the values the options write to.
struct Cli {
  CLI::App app{"tapir"};
  std::vector<Command> commands;
  Cli() {
    app.require_subcommand(1);
    add_config_option(app);
    for (auto add :
         {add_train_command, add_eval_command, add_dump_command, add_bench_command,
          add_compare_command, add_search_command, add_transfer_command, add_report_command,
          add_plot_command, add_selfcheck_command, add_tasks_command, add_layers_command,
          add_robust_command, add_robust_compare_command, add_arch_command})
      commands.push_back(add(app));
  }
  // Parses args (command first); the message of the error it raised, "" if none.
  std::string parse_error(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 wants reversed
    try {
      app.parse(reversed);
    } catch (const CLI::ConfigError& e) {
      return config_file_error(app, e);  // as tools/main.cpp reports it
    } catch (const CLI::ParseError& e) {
      const std::string from_file = config_value_error(app, args, e);  // as main.cpp does
      return from_file.empty() ? e.what() : from_file;
    }
    return "";
  }
};

// A --config file with the given text, removed at the end of the test.
struct ConfigFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tapir_test_config_" + std::to_string(::getpid()) + ".toml"))
                         .string();
  explicit ConfigFile(const std::string& text) { std::ofstream(path) << text; }
  ~ConfigFile() { std::remove(path.c_str()); }
};

// The error of `tapir COMMAND --config FILE` for a file holding `text`.
// bench has a --config of its own, so its file is named before it.
std::string config_error(const std::string& command, const std::string& text) {
  ConfigFile file(text);
  Cli cli;
  const std::string error = cli.parse_error(
      command == "bench" ? std::vector<std::string>{"--config", file.path, command}
                         : std::vector<std::string>{command, "--config", file.path});
  if (error.empty()) return "";
  CHECK(error.rfind(file.path + ": ", 0) == 0);  // the file comes first
  return error.substr(file.path.size() + 2);
}

// Each computing command with the options it requires.
const std::vector<std::vector<std::string>> kComputing = {
    {"train"},
    {"eval", "--checkpoint", "run"},
    {"dump", "--checkpoint", "run", "--out", "dump.safetensors"},
    {"bench"},
    {"compare", "--out", "dir"},
    {"search", "--out", "dir"},
    {"transfer", "--out", "dir"},
    {"layers", "--checkpoint", "run"},
    {"robust", "--checkpoint", "run"},
    {"robust-compare", "--out", "dir"},
    {"selfcheck"},
};

}  // namespace

TEST_CASE("every computing command takes --threads like train, and only those") {
  Cli cli;
  const CLI::Option* train = cli.app.get_subcommand("train")->get_option("--threads");
  CHECK(train->get_description() ==
        "Threads for kernels and BLAS (default: the usable cores, or TAPIR_THREADS)");
  CHECK(train->get_default_str() == std::to_string(default_num_threads()));
  for (const auto& args : kComputing) {
    CAPTURE(args.front());
    const CLI::Option* threads =
        cli.app.get_subcommand(args.front())->get_option_no_throw("--threads");
    REQUIRE(threads != nullptr);
    CHECK(threads->get_description() == train->get_description());
    CHECK(threads->get_default_str() == train->get_default_str());
  }
  // arch fit-poly runs a model when given --run.
  const CLI::Option* fit =
      cli.app.get_subcommand("arch")->get_subcommand("fit-poly")->get_option("--threads");
  CHECK(fit->get_description() == train->get_description());
  CHECK(fit->get_default_str() == train->get_default_str());
  // Pure file work, and task generation, which calls no kernel.
  for (const char* name : {"report", "plot", "tasks"})
    CHECK(cli.app.get_subcommand(name)->get_option_no_throw("--threads") == nullptr);
}

TEST_CASE("--threads outside [1, 256] stops every computing command with one message") {
  for (const auto& base : kComputing) {
    for (const std::string bad : {"0", "-3", "257"}) {
      CAPTURE(base.front());
      CAPTURE(bad);
      std::vector<std::string> args = base;
      args.insert(args.end(), {"--threads", bad});
      Cli cli;
      const std::string error = cli.parse_error(args);
      CHECK(error.find("--threads") != std::string::npos);
      CHECK(error.find("threads must be in [1, 256], got " + bad) != std::string::npos);
    }
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--threads", "2"});
    Cli cli;
    CHECK(cli.parse_error(args) == "");
  }
}

TEST_CASE("add_threads_option sets the count it is given, or the default") {
  CLI::App app{"t"};
  int threads = 1;
  add_threads_option(app, threads);
  app.parse(std::vector<std::string>{"3", "--threads"});
  CHECK(threads == 3);
  // Not given: the default, the usable cores (or TAPIR_THREADS).
  CLI::App none{"t"};
  int unset = 1;
  add_threads_option(none, unset);
  none.parse(std::vector<std::string>{});
  CHECK(unset == default_num_threads());
}

TEST_CASE("--help marks the defaults that differ from train's") {
  Cli cli;
  const auto help_of = [&](const std::string& command, const std::string& flag) {
    return cli.app.get_subcommand(command)->get_option(flag)->get_description();
  };
  // search and transfer learn functions by default: --mlp-act spline.
  CHECK(help_of("search", "--mlp-act").find("[train's default: gelu]") != std::string::npos);
  CHECK(help_of("transfer", "--mlp-act").find("[train's default: gelu]") != std::string::npos);
  // compare and robust-compare keep train's defaults, so nothing is marked.
  for (const std::string command : {"compare", "robust-compare", "search"}) {
    CAPTURE(command);
    CHECK(help_of(command, "--lr").find("train's default") == std::string::npos);
  }
  CHECK(help_of("compare", "--mlp-act").find("train's default") == std::string::npos);
}

TEST_CASE("--config: sections of other commands are read too, and every key is checked") {
  // The repository's example, and a file with a section per command.
  Cli cli;
  const std::string example =
      (std::filesystem::path(__FILE__).parent_path().parent_path() / "configs" / "modadd.toml")
          .string();
  CHECK(cli.parse_error({"train", "--config", example}) == "");
  const std::string both = "[train]\nlr = 1e-3\nopt = [\"p=23\"]\n[bench]\nsteps = 5\n";
  CHECK(config_error("train", both) == "");
  CHECK(config_error("bench", both) == "");

  CHECK(config_error("train", "[train]\nweight_decay = 1\n") ==
        "unknown key 'weight_decay' in [train] (did you mean 'weight-decay'? the keys are the "
        "options of `tapir train --help`; task options go in opt = [\"name=value\", ...])");
  CHECK(config_error("train", "[train]\nsteps = 10\nlrr = 3e-3\n") ==
        "unknown key 'lrr' in [train] (did you mean 'lr'? the keys are the options of `tapir "
        "train --help`; task options go in opt = [\"name=value\", ...])");
  // A task option is not a key of its own.
  CHECK(config_error("train", "[train]\np = 97\n").find("unknown key 'p' in [train]") == 0);
  // Another command's section is checked as well, whichever command runs.
  CHECK(config_error("train", "[train]\nlr = 1e-3\n[bench]\nwarmpu = 2\n") ==
        "unknown key 'warmpu' in [bench] (did you mean 'warmup'? the keys are the options of "
        "`tapir bench --help`)");
  CHECK(config_error("train", "[trian]\nlr = 1e-3\n")
            .find("unknown section [trian] (known: train, "
                  "eval,") == 0);
  CHECK(config_error("tasks", "[tasks.shwo]\n") ==
        "unknown section [tasks.shwo] (known: list, show)");
  CHECK(config_error("tasks", "[tasks.show]\nnmae = \"copy\"\n") ==
        "unknown key 'nmae' in [tasks.show] (did you mean 'name'? the keys are the options of "
        "`tapir tasks show --help`; task options go in opt = [\"name=value\", ...])");
  // A value that does not convert or validate names the file when it came from it.
  CHECK(config_error("train", "[train]\nlr = \"abc\"\n") == "Could not convert: --lr = abc");
  CHECK(config_error("search", "[search]\narch-grad = \"median\"\n").find("--arch-grad") !=
        std::string::npos);
  {
    // The same bad value on the command line is the command line's.
    ConfigFile file("[train]\nsteps = 10\n");
    Cli other;
    CHECK(other.parse_error({"train", "--config", file.path, "--lr", "abc"}) ==
          "Could not convert: --lr = abc");
  }
  CHECK(config_error("train", "width = 64\n[train]\n") ==
        "key 'width' is outside any section (options go in their command's section, e.g. [train])");
}

TEST_CASE("--config after bench is bench's list of configurations, not a file to check") {
  Cli cli;
  const auto check = [&cli](std::vector<const char*> args) {
    args.insert(args.begin(), "tapir");
    try {
      check_config_file(cli.app, static_cast<int>(args.size()), const_cast<char**>(args.data()));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(check({"bench", "--config", "tiny", "--steps", "1"}) == "");
  CHECK(check({"--config", "/nonexistent.toml", "bench"}).rfind("--config: cannot read", 0) == 0);
  CHECK(check({"train", "--config", "/nonexistent.toml"}).rfind("--config: cannot read", 0) == 0);
  // Only the command's name counts: a task called like a command does not.
  CHECK(check({"train", "--opt", "bench", "--config", "/nonexistent.toml"})
            .rfind("--config: cannot read", 0) == 0);
}

TEST_CASE("--spline-range takes two numbers and nothing else") {
  SplineGridOptions o("spline", SplineGrid(121, -20, 20, true));
  o.range = "-4,+4.5";
  CHECK(o.grid() == SplineGrid(121, -4, 4.5, true));
  for (const std::string bad : {" -4,4", "-4,4x", "-4", "-4,inf", "a,b"}) {
    CAPTURE(bad);
    o.range = bad;
    CHECK_THROWS_WITH_AS(
        o.grid(), ("--spline-range expects LO,HI (two finite numbers), got '" + bad + "'").c_str(),
        Error);
  }
}

TEST_CASE("--resume takes only the flags that cannot change what is computed") {
  // The flags are checked before any folder is opened: these folders need
  // not exist.
  const auto error_of = [](std::vector<std::string> args) -> std::string {
    Cli cli;
    CHECK(cli.parse_error(args) == "");
    for (const Command& c : cli.commands)
      if (c.app->parsed()) try {
          c.run();
        } catch (const Error& e) {
          return e.what();
        }
    return "";
  };
  CHECK(error_of({"train", "--resume", "no-such-run", "--lr", "1e-3"}) ==
        "--resume continues the run as its config.json says, so --lr cannot be given with it "
        "(allowed: --steps to extend the run, --threads, --device, --quiet, --log-every, "
        "--print-tape)");
  CHECK(error_of({"search", "--resume", "no-such-search", "--models", "4"}) ==
        "--resume continues the search as its search.json says, so --models cannot be given "
        "with it (allowed: --search-steps to extend the search, --threads, --device, --quiet)");
  CHECK(error_of({"search", "--resume", "no-such-search", "--out", "x"})
            .find("so --out cannot be given") != std::string::npos);
  CHECK(error_of({"search", "--resume", "no-such-search", "--search-steps", "9"}) ==
        "cannot resume no-such-search: no such folder");
  CHECK(error_of({"search", "--steps", "9"}) == "search needs --out DIR (or --resume DIR)");
}

TEST_CASE("transfer takes every search flag of search, declared once") {
  Cli cli;
  const CLI::App* search = cli.app.get_subcommand("search");
  const CLI::App* transfer = cli.app.get_subcommand("transfer");
  int flags = 0;
  for (const CLI::Option* option : search->get_options()) {
    if (option->get_group() != "Search") continue;
    CAPTURE(option->get_name());
    const CLI::Option* same = transfer->get_option_no_throw(option->get_name());
    REQUIRE(same != nullptr);
    CHECK(same->get_description() == option->get_description());
    CHECK(same->get_group() == "Search");
    ++flags;
  }
  CHECK(flags >= 16);
  const std::vector<std::string> transfer_args = {"transfer", "--tasks", "add,copy", "--out", "x"};
  const auto parse = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = transfer_args;
    args.insert(args.end(), extra.begin(), extra.end());
    Cli fresh;
    return fresh.parse_error(args);
  };
  CHECK(parse({"--stagger", "continue", "--arch-schedule", "trapezoid", "--arch-warmup", "2",
               "--arch-decay", "3", "--arch-split", "train", "--arch-grad", "mean"}) == "");
  CHECK(parse({"--stagger", "--arch-grad", "mean"}) == "");  // the bare flag: reinit
  CHECK(parse({"--stagger", "sometimes"})
            .find("unknown stagger 'sometimes' (known: off, reinit, "
                  "continue)") != std::string::npos);
  CHECK(parse({"--arch-schedule", "step"}).find("unknown schedule 'step'") != std::string::npos);
}

TEST_CASE("--stagger: off unless given, reinit alone, or the mode named") {
  const auto stagger_of = [](std::vector<std::string> args) {
    CLI::App app;
    SearchConfig config;
    add_search_flags(app, config);
    std::reverse(args.begin(), args.end());  // CLI11 wants reversed
    app.parse(args);
    return config.stagger;
  };
  CHECK(stagger_of({}) == Stagger::off);
  CHECK(stagger_of({"--stagger"}) == Stagger::reinit);
  CHECK(stagger_of({"--stagger", "--models", "3"}) == Stagger::reinit);
  CHECK(stagger_of({"--models", "3", "--stagger"}) == Stagger::reinit);
  CHECK(stagger_of({"--stagger", "continue"}) == Stagger::continue_);
  CHECK(stagger_of({"--stagger", "off"}) == Stagger::off);
  CHECK(stagger_of({"--stagger=reinit"}) == Stagger::reinit);
}

TEST_CASE("dump writes the hidden states and the vocabulary beside the logits and gradients") {
  test_support::TempDir dir;
  TrainConfig c = test_support::tiny_modadd({.steps = 4, .eval_every = 4});
  c.model.layers = 2;
  {
    Trainer t(c, dir.file("run"));
    t.start_fresh(false);
    t.run();
  }
  Cli cli;
  REQUIRE(cli.parse_error({"dump", "--checkpoint", dir.file("run"), "--out",
                           dir.file("dump.safetensors"), "--batch", "3", "--threads", "1"}) == "");
  for (const Command& command : cli.commands)
    if (command.app->parsed()) REQUIRE(command.run() == 0);
  const SafeTensorsFile dump = SafeTensorsFile::load(dir.file("dump.safetensors"));
  const SafeTensorsFile checkpoint = SafeTensorsFile::load(dir.file("run/checkpoint.safetensors"));
  const SafeTensorView& tokens = dump.at("tokens");
  const int64_t n = tokens.shape[0], t = tokens.shape[1], width = c.model.width;
  CHECK(n == 3);
  CHECK(dump.find("hidden.3") == nullptr);  // the embeddings and one per block
  for (const char* name : {"hidden.0", "hidden.1", "hidden.2"})
    CHECK(dump.at(name).shape == std::vector<int64_t>{n, t, width});
  // hidden.0 is the token embedding plus the learned position embedding.
  const auto* ids = reinterpret_cast<const int32_t*>(tokens.data);
  const auto* h0 = reinterpret_cast<const float*>(dump.at("hidden.0").data);
  const auto* tok = reinterpret_cast<const float*>(checkpoint.at("tok_emb.weight").data);
  const auto* pos = reinterpret_cast<const float*>(checkpoint.at("pos_emb.weight").data);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < t; ++i)
      for (int64_t k = 0; k < width; ++k)
        REQUIRE(h0[(b * t + i) * width + k] ==
                tok[ids[b * t + i] * width + k] + pos[i * width + k]);
  // The vocabulary: modadd p = 11's tokens, by id.
  CHECK(dump.metadata_value("vocab") ==
        R"(["0","1","2","3","4","5","6","7","8","9","10","+","="])");
}

TEST_CASE("train records its corpus, and --resume refuses once the corpus changed") {
  test_support::TempDir dir;
  std::string text;
  for (int i = 0; i < 200; ++i) text += "line " + std::to_string(i) + " of the corpus\n";
  dir.write("corpus.txt", text);
  const std::string run = dir.file("run");
  const auto tapir = [](std::vector<std::string> args) {
    Cli cli;
    REQUIRE(cli.parse_error(std::move(args)) == "");
    for (const Command& command : cli.commands)
      if (command.app->parsed()) return command.run();
    return -1;
  };
  REQUIRE(tapir({"train",
                 "--task",
                 "text",
                 "--opt",
                 "path=" + dir.file("corpus.txt"),
                 "--opt",
                 "context=16",
                 "--width",
                 "16",
                 "--layers",
                 "1",
                 "--heads",
                 "2",
                 "--batch",
                 "4",
                 "--steps",
                 "4",
                 "--eval-every",
                 "4",
                 "--threads",
                 "1",
                 "--quiet",
                 "--out",
                 run}) == 0);
  CHECK(read_file(run + "/inputs.json").find(dir.file("corpus.txt")) != std::string::npos);
  CHECK(tapir({"train", "--resume", run, "--steps", "6", "--quiet"}) == 0);  // unchanged

  // One byte changed (a letter the corpus has: the vocabulary stays).
  text[0] = 'o';
  dir.write("corpus.txt", text);
  const auto before = testing::files_below(run);
  CHECK_THROWS_WITH_AS(
      tapir({"train", "--resume", run, "--steps", "8", "--quiet"}),
      doctest::Contains(("cannot resume " + run + ": it is a run trained with other contents of " +
                         dir.file("corpus.txt"))
                            .c_str()),
      Error);
  CHECK(testing::files_below(run) == before);
}
