// Model FLOPs of training runs and searches (optim/compute.h).
#include "optim/compute.h"

#include "nn/transformer.h"
#include "optim/model_pool.h"
#include "optim/model_run.h"
#include "tasks/task.h"

namespace tapir {

namespace {

// The length of one batch of `split` as the task lays it out.
int64_t batch_length(const Task& task, const std::string& split) {
  Rng rng(0, 0);
  Batch batch;
  task.sample(split, 1, rng, batch);
  return batch.T;
}

}  // namespace

double training_step_flops(const TrainConfig& config) {
  const TrainConfig c = resolved_config(config);
  const std::unique_ptr<Task> task = make_training_task(c);
  const int64_t T = batch_length(*task, "train");
  return static_cast<double>(c.batch * T) * model_flops_per_token(c.model, T);
}

double training_flops(const TrainConfig& config, int64_t steps) {
  return static_cast<double>(steps) * training_step_flops(config);
}

double search_flops(const SearchConfig& config) {
  const SearchConfig r = config.resolved();
  const TrainConfig c = resolved_config(r.base);
  const std::unique_ptr<Task> task = make_training_task(c);
  const int64_t T = batch_length(*task, "train");
  const int64_t T_arch = batch_length(*task, name_of(r.arch_split));
  const double per_step =
      static_cast<double>(c.batch * T) * model_flops_per_token(c.model, T) +
      static_cast<double>(r.arch_batch * T_arch) * model_flops_per_token_frozen(c.model, T_arch);
  const StaggerSchedule schedule{r.models, r.base.steps, r.stagger};
  double model_steps = 0;
  for (int m = 0; m < r.models; ++m)
    model_steps += static_cast<double>(std::max<int64_t>(0, r.steps - schedule.first_start(m)));
  return model_steps * per_step;
}

}  // namespace tapir
