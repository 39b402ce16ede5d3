// The Stage I step benchmark of `tapir bench --search` (lab/bench_search.h).
#include "lab/bench_search.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/threads.h"
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

bool same_bits(const std::vector<Parameter*>& a, const std::vector<Parameter*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    const Tensor x = a[k]->tensor(), y = b[k]->tensor();
    if (x.nbytes() != y.nbytes() || std::memcmp(x.raw(), y.raw(), x.nbytes()) != 0) return false;
  }
  return true;
}

}  // namespace

SearchConfig main_search_config(int models, int64_t steps) {
  TrainConfig base;
  base.task = "modadd";
  base.task_options.set("p", "47");
  base.model.width = 64;
  base.model.layers = 1;
  base.model.mlp_act = MlpAct::spline;
  base.batch = 256;
  base.schedule.base_lr = 3e-3;
  base.optimizer.weight_decay = 1.0;
  base.steps = steps;
  base.eval_every = base.steps;  // no evaluation inside the timed steps
  base.threads = num_threads();
  SearchConfig c;
  c.base = base;
  c.models = models;
  return c;
}

double bench_search(int models, int warmup, int steps) {
  const SearchConfig one = main_search_config(1, warmup + steps + 1);
  SearchConfig many = one;
  many.models = models;
  const TrainConfig& base = one.base;
  Trainer plain(base, "");
  Search single(one, ""), in_turn(many, ""), together(many, "");
  single.models().set_concurrent(false);
  in_turn.models().set_concurrent(false);

  std::vector<double> t_plain, t_single, t_turn, t_together;
  for (int i = 0; i < warmup + steps; ++i) {
    const double a = seconds_of([&] { plain.train_step(); });
    const double b = seconds_of([&] { single.step(); });
    const double c = seconds_of([&] { in_turn.step(); });
    const double d = seconds_of([&] { together.step(); });
    if (i < warmup) continue;
    t_plain.push_back(a);
    t_single.push_back(b);
    t_turn.push_back(c);
    t_together.push_back(d);
  }
  const double p = median(t_plain), s = median(t_single), c = median(t_turn),
               d = median(t_together);
  const std::string m = std::to_string(models);
  std::printf(
      "modadd p=47, width 64, 1 block, spline MLP, batch 256, %d thread%s: median of %d "
      "steps\n",
      num_threads(), num_threads() == 1 ? "" : "s", steps);
  std::printf("%-36s %10s\n", "", "ms/step");
  std::printf("%-36s %10.2f\n", "train step (1 model)", p * 1e3);
  std::printf("%-36s %10.2f   %.2fx a train step (adds the D_arch pass)\n", "search step, 1 model",
              s * 1e3, s / p);
  std::printf("%-36s %10.2f   %.2fx %d one-model search steps\n",
              ("search step, " + m + " models in turn").c_str(), c * 1e3, c / (models * s), models);
  std::printf("%-36s %10.2f   %.2fx %d one-model search steps\n",
              ("search step, " + m + " models concurrently").c_str(), d * 1e3, d / (models * s),
              models);
  // Both searches took the same steps from the same seeds.
  const bool same = same_bits(in_turn.shared_parameters(), together.shared_parameters());
  std::printf("shared functions after %d steps, in turn vs concurrently: %s\n", warmup + steps,
              same ? "the same bits" : "DIFFERENT BITS");
  TAPIR_CHECK(same,
              "bench --search: the concurrent search's shared functions differ from the "
              "search that stepped its models in turn");
  return d / (models * s);
}

}  // namespace tapir
