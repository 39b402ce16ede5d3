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

// Staggered starts (optim/search.h): none (every model from step 0 to the
// end), model m from step m * N / M and re-initialised every N steps
// (reinit), or from m * N / M to the end of the search (continue: the
// authors' code, each model's weight schedule counting from its own start).
enum class Stagger { off, reinit, continue_ };
template <>
struct Names<Stagger> {
  static constexpr const char* what = "stagger";
  static constexpr std::pair<Stagger, const char*> table[] = {
      {Stagger::off, "off"}, {Stagger::reinit, "reinit"}, {Stagger::continue_, "continue"}};
};

struct SearchConfig {
  TrainConfig base;   // task, model (with learned functions), weight optimizer, ...
                      // base.steps = one model's lifetime N (its weight schedule's length)
  int models = 8;     // M
  int64_t steps = 0;  // total steps of the search (0: base.steps)
  Stagger stagger = Stagger::off;
  OptimizerConfig arch_optimizer = default_arch_optimizer();
  double arch_lr = 0.1;
  // The functions' learning-rate schedule over the search's steps: its
  // kind, warmup, decay (trapezoid) and min_ratio (optim/schedule.h).
  Schedule arch_schedule;                  // base_lr and total unused: arch_lr and steps
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
  // The functions' schedule: arch_schedule with arch_lr over the search's
  // steps (resolved).
  Schedule arch_lr_schedule() const;

  // The JSON fields, in the order written (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("base", c.base);
    f.required("models", c.models);
    f.required("steps", c.steps);
    // "stagger" is true for reinit and continue, as files before continue
    // existed say; "stagger_mode" (absent in them) tells the two apart.
    f.required(
        "stagger", c.stagger, [](Stagger s) { return s != Stagger::off; },
        [](bool on) { return on ? Stagger::reinit : Stagger::off; });
    f.optional("stagger_mode", c.stagger);
    f.group("arch_optimizer", [&](auto& o) {
      o.required("name", c.arch_optimizer.kind);
      o.required("lr", c.arch_lr);
      o.required("beta1", c.arch_optimizer.beta1);
      o.required("beta2", c.arch_optimizer.beta2);
      o.required("eps", c.arch_optimizer.eps);
      // Absent before the functions had a schedule: constant, no warmup.
      o.optional("schedule", c.arch_schedule.kind);
      o.optional("warmup", c.arch_schedule.warmup);
      o.optional("decay", c.arch_schedule.decay);
      o.optional("min_ratio", c.arch_schedule.min_ratio);
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
  // The search's wall seconds, its resumes' included; -1 when unknown
  // (search_result.json written before it was recorded).
  double wall_s = -1;
  // final_accuracy below a tenth of the way from untrained to perfect.
  bool near_chance() const;
  // One line: "the models reached mean test accuracy 0.98 (untrained 0.02)"
  // or "warning: the models ended near chance: ...".
  std::string verdict() const;
  Json to_json() const;
  static SearchOutcome from_json(const Json& j);  // what to_json wrote
};

}  // namespace tapir
