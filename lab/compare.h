// Multi-seed comparison of training variants (`tapir compare`, and the
// building block of `tapir transfer` and the main job). Each (variant, seed)
// is its own run folder, so an interrupted comparison continues where it
// stopped: finished runs are reused, unfinished ones resumed. Sits in lab/:
// the commands in tools/ turn flags into variants (tools/variant_options.h).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "lab/progress.h"
#include "lab/stats.h"
#include "optim/train_config.h"

namespace tapir {

struct Variant {
  std::string name;               // as given: "baseline", "arch:FILE", "pos=alibi,arch:FILE"
  std::vector<std::string> args;  // as train flags: {"--pos=alibi", "--arch=FILE"}
};
// The base config with a variant's options applied on top
// (tools/variant_options.h: apply_variant).
using ApplyVariant = std::function<TrainConfig(const TrainConfig& base, const Variant& variant)>;

struct SeedRun {
  uint64_t seed = 0;
  std::string dir;
  Curve accuracy, loss;  // first eval split ("test") over steps
  double steps_to = kNever, seconds_to = kNever;
  double final_accuracy = 0, best_loss = 0;
};

struct VariantResult {
  Variant variant;
  std::vector<SeedRun> runs;
  Spread steps, seconds, final_accuracy, best_loss;
};

struct CompareOptions {
  TrainConfig base;
  std::vector<Variant> variants;
  int seeds = 5;
  double threshold = 0.99;
  std::string out_dir;
  Progress* progress = nullptr;  // nullptr: train silently
};

// Trains one run to its configured steps in `dir` as the next run of
// `progress`: a folder marked complete (a file "finished") is reused, an
// interrupted one resumed, anything else started fresh.
void train_or_reuse(const TrainConfig& config, const std::string& dir, Progress& progress,
                    const std::string& label);
// Trains (or reuses) the runs of one configuration over seeds config.seed,
// config.seed + 1, ..., in dir/seed-N, and summarises them.
VariantResult run_variant(const TrainConfig& config, const Variant& variant, int seeds,
                          double threshold, const std::string& dir, Progress& progress);
// Trains (or reuses) every run, then summarises. Every variant is applied
// to options.base before the first run trains, so a bad one fails at once.
std::vector<VariantResult> run_compare(const CompareOptions& options,
                                       const ApplyVariant& apply_variant);
// Reads one finished run folder's curves (for reports).
SeedRun read_run(const std::string& dir, double threshold);

std::string compare_table_markdown(const std::vector<VariantResult>& results, double threshold);
std::string compare_json(const std::vector<VariantResult>& results, double threshold);

}  // namespace tapir
