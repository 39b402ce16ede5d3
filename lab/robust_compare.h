// `tapir robust-compare`: plain training (ERM) against per-layer descent
// constraints (or deep supervision, or noise-augmented ERM) over several
// seeds, side by side. For each seed it trains (or resumes, or reuses)
// DIR/erm_s<seed> and DIR/<arm>_s<seed> with the same options except the
// constraint and the training noise, then reports, as mean +- std over seeds with
// the paired difference's mean and its 95% interval (lab/intervals.h):
// the per-layer loss profile and how many runs are monotone, every
// evaluation split's metric (for denoise: RMSE per sigma), and the metric
// under each input noise per gamma. Tables on stdout and
// DIR/summary_<arm>.json; the command then draws DIR/compare_<arm>_*.svg
// from the summary (report/robust_figures.h). Two constrained
// variants can share one DIR and its ERM runs. Sits in lab/, on
// lab/compare.h (the runs) and lab/robust_report.h (the measurements).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "optim/train_config.h"

namespace tapir {

struct RobustCompareConfig {
  TrainConfig base;             // the constrained arm's runs; ERM's drop the constraint
  std::string out;              // the folder for the runs and the report
  std::string arm = "descent";  // the constrained runs' name: DIR/<arm>_s<seed>
  std::string split = "test";   // the split of the profile and the noise
  std::vector<std::string> noise = {"gaussian", "uniform", "discrete"};
  std::vector<double> gammas;      // noise strengths
  int64_t seeds = 3, repeats = 2;  // seeds per arm; noise seeds per gamma and run
  int64_t limit = 0;               // max examples per evaluation (0: all)
  bool quiet = false;              // print only the tables
  std::string note;                // printed first when not empty
};

// Trains the 2 x seeds runs (shared among MPI ranks, lab/compare.h), then
// rank 0 evaluates them, prints the tables and writes summary_ARM.json
// (its figures are report/robust_figures.h's). Returns whether this
// process wrote the summary (rank 0).
bool run_robust_compare(const RobustCompareConfig& config);

}  // namespace tapir
