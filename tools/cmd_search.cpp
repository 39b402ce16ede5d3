// `tapir search`: Stage I, M models sharing one set of learned functions
// (optim/search.h). Writes DIR/arch.safetensors, snapshots of the functions
// over time, each model's metrics and the search's own log. This file
// declares the flags; lab/search_job.h runs the search.
#include <optional>

#include "lab/search_job.h"
#include "tools/commands.h"
#include "tools/options.h"
#include "tools/presets.h"
#include "tools/protocols.h"
#include "tools/search_options.h"
#include "tools/train_options.h"

namespace tapir {

namespace {

struct SearchOptions {
  TrainOptions train;
  SearchConfig search;
  std::string out, resume;
  bool force = false, quiet = false;
  int repeat = 1;
  std::string protocol = default_protocol();
};

// The command once parsed: a resumed search continues as its search.json
// says; a new one is built from the flags.
void run_search_command(CLI::App& cmd, SearchOptions& o) {
  if (!o.resume.empty()) {
    check_resume_flags(cmd, {"--search-steps", "--threads", "--device", "--quiet"},
                       "the search as its search.json",
                       "--search-steps to extend the search, --threads, --device, --quiet");
    const auto given = [&cmd](const char* flag) { return cmd.count(flag) > 0; };
    TAPIR_CHECK(!given("--search-steps") || o.search.steps >= 1,
                "--search-steps must be at least 1 to extend a search, got ", o.search.steps);
    resume_search_job(
        o.resume, given("--search-steps") ? o.search.steps : 0,
        given("--device") ? std::optional<Device>(o.train.config.device) : std::nullopt,
        given("--threads") ? std::optional<int>(o.train.config.threads) : std::nullopt, o.quiet);
    return;
  }
  TAPIR_CHECK(!o.out.empty(), "search needs --out DIR (or --resume DIR)");
  TAPIR_CHECK(cmd.count("--train-on") == 0,
              "search trains its weights on the train split (D_wts) and takes D_arch from "
              "--arch-split; --train-on is for training outside Stage I");
  // The protocol first, then a preset, with the search's steps, so that its shares of them and
  // its search flags land in o.search before it is read.
  ProtocolRecord protocol = apply_protocol(cmd, o.protocol, ProtocolStage::search,
                                           {o.train.config.steps, o.search.steps, /*search=*/true});
  if (!o.train.preset.empty())
    o.train.preset_note = preset_note(
        o.train.preset,
        apply_preset(cmd, o.train.preset, {o.train.config.steps, o.search.steps, /*search=*/true}));
  SearchConfig config = o.search;
  config.base = finish_train_options(cmd, o.train);
  apply_protocol_task_options(o.protocol, config.base.task, config.base.task_options, protocol);
  config.base.protocol = protocol;
  prepend_protocol_note(protocol, o.train.preset_note);
  if (!o.train.preset.empty() &&
      apply_preset_task_options(o.train.preset, config.base.task, config.base.task_options))
    o.train.preset_note += (o.train.preset_note.empty() ? "" : "\n") + o.train.preset +
                           ": using --opt arch-frac=0 (nothing held out)";
  const std::string note =
      settings_note(o.train, config.base.task, recommend_unless_given(cmd, config.base));
  start_repeated_search_jobs(config, o.out, o.repeat, o.force, note, o.quiet);
}

}  // namespace

Command add_search_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "search", "Stage I: learn shared nonlinearities with M models (writes arch.safetensors)");
  auto o = std::make_shared<SearchOptions>();
  o->train.config.model.mlp_act = MlpAct::spline;  // a search learns something by default
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  add_search_flags(*cmd, o->search);
  add_protocol_option(*cmd, o->protocol);
  cmd->add_option("--out", o->out, "Search folder to create");
  cmd->add_flag("--force", o->force, "Overwrite an existing folder");
  cmd->add_option("--repeat", o->repeat,
                  "Independent searches, in OUT/search-K, each with its own model seeds")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--resume", o->resume,
                  "Continue the search in this folder from its last evaluation");
  cmd->add_flag("--quiet", o->quiet, "Print nothing but errors");
  return {cmd,
          [o, cmd]() {
            run_search_command(*cmd, *o);
            return 0;
          },
          Ranks::several};
}

}  // namespace tapir
