// What defines a Stage I search (its search.json) and how it ended (its
// search_result.json). The loop that runs one is optim/search.h; the folder
// that holds both files is optim/search_folder.h.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "base/json.h"
#include "base/names.h"
#include "optim/optimizer.h"
#include "optim/train_config.h"

namespace tapir {

// Where a search draws its D_arch batches: the task's held-out "arch" split
// (the method as the paper states it), or the "train" split the weights
// also train on (the authors' public code: no held-out data).
enum class ArchSplit { arch, train };
template <>
struct Names<ArchSplit> {
  static constexpr const char* what = "arch split";
  static constexpr std::pair<ArchSplit, const char*> table[] = {{ArchSplit::arch, "arch"},
                                                                {ArchSplit::train, "train"}};
};

// How the active models' D_arch gradients make the shared functions' one:
// their sum, or their mean.
enum class ArchGrad { sum, mean };
template <>
struct Names<ArchGrad> {
  static constexpr const char* what = "D_arch gradient combination";
  static constexpr std::pair<ArchGrad, const char*> table[] = {{ArchGrad::sum, "sum"},
                                                               {ArchGrad::mean, "mean"}};
};

struct SearchConfig {
  TrainConfig base;      // task, model (with learned functions), weight optimizer, ...
                         // base.steps = one model's lifetime N
  int models = 8;        // M
  int64_t steps = 0;     // total steps of the search (0: base.steps)
  bool stagger = false;  // staggered starts and re-initialisation
  OptimizerConfig arch_optimizer = default_arch_optimizer();
  double arch_lr = 0.1;
  ArchGrad arch_grad = ArchGrad::sum;      // combine the active models' gradients
  ArchSplit arch_split = ArchSplit::arch;  // the task split D_arch batches come from
  double smoothness = 0;       // weight of sum (v[k-1] - 2 v[k] + v[k+1])^2 per function
  double amplitude = 0;        // keep |v| <= amplitude after each step (0: no bound)
  int64_t arch_batch = 0;      // D_arch batch size (0: base.batch)
  int64_t snapshot_every = 0;  // save the functions every N steps (0: base.eval_every)

  static OptimizerConfig default_arch_optimizer();
  void validate() const;
  Json to_json() const;
  static SearchConfig from_json(const Json& j);  // what to_json wrote, validated
  // With steps, arch_batch and snapshot_every at 0 replaced by the values a
  // search uses, and the weights on the train split (what search.json records).
  SearchConfig resolved() const;

  // The JSON fields, in the order written (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("base", c.base);
    f.required("models", c.models);
    f.required("steps", c.steps);
    f.required("stagger", c.stagger);
    f.group("arch_optimizer", [&](auto& o) {
      o.required("name", c.arch_optimizer.kind);
      o.required("lr", c.arch_lr);
      o.required("beta1", c.arch_optimizer.beta1);
      o.required("beta2", c.arch_optimizer.beta2);
      o.required("eps", c.arch_optimizer.eps);
    });
    f.required("arch_grad", c.arch_grad);
    f.optional("arch_split", c.arch_split);  // absent before it existed: the arch split
    f.required("smoothness", c.smoothness);
    f.required("amplitude", c.amplitude);
    f.required("arch_batch", c.arch_batch);
    f.required("snapshot_every", c.snapshot_every);
  }
};

// How a search ended, for its verdict: the models' mean test accuracy
// untrained (what chance looks like for this task and model) and at the
// last evaluation, and the largest |knot value| of the shared functions.
// A search whose models end near chance learned functions that no model
// could use; its architecture file is written all the same, and the command
// and the report say so.
struct SearchOutcome {
  int64_t steps = 0;
  double untrained_accuracy = 0;
  double final_accuracy = 0;
  double knot_abs_max = 0;
  // Model 0's test accuracy at the last evaluation (the model the authors'
  // code reports: with --stagger it starts at step 0); -1 when unknown
  // (search_result.json written before it was recorded).
  double model0_accuracy = -1;
  // final_accuracy below a tenth of the way from untrained to perfect.
  bool near_chance() const;
  // One line: "the models reached mean test accuracy 0.98 (untrained 0.02)"
  // or "warning: the models ended near chance: ...".
  std::string verdict() const;
  Json to_json() const;
  static SearchOutcome from_json(const Json& j);  // what to_json wrote
};

}  // namespace tapir
