// The small modular-addition run most suites train: one helper instead of
// the same dozen assignments in every file. Fields not named keep the
// defaults below; the rest of TrainConfig keeps its own.
//   TrainConfig c = tiny_modadd({.p = "23", .width = 64, .steps = 100});
#pragma once
#include <cstdint>
#include <string>

#include "optim/train_config.h"

namespace test_support {

struct TinyModadd {
  std::string p = "11";
  int64_t width = 16;
  int layers = 1;
  int heads = 2;
  int64_t batch = 16;
  int64_t steps = 20;
  int64_t eval_every = 10;
};

inline tapir::TrainConfig tiny_modadd(const TinyModadd& t = {}) {
  tapir::TrainConfig c;
  c.task = "modadd";
  c.task_options.set("p", t.p);
  c.model.width = t.width;
  c.model.layers = t.layers;
  c.model.heads = t.heads;
  c.batch = t.batch;
  c.steps = t.steps;
  c.eval_every = t.eval_every;
  return c;
}

}  // namespace test_support

namespace test_support {

// The modular-addition setting the learning tests train (p = 23, 90% of the
// pairs to train on, nothing held out, one block of width 64, AdamW with
// weight decay 1 at lr 3e-3, batches of 256): it generalises in a few
// hundred to a few thousand steps, depending on the seed. Steps, evaluation
// and seed are the test's.
inline tapir::TrainConfig grokking_modadd() {
  tapir::TrainConfig c;
  c.task = "modadd";
  c.task_options.set("p", "23");
  c.task_options.set("train-frac", "0.9");
  c.task_options.set("arch-frac", "0");
  c.model.width = 64;
  c.model.layers = 1;
  c.model.heads = 4;
  c.batch = 256;
  c.schedule.base_lr = 3e-3;
  c.optimizer.weight_decay = 1.0;
  return c;
}

}  // namespace test_support
