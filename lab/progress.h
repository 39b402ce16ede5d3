// What a long command shows while it works, written once for every command
// that trains (train, compare, search, transfer, robust-compare). Three
// styles, picked from where stdout goes:
//   bar    stdout is a terminal: one live line, redrawn in place at most
//          five times a second,
//            [run 2/6] gelu seed 1 [#####-----] 1500/3000 23.4 steps/s
//            ETA 1m04s (all 5m40s) test acc 0.4120
//          with finished runs and evaluations printed above it;
//   lines  stdout is a file or a pipe: one plain line per evaluation and
//          per finished run, nothing redrawn;
//   quiet  --quiet: nothing.
// Every line is flushed as it is written, so a log file follows the run.
// "ETA" is for the current run, "all" for the whole experiment: the runs
// still to come are assumed to be as long as the current one, and the rate
// is the one measured over all steps trained so far in this process.
// Sits in lab/, on optim/ (TrainEvents).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>

#include "optim/search.h"
#include "optim/trainer.h"

namespace tapir {

class Progress {
 public:
  enum class Style { quiet, lines, bar };
  // quiet when asked; otherwise TAPIR_PROGRESS when set (bar or lines: under
  // mpirun every process's stdout is a terminal, even when mpirun's own
  // output goes to a file), else bar when stdout is a terminal, lines if not.
  static Style style_for(bool quiet);
  // Refuses a TAPIR_PROGRESS other than bar or lines; the command line calls
  // it before any command runs.
  static void check_environment();

  explicit Progress(Style style, std::FILE* out = stdout);
  explicit Progress(bool quiet) : Progress(style_for(quiet)) {}
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  Style style() const { return style_; }
  // The experiment holds `runs` runs (1: a single run, shown without "run k/n").
  void plan(int runs);
  // Run k of the plan (counted from 1 by each call) begins: `label` names it,
  // it is at `first_step` (a resumed run) and ends at `steps`.
  void start_run(const std::string& label, int64_t first_step, int64_t steps);
  // A run of the plan that needs no training (its folder is complete).
  void skip_run(const std::string& label, const std::string& summary);
  // After a step: `metric` is the latest value worth showing ("loss 0.41").
  void step(int64_t step, const std::string& metric);
  // After an evaluation: remembered for the bar; a line in lines style, and
  // in bar style when eval lines are wanted (a single run).
  void eval(int64_t step, const std::string& metric);
  // The current run ended: one line, "label: summary".
  void finish_run(const std::string& summary);
  // Any other line (the bar is cleared first and redrawn by the next step).
  void line(const std::string& text);
  // A warning: "tapir: TEXT" on stderr in every style, quiet too.
  void warn(const std::string& text);

  // Whether eval() prints a line in bar style (default: only for a single run).
  void set_eval_lines(bool on);
  // Hooks for Trainer::run: step() with the loss, eval() with every split.
  TrainEvents train_events();

  // "[run 2/6] gelu seed 1 [#####-----] 1500/3000 23.4 steps/s ETA 1m04s
  // (all 5m40s) test acc 0.4120", without escape codes.
  std::string status_text(int64_t step, double now_s) const;
  // "23.4 steps/s ETA 1m04s (all 5m40s)", or "" before the first step.
  std::string timing_text(int64_t step, double now_s) const;

 private:
  void clear_bar();
  void write(const std::string& text);
  std::string prefix() const;
  double seconds_now() const;

  Style style_;
  std::FILE* out_;
  bool eval_lines_ = false;
  bool eval_lines_set_ = false;
  int runs_ = 1, run_ = 0;
  std::string label_, metric_, eval_metric_;
  int64_t first_step_ = 0, steps_ = 0, step_ = 0;
  double run_start_ = 0, last_draw_ = -1;
  // Over the whole experiment, in this process: steps trained and the time
  // spent on them.
  int64_t trained_steps_ = 0;
  double trained_seconds_ = 0;
  bool bar_open_ = false;
};

// Runs a Stage I search as one run of `progress`: the bar shows the
// D_arch loss, each evaluation the models' mean test accuracy beside the
// mean D_arch loss since the previous one, and the run ends with the
// search's verdict (SearchOutcome::verdict, which warns when the models
// ended near chance).
void run_search(Search& search, Progress& progress, const std::string& label);

}  // namespace tapir
