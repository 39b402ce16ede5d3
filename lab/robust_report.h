// The measurements behind `tapir layers`, `tapir robust` and `tapir
// robust-compare` (docs/constraints.md), shared so the three commands report
// the same numbers: the per-layer loss profile of a checkpoint and its metric
// under growing input noise, with their text tables.
// Sits in lab/, on optim/ (the trainer and optim/layer_eval.h).
#pragma once
#include <string>
#include <vector>

#include "base/json.h"
#include "optim/evaluator.h"
#include "optim/layer_eval.h"

namespace tapir {

// accuracy for a classification task, RMSE for a regression task (denoise).
double task_metric(const Task& task, const Tally& tally);
const char* task_metric_name(const Task& task);

struct LayerProfile {
  std::vector<double> loss, metric;  // layers 0..L
  int64_t examples = 0;
};
LayerProfile layer_profile(const Evaluator& evaluator, const std::string& split);
// Every f_l < f_{l-1}.
bool is_monotone(const std::vector<double>& loss);
// Layers l >= 1 with f_l <= (1 - alpha) f_{l-1}.
int count_descent(const std::vector<double>& loss, double alpha);
std::string format_layer_table(const LayerProfile& profile, const std::string& metric_name,
                               double alpha);

struct RobustPoint {
  double gamma = 0;
  double metric = 0, spread = 0;  // mean and standard deviation over the repeats
  double loss = 0;                // mean loss over the repeats
};
// The final layer's metric on `split` for each gamma, each repeated with
// noise seeds seed, seed + 1, ..., seed + repeats - 1.
std::vector<RobustPoint> robustness_curve(const Evaluator& evaluator, const std::string& split,
                                          NoiseKind noise, const std::vector<double>& gammas,
                                          int64_t repeats, uint64_t seed);
std::string format_robust_table(const std::vector<RobustPoint>& curve,
                                const std::string& metric_name);

// Mean and (population) standard deviation.
void mean_std(const std::vector<double>& values, double& mean, double& std);
// "mean +- std" with 4 decimals, for tables over seeds.
std::string mean_std_text(const std::vector<double>& values);
// {"mean", "std", "seeds": [every value]}.
Json mean_std_json(const std::vector<double>& values);

}  // namespace tapir
