// The models of a search across threads and ranks (optim/model_pool.h).
#include "optim/model_pool.h"

#include <algorithm>
#include <exception>

#include "autograd/tape.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/search_functions.h"

namespace tapir {

ModelPool::ModelPool(const SearchConfig& config, SearchFolder folder, bool over_ranks)
    : base_(config.base),
      schedule_{config.models, config.base.steps, config.stagger},
      folder_(std::move(folder)),
      over_ranks_(over_ranks),
      members_(static_cast<size_t>(config.models)) {}

bool ModelPool::owns(int m) const {
  return !over_ranks_ || dist::owner(m) == dist::rank();
}

bool ModelPool::writes_shared() const {
  return folder_.writes() && (!over_ranks_ || dist::is_root());
}

Trainer& ModelPool::trainer(int m) {
  const Member& model = member(m);
  TAPIR_CHECK(model.trainer != nullptr, "search: model ", m, " is built by rank ", dist::owner(m),
              ", not by this one");
  return *model.trainer;
}

bool ModelPool::active(int m, int64_t step) const {
  return step >= member(m).at.start;
}

int64_t ModelPool::steps_taken(int m, int64_t step) const {
  return std::max<int64_t>(0, step - member(m).at.start);
}

ModelPool::ModelLists ModelPool::with_steps(int64_t step, int64_t min_steps) const {
  ModelLists lists;
  for (int m = 0; m < size(); ++m)
    if (active(m, step) && steps_taken(m, step) >= min_steps) {
      lists.all.push_back(m);
      if (owns(m)) lists.mine.push_back(m);
    }
  return lists;
}

uint64_t ModelPool::seed(int m, int64_t generation) const {
  // Model m, generation g: a seed of its own, and the D_arch stream next to it.
  return base_.seed + static_cast<uint64_t>(generation * size() + m);
}

void ModelPool::start(int m, ModelStart at, bool fresh) {
  Member& model = member(m);
  model.at = at;
  model.trainer.reset();
  model.splines.clear();
  model.weights.clear();
  if (!owns(m)) return;
  TrainConfig c = base_;
  c.seed = seed(m, at.generation);
  model.trainer = std::make_unique<Trainer>(c, folder_.model_dir(m, at.generation));
  if (fresh) {
    model.trainer->start_fresh(/*force=*/true);
    folder_.name_given_tokenizer(model.trainer->config(), folder_.model_dir(m, at.generation));
  }
  model.arch_rng = Rng(c.seed, 2);
  model.splines = splines_of(model.trainer->model());
  for (Parameter* p : model.trainer->model().parameters()) {
    bool is_spline = false;
    for (Spline* s : model.splines) is_spline = is_spline || &s->values() == p;
    if (!is_spline) model.weights.push_back(p);
  }
}

void ModelPool::restart_finished(int64_t step) {
  for (int m = 0; m < size(); ++m) {
    const ModelStart at = member(m).at;
    if (active(m, step) && schedule_.restarts(steps_taken(m, step)))
      start(m, {step, at.generation + 1});
  }
}

void ModelPool::for_models(const std::vector<int>& models,
                           const std::function<void(int)>& f) const {
  // Concurrent models need the host's per-thread tapes and arenas; a cuda
  // search keeps one thread on its device.
  if (!concurrent_ || base_.device != Device::cpu) {
    for (int m : models) f(m);
    return;
  }
  // Every model runs even if one fails, and the failure reported is the
  // first model's in order, as in a run one model after the other.
  std::vector<std::exception_ptr> errors(models.size());
  parallel_tasks(static_cast<int64_t>(models.size()), [&](int64_t k) {
    try {
      f(models[static_cast<size_t>(k)]);
    } catch (...) {
      reset_step();  // this thread's tape and arenas, left mid-step
      errors[static_cast<size_t>(k)] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

ModelRun& ModelPool::spare() {
  if (!spare_) spare_ = std::make_unique<ModelRun>(build_run(base_));
  return *spare_;
}

Transformer& ModelPool::any_model() {
  for (Member& model : members_)
    if (model.trainer) return model.trainer->model();
  return *spare().model;
}

TrainConfig ModelPool::model_config(int m, int64_t generation) {
  const Member* built = nullptr;
  for (const Member& model : members_)
    if (model.trainer && built == nullptr) built = &model;
  // The models' configurations differ in their seeds alone.
  TrainConfig c = built != nullptr ? built->trainer->config() : spare().config;
  c.seed = seed(m, generation);
  return c;
}

std::vector<SearchFolder::ModelAt> ModelPool::positions(int64_t step) {
  std::vector<SearchFolder::ModelAt> models;
  for (int m = 0; m < size(); ++m) {
    const Member& model = member(m);
    models.push_back(
        {model.at.generation,
         model.trainer ? model.trainer->config() : model_config(m, model.at.generation),
         steps_taken(m, step)});
  }
  return models;
}

}  // namespace tapir
