// The transfer matrix (`tapir transfer`): searches per task, then cells of
// (architecture task, training task) and per-task baselines, all reusable.
// Sits in lab/, on optim/ and lab/compare.h; the command is
// tools/cmd_transfer.cpp.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lab/compare.h"
#include "optim/search_config.h"
#include "optim/train_config.h"

namespace tapir {

struct TransferOptions {
  TrainConfig base;  // model, optimizer, steps per cell; task comes from `tasks`
  std::vector<std::string> tasks;
  // Task options by task (`--task-opt add:digits=2`); a task not named here
  // runs at its defaults.
  std::map<std::string, TaskOptions> task_options;
  // Every task's search as the search flags give it (its base is the task's
  // configuration).
  SearchConfig search = default_search();
  int seeds = 2;
  double threshold = 0.99;
  std::string metric = "accuracy";  // accuracy | steps
  std::string out_dir;
  Progress* progress = nullptr;  // nullptr: train silently
  // Whether the user gave a training flag; each task's recommended settings
  // (optim/recommend.h) apply to the flags not given. Null: none apply.
  std::function<bool(const std::string&)> given;

  // Searches of 1000 steps with 4 models; the rest as `tapir search`.
  static SearchConfig default_search() {
    SearchConfig s;
    s.steps = 1000;
    s.models = 4;
    return s;
  }
};

struct TransferResult {
  std::vector<std::string> tasks;
  std::string metric;
  std::vector<VariantResult> baselines;           // per column task
  std::vector<std::vector<VariantResult>> cells;  // [row: arch task][column: trained task]
  std::vector<std::vector<double>> relative;      // the matrix shown
};

// Everything run_transfer would refuse, checked before anything is written:
// the task list (known tasks, each once), --task-opt of listed tasks, and
// each task's search configuration.
void check_transfer(const TransferOptions& options);
TransferResult run_transfer(const TransferOptions& options);
std::string transfer_markdown(const TransferResult& r);
std::string transfer_json(const TransferResult& r);
// A cell's figure as the table and the figure write it: "+0.012" (accuracy)
// or "1.35x" (speed-up), "-" where undefined, "inf".
std::string transfer_cell_text(double value, const std::string& metric);

}  // namespace tapir
