// `tapir transfer`: the cross-task transfer matrix of Teney et al. For every
// task, a Stage I search (reused when DIR/search-TASK/arch.safetensors
// exists); then, for every (architecture task, training task) pair, fresh
// models trained with that task's frozen functions, and the baseline for
// every task; the matrix shows each cell's metric relative to the baseline.
// Every search and cell is its own folder, so a killed run continues where
// it stopped. This file declares the flags; lab/transfer_job.h runs the
// matrix, report/transfer_figure.h draws its figure.
#include <memory>

#include "lab/transfer_job.h"
#include "report/transfer_figure.h"
#include "tools/commands.h"
#include "tools/protocols.h"
#include "tools/search_options.h"
#include "tools/train_options.h"

namespace tapir {

Command add_transfer_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("transfer", "Cross-task transfer matrix of learned functions");
  struct Options {
    TrainOptions train;
    TransferOptions transfer;
    std::string tasks = "add,mano,dyck,copy";
    std::vector<std::string> task_opts;  // TASK:name=value
    bool quiet = false;
    std::string protocol = default_protocol();
  };
  auto o = std::make_shared<Options>();
  o->train.config.model.mlp_act = MlpAct::spline;
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  TransferOptions& t = o->transfer;
  cmd->add_option("--tasks", o->tasks, "Comma-separated tasks (rows and columns)")
      ->capture_default_str();
  cmd->add_option("--task-opt", o->task_opts,
                  "Option of one task as TASK:name=value (repeatable; the others keep their "
                  "defaults)");
  add_search_flags(*cmd, t.search);  // each task's search, as `tapir search` takes them
  cmd->add_option("--seeds", t.seeds, "Seeds per cell")->capture_default_str();
  cmd->add_option("--threshold", t.threshold, "Accuracy counted as solved")->capture_default_str();
  cmd->add_option("--metric", t.metric,
                  "Cell value: accuracy (final test accuracy minus the baseline's) or steps "
                  "(baseline's median steps to threshold / the cell's)")
      ->check(CLI::IsMember({"accuracy", "steps"}))
      ->capture_default_str();
  cmd->add_option("--out", t.out_dir, "Folder for searches, cells and the matrix")->required();
  cmd->add_flag("--quiet", o->quiet, "Print only the matrix");
  add_protocol_option(*cmd, o->protocol);
  return {cmd,
          [o, cmd]() {
            TransferOptions run = o->transfer;
            // Stage I's flags and the weights' schedule, in the searches' models
            // and the cells alike.
            ProtocolRecord protocol =
                apply_protocol(*cmd, o->protocol, ProtocolStage::search,
                               {o->train.config.steps, run.search.steps, /*search=*/true});
            run.search = o->transfer.search;  // with what the protocol set
            run.base = finish_train_options(*cmd, o->train);
            run.given = given_on(*cmd);
            TAPIR_CHECK(run.base.task_options.values().empty(),
                        "transfer trains several tasks: give a task's options as --task-opt "
                        "TASK:name=value, not --opt or --name value");
            set_transfer_task_options(o->task_opts, run.task_options);
            run.tasks = transfer_task_list(o->tasks);
            for (const std::string& name : run.tasks) {
              TaskOptions options =
                  run.task_options.count(name) ? run.task_options.at(name) : TaskOptions();
              if (apply_protocol_task_options(o->protocol, name, options, protocol,
                                              "--task-opt " + name + ":"))
                run.task_options[name] = options;
            }
            run.base.protocol = protocol;
            return run_transfer_job(std::move(run), protocol_note(protocol), o->quiet,
                                    transfer_svg);
          },
          Ranks::several};
}

}  // namespace tapir
