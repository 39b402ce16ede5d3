// The evaluation loop (optim/evaluator.h).
#include "optim/evaluator.h"

#include <algorithm>

#include "autograd/tape.h"
#include "engine/workspace.h"
#include "optim/task_loss.h"

namespace tapir {

EvalSettings eval_settings(const TrainConfig& config) {
  return EvalSettings{config.eval_batch, config.eval_limit};
}

Evaluator::Evaluator(Transformer& model, const Task& task, Device device, EvalSettings settings)
    : model_(&model), task_(&task), device_(device), settings_(settings) {}

void Evaluator::for_each_batch(const std::string& split, const EditBatch& edit,
                               const UseBatch& use) const {
  NoGrad no_grad;
  int64_t n = task_->eval_size(split);
  if (settings_.limit > 0) n = std::min(n, settings_.limit);
  Batch batch;
  for (int64_t begin = 0; begin < n; begin += settings_.batch) {
    const int64_t count = std::min(settings_.batch, n - begin);
    task_->eval_batch(split, begin, count, batch);
    if (edit) edit(batch);
    use(batch, to_tensors(batch, device_));
    reset_step();
  }
}

void Evaluator::score(const Batch& batch, Tensor outputs, EvalTally& tally) const {
  const Tensor host = to_host(outputs);
  std::vector<float> losses;
  batch_position_losses(*task_, batch, host.host_data<float>(), losses);
  task_->score(batch, host.host_data<float>(), losses.data(), tally);
}

EvalResult Evaluator::evaluate_split(const std::string& split) const {
  EvalResult result{split, {}};
  for_each_batch(split, {}, [&](const Batch& batch, const BatchTensors& t) {
    score(batch, model_->forward(t.inputs), result.tally);
  });
  return result;
}

std::vector<EvalResult> Evaluator::evaluate() const {
  std::vector<EvalResult> results;
  for (const std::string& split : task_->eval_splits()) results.push_back(evaluate_split(split));
  return results;
}

}  // namespace tapir
