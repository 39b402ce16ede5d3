// The Stage I step benchmark of `tapir bench --search` (lab/bench_search.h).
#include "lab/bench_search.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "optim/search.h"

namespace tapir {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

double bench_search(int models, int warmup, int steps) {
  TrainConfig base;
  base.task = "modadd";
  base.task_options.set("p", "47");
  base.model.width = 64;
  base.model.layers = 1;
  base.model.mlp_act = MlpAct::spline;
  base.batch = 256;
  base.schedule.base_lr = 3e-3;
  base.optimizer.weight_decay = 1.0;
  base.steps = warmup + steps + 1;
  base.eval_every = base.steps;  // no evaluation inside the timed steps
  SearchConfig one;
  one.base = base;
  one.models = 1;
  SearchConfig many = one;
  many.models = models;
  Trainer plain(base, "");
  Search single(one, ""), multi(many, "");

  std::vector<double> t_plain, t_single, t_multi;
  for (int i = 0; i < warmup + steps; ++i) {
    const double a = seconds_of([&] { plain.train_step(); });
    const double b = seconds_of([&] { single.step(); });
    const double c = seconds_of([&] { multi.step(); });
    if (i < warmup) continue;
    t_plain.push_back(a);
    t_single.push_back(b);
    t_multi.push_back(c);
  }
  const double p = median(t_plain), s = median(t_single), m = median(t_multi);
  std::printf("modadd p=47, width 64, 1 block, spline MLP, batch 256: median of %d steps\n", steps);
  std::printf("%-28s %10s\n", "", "ms/step");
  std::printf("%-28s %10.2f\n", "train step (1 model)", p * 1e3);
  std::printf("%-28s %10.2f   %.2fx a train step (adds the D_arch pass)\n", "search step, 1 model",
              s * 1e3, s / p);
  std::printf("%-28s %10.2f   %.2fx %d one-model search steps\n",
              ("search step, " + std::to_string(models) + " models").c_str(), m * 1e3,
              m / (models * s), models);
  return m / (models * s);
}

}  // namespace tapir
