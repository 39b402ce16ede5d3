// `tapir train`: one training run into a run folder. This file declares the
// flags (tools/job_flags.h reads them into a job); lab/train_job.h runs it.
#include <memory>

#include "lab/train_job.h"
#include "tools/commands.h"
#include "tools/job_flags.h"
#include "tools/train_options.h"

namespace tapir {

struct TrainCommandOptions {
  TrainOptions train;
  TrainJob job;  // out, resume, force, quiet, log_every
};

Command add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("train", "Train a transformer on a task");
  auto o = std::make_shared<TrainCommandOptions>();
  add_train_options(*cmd, o->train);
  cmd->add_option("--out", o->job.out, "Run folder to create");
  cmd->add_flag("--force", o->job.force, "Overwrite an existing run folder");
  cmd->add_option("--resume", o->job.resume, "Continue the run in this folder");
  cmd->add_flag("--quiet", o->job.quiet, "Print nothing but errors");
  cmd->add_flag("--print-tape", o->job.print_tape,
                "Print the first step's tape: the ops in forward order (file, kernels, saved "
                "tensors), then the backward walk with each node's gradient norm "
                "(TAPIR_PRINT_TAPE=1 does it in any program, on stderr)");
  cmd->add_option("--log-every", o->job.log_every,
                  "Print the loss, gradient norm and learning rate every N steps, after the "
                  "loss a uniform guess would have (0: only the evaluations)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  // Under mpirun the ranks train one run together (data parallel); rank 0
  // owns the folder and reports.
  return {cmd, [o, cmd]() { return run_train_job(train_job_from_flags(*cmd, o->train, o->job)); },
          Ranks::several};
}

}  // namespace tapir
