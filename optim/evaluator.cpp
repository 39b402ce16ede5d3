// The evaluation loop, in one process or shared among MPI ranks
// (optim/evaluator.h).
#include "optim/evaluator.h"

#include <algorithm>

#include "autograd/tape.h"
#include "engine/dist.h"
#include "engine/workspace.h"
#include "optim/task_loss.h"

namespace tapir {

EvalSettings eval_settings(const TrainConfig& config) {
  EvalSettings settings;
  settings.batch = config.eval_batch;
  settings.limit = config.eval_limit;
  if (config.eval_on == EvalOn::arch) settings.splits = {"arch"};
  return settings;
}

Evaluator::Evaluator(Transformer& model, const Task& task, Device device, EvalSettings settings)
    : model_(&model), task_(&task), device_(device), settings_(settings) {}

int64_t Evaluator::example_count(const std::string& split) const {
  const int64_t n = task_->eval_size(split);
  return settings_.limit > 0 ? std::min(n, settings_.limit) : n;
}

int64_t Evaluator::batch_count(const std::string& split) const {
  return (example_count(split) + settings_.batch - 1) / settings_.batch;
}

void Evaluator::load_batch(const std::string& split, int64_t k, Batch& batch) const {
  const int64_t n = example_count(split);
  const int64_t begin = k * settings_.batch;
  task_->eval_batch(split, begin, std::min(settings_.batch, n - begin), batch);
}

void Evaluator::for_each_batch(const std::string& split, const EditBatch& edit,
                               const UseBatch& use) const {
  NoGrad no_grad;
  const int64_t batches = batch_count(split);
  Batch batch;
  for (int64_t k = 0; k < batches; ++k) {
    load_batch(split, k, batch);
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
  if (settings_.over_ranks && dist::distributed()) return evaluate_split_over_ranks(split);
  EvalResult result{split, {}};
  for_each_batch(split, {}, [&](const Batch& batch, const BatchTensors& t) {
    score(batch, model_->forward(t.inputs), result.tally);
  });
  return result;
}

EvalResult Evaluator::evaluate_split_over_ranks(const std::string& split) const {
  // This rank's batches, k = rank, rank + N, ...: each one's units, after
  // their count.
  std::string mine;
  const int64_t batches = batch_count(split);
  {
    NoGrad no_grad;
    Batch batch;
    for (int64_t k = dist::rank(); k < batches; k += dist::size()) {
      load_batch(split, k, batch);
      EvalTally tally;
      tally.keep_units = true;
      score(batch, model_->forward(to_tensors(batch, device_).inputs), tally);
      reset_step();
      const int64_t count = static_cast<int64_t>(tally.units.size());
      dist::put(mine, &count, 1);
      dist::put(mine, tally.units.data(), tally.units.size());
    }
  }
  // Every batch's units added in batch order, as one process adds them.
  const std::vector<std::string> all = dist::all_gather(mine);
  std::vector<size_t> at(all.size(), 0);
  EvalResult result{split, {}};
  std::vector<ScoredUnit> units;
  for (int64_t k = 0; k < batches; ++k) {
    const auto r = static_cast<size_t>(dist::owner(k));
    int64_t count = 0;
    dist::take(all[r], at[r], &count, 1);
    units.resize(static_cast<size_t>(count));
    dist::take(all[r], at[r], units.data(), units.size());
    for (const ScoredUnit& unit : units) result.tally.add(unit.tally, unit.group);
  }
  return result;
}

std::vector<EvalResult> Evaluator::evaluate() const {
  std::vector<EvalResult> results;
  const std::vector<std::string> splits =
      settings_.splits.empty() ? task_->eval_splits() : settings_.splits;
  for (const std::string& split : splits) results.push_back(evaluate_split(split));
  return results;
}

}  // namespace tapir
