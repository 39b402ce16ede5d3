// `tapir transfer`'s work once its flags are read (tools/cmd_transfer.cpp):
// the task list and the per-task options taken from their text, then the
// matrix checked before the folder is touched, run (lab/transfer.h) and
// written as transfer.md, transfer.json and transfer.svg (its figure drawn
// by the function the command passes in). Under mpirun the
// ranks share the runs; rank 0 reports and writes. Sits in lab/, on
// lab/transfer.h.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lab/transfer.h"

namespace tapir {

// "add,mano,,dyck" as its task names, the empty ones left out.
std::vector<std::string> transfer_task_list(const std::string& text);
// Each item of --task-opt, TASK:name=value, into `into`[TASK]; fails on an
// item of another form, or an option given twice for one task.
void set_transfer_task_options(const std::vector<std::string>& items,
                               std::map<std::string, TaskOptions>& into);
// The SVG figure of a matrix, drawn one floor up (report/transfer_figure.h)
// and passed in by the command.
using TransferFigure = std::function<std::string(const TransferResult&)>;
// Prints `note` (unless quiet or empty), then checks, runs and writes the
// matrix into run.out_dir (transfer.svg drawn by `figure`); the exit code (0).
int run_transfer_job(TransferOptions run, const std::string& note, bool quiet,
                     const TransferFigure& figure);

}  // namespace tapir
