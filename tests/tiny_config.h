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
