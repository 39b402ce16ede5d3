// `tapir search`: Stage I, M models sharing one set of learned functions
// (optim/search.h). Writes DIR/arch.safetensors, snapshots of the functions
// over time, each model's metrics and the search's own log. This file
// declares the flags (tools/job_flags.h reads them into a job);
// lab/search_job.h runs the search.
#include <memory>

#include "lab/search_job.h"
#include "tools/commands.h"
#include "tools/job_flags.h"
#include "tools/protocols.h"
#include "tools/search_options.h"
#include "tools/train_options.h"

namespace tapir {

struct SearchCommandOptions {
  TrainOptions train;
  SearchJob job;  // config (the search flags), out, resume, force, quiet, repeat
  std::string protocol = default_protocol();
};

Command add_search_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "search", "Stage I: learn shared nonlinearities with M models (writes arch.safetensors)");
  auto o = std::make_shared<SearchCommandOptions>();
  o->train.config.model.mlp_act = MlpAct::spline;  // a search learns something by default
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  add_search_flags(*cmd, o->job.config);
  add_protocol_option(*cmd, o->protocol);
  cmd->add_option("--out", o->job.out, "Search folder to create");
  cmd->add_flag("--force", o->job.force, "Overwrite an existing folder");
  cmd->add_option("--repeat", o->job.repeat,
                  "Independent searches, in OUT/search-K, each with its own model seeds")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--resume", o->job.resume,
                  "Continue the search in this folder from its last evaluation");
  cmd->add_flag("--quiet", o->job.quiet, "Print nothing but errors");
  return {cmd,
          [o, cmd]() {
            return run_search_job(search_job_from_flags(*cmd, o->train, o->protocol, o->job));
          },
          Ranks::several};
}

}  // namespace tapir
