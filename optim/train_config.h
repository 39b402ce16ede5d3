// Everything that defines a training run. config.json in a run folder is
// this struct as JSON, and `tapir train --resume DIR` rebuilds the run from it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "nn/transformer.h"
#include "optim/constraints.h"
#include "optim/optimizer.h"
#include "optim/schedule.h"
#include "tasks/task.h"

namespace tapir {

// What the weights train on outside Stage I: the whole training
// distribution D (the task's train and arch splits together; the paper's
// Stage II trains fresh models on D), or the train split alone, keeping the
// arch split out as a Stage I search does for its D_wts.
enum class TrainOn { all, train };
template <>
struct Names<TrainOn> {
  static constexpr const char* what = "training data";
  static constexpr std::pair<TrainOn, const char*> table[] = {{TrainOn::all, "all"},
                                                              {TrainOn::train, "train"}};
};

// What a run's evaluations score: the task's evaluation splits (test
// first), or the held-out arch split alone. A setting tuned on arch
// (`tapir compare --tune`, lab/tune.h) is chosen without a look at test;
// such a run trains on the train split, so arch stays out of its data.
enum class EvalOn { task, arch };
template <>
struct Names<EvalOn> {
  static constexpr const char* what = "evaluation splits";
  static constexpr std::pair<EvalOn, const char*> table[] = {{EvalOn::task, "task"},
                                                             {EvalOn::arch, "arch"}};
};

// Noise-augmented training (the noise-augmented ERM baseline of the
// constraints paper's reviewers): each training step's token embeddings
// perturbed as `tapir robust` perturbs them at test time (optim/layer_eval.h:
// gaussian or uniform noise of strength train_gamma times the embedding
// table's RMS), drawn afresh at every step from the seed and the step, so a
// resumed run draws what an uninterrupted one does.
enum class TrainNoise { none, gaussian, uniform };
template <>
struct Names<TrainNoise> {
  static constexpr const char* what = "training noise";
  static constexpr std::pair<TrainNoise, const char*> table[] = {{TrainNoise::none, "none"},
                                                                 {TrainNoise::gaussian, "gaussian"},
                                                                 {TrainNoise::uniform, "uniform"}};
};

// The named protocol (tools/protocols.h) that set some of a run's flags:
// its name and what it set, as "--flag value" ("--opt arch-frac=0" for a
// task option); the flags themselves are in the rest of the config. "none"
// for a run that no protocol set (`tapir train`; older runs).
struct ProtocolRecord {
  std::string name = "none";
  std::vector<std::string> flags;
  template <class Self, class Fields>
  static void fields(Self& p, Fields& f) {
    f.required("name", p.name);
    f.required("flags", p.flags);
  }
  bool operator==(const ProtocolRecord&) const = default;
};

struct TrainConfig {
  std::string task = "modadd";
  TaskOptions task_options;
  ModelConfig model;  // vocab and context are filled in from the task
  OptimizerConfig optimizer;
  Schedule schedule;            // schedule.total follows steps unless set
  ConstraintConfig constraint;  // per-layer descent constraints (kind none: plain training)
  int64_t steps = 1000;
  int64_t batch = 64;
  double clip = 1.0;         // global gradient-norm clip; <= 0 disables
  int64_t eval_every = 100;  // steps between evaluations (and checkpoints)
  int64_t eval_batch = 512;  // examples per forward pass during evaluation
  int64_t eval_limit = 0;    // cap on examples per eval split (0 = the whole set)
  double stop_at = 0;        // stop once test accuracy reaches this (0 = never)
  uint64_t seed = 0;         // model init (stream 0) and batch sampling (stream 1)
  int threads = 1;
  Device device = Device::cpu;      // where parameters, state and activations live
  std::string arch_file;            // learned functions to use (nn/architecture.h); empty: none
  bool arch_trainable = false;      // keep training them (default: frozen)
  TrainOn train_on = TrainOn::all;  // a config.json without the field: train
  EvalOn eval_on = EvalOn::task;    // arch: evaluate the held-out arch split alone
  TrainNoise train_noise = TrainNoise::none;  // noise on the embeddings while training
  double train_gamma = 0;                     // its strength (> 0 with a noise)
  bool shuffle_labels = false;  // every training batch's labels shuffled among its rows
  ProtocolRecord protocol;      // what set its flags, if anything

  void validate() const;
  Json to_json() const;
  static TrainConfig from_json(const Json& j);  // validated, the model too
  // The JSON fields, in the order written (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("task", c.task);
    f.required(
        "task_options", c.task_options, &TaskOptions::values,
        [](std::map<std::string, std::string> values) { return TaskOptions(std::move(values)); });
    f.required("model", c.model);
    f.group("optimizer", [&](auto& o) {
      o.required("name", c.optimizer.kind);
      o.required("beta1", c.optimizer.beta1);
      o.required("beta2", c.optimizer.beta2);
      o.required("eps", c.optimizer.eps);
      o.required("weight_decay", c.optimizer.weight_decay);
      o.required("momentum", c.optimizer.momentum);
      o.required("nesterov", c.optimizer.nesterov);
    });
    f.group("schedule", [&](auto& s) {
      s.required("kind", c.schedule.kind);
      s.required("lr", c.schedule.base_lr);
      s.required("warmup", c.schedule.warmup);
      s.required("total", c.schedule.total);
      s.required("min_ratio", c.schedule.min_ratio);
      s.optional("decay", c.schedule.decay);  // absent before the trapezoid: 0
    });
    f.optional("constraint", c.constraint);  // absent in older runs: none
    f.required("steps", c.steps);
    f.required("batch", c.batch);
    f.required("clip", c.clip);
    f.required("eval_every", c.eval_every);
    f.required("eval_batch", c.eval_batch);
    f.required("eval_limit", c.eval_limit);
    f.required("stop_at", c.stop_at);
    f.required("seed", c.seed);
    f.required("threads", c.threads);
    f.optional("device", c.device);  // absent in older runs: cpu
    f.optional("arch_file", c.arch_file);
    f.optional("arch_trainable", c.arch_trainable);
    f.optional("train_on", c.train_on);        // absent before it existed: the train split
    f.optional("eval_on", c.eval_on);          // absent before it existed: the task's splits
    f.optional("train_noise", c.train_noise);  // absent before it existed: none
    f.optional("train_gamma", c.train_gamma);
    f.optional("shuffle_labels", c.shuffle_labels);  // absent before it existed: false
    f.optional("protocol", c.protocol);              // absent before protocols: none
  }
};

}  // namespace tapir
