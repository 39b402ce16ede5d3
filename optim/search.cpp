// The Stage I loop (optim/search.h): building the models, one step of every
// active model and of the shared functions, the schedule of restarts, the
// evaluations and the end.
#include "optim/search.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>

#include "autograd/ops.h"
#include "base/clock.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/model_run.h"
#include "optim/search_ranks.h"
#include "optim/task_loss.h"

namespace tapir {

namespace {

// The ranges of `config` and no --arch: what a search checks before it
// builds a model.
void check_settings(const SearchConfig& config) {
  config.validate();
  TAPIR_CHECK(config.base.arch_file.empty(),
              "search learns its own functions: --arch cannot be given to it");
}

std::vector<Spline*> splines_of(Transformer& model) {
  std::vector<Spline*> splines;
  for (const auto& f : model.learned_functions()) splines.push_back(f.spline);
  return splines;
}

}  // namespace

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks)
    : Search(config, std::move(out_dir), over_ranks, nullptr, "") {}

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks,
               const SafeTensorsFile* state, const std::string& path)
    : config_(config),
      folder_(std::move(out_dir)),
      over_ranks_(over_ranks && dist::distributed()),
      wall_start_(now_seconds()) {
  check_settings(config_);  // the models built below are the rest of check()
  config_ = config_.resolved();
  schedule_ = {config_.models, config_.base.steps, config_.stagger};
  arch_schedule_ = config_.arch_lr_schedule();
  members_.resize(static_cast<size_t>(config_.models));
  for (int m = 0; m < config_.models; ++m) {
    Member& member = members_[static_cast<size_t>(m)];
    if (state == nullptr) {
      member.start = schedule_.first_start(m);
      start_member(m, 0);
    } else {
      // Where and in which generation the model is; restore_state checks both.
      const std::string prefix = member_prefix(m);
      member.start = metadata_count(*state, path, prefix + "start");
      start_member(m, metadata_count(*state, path, prefix + "generation"), /*fresh=*/false);
    }
  }
  // The shared functions start as the models' initial splines (every model
  // initialises them alike from the config).
  bool owns_any = false;
  for (int m = 0; m < config_.models; ++m) owns_any = owns_any || owns(m);
  if (!owns_any) spare_ = std::make_unique<ModelRun>(build_run(config_.base));
  const std::vector<Spline*> initial = splines_of(any_model());
  TAPIR_CHECK(!initial.empty(),
              "search needs a model with learned functions (--mlp-act spline, --attn "
              "score-spline or feature-spline, and/or --attn-fn spline)");
  functions_ = std::make_unique<SharedFunctions>(initial, config_.models, config_);
  if (state != nullptr)
    restore_state(*state, path);
  else if (writes_shared())
    folder_.start_fresh(config_);
}

void Search::check(const SearchConfig& config) {
  check_settings(config);
  const ModelRun run = build_run(config.resolved().base);
  TAPIR_CHECK(!run.model->learned_functions().empty(),
              "search needs a model with learned functions (--mlp-act spline, --attn "
              "score-spline or feature-spline, and/or --attn-fn spline)");
}

bool Search::owns(int m) const {
  return !over_ranks_ || dist::owner(m) == dist::rank();
}

bool Search::writes_shared() const {
  return folder_.writes() && (!over_ranks_ || dist::is_root());
}

int64_t Search::member_steps(int m) const {
  return std::max<int64_t>(0, step_ - members_[static_cast<size_t>(m)].start);
}

Search::ModelLists Search::models_with_steps(int64_t min_steps) const {
  ModelLists lists;
  for (int m = 0; m < config_.models; ++m)
    if (active(m) && member_steps(m) >= min_steps) {
      lists.all.push_back(m);
      if (owns(m)) lists.mine.push_back(m);
    }
  return lists;
}

uint64_t Search::model_seed(int m, int64_t generation) const {
  // Model m, generation g: a seed of its own, and the D_arch stream next to it.
  return config_.base.seed + static_cast<uint64_t>(generation * config_.models + m);
}

// A resumed search reads its own copy of the tokenizer (Search::resume); a
// model it starts names the file as search.json gives it, as the models of
// an uninterrupted search do.
void Search::name_given_tokenizer(TrainConfig config, const std::string& dir) const {
  if (tokenizer_path(config.task_options).empty() || !folder_.writes() ||
      !std::filesystem::exists(folder_.file(SearchFolder::kConfig)))
    return;
  keep_given_tokenizer(config.task_options, folder_.read_config_to_resume().base.task_options);
  RunFolder(dir).write_config(config);
}

void Search::start_member(int m, int64_t generation, bool fresh) {
  Member& member = members_[static_cast<size_t>(m)];
  member.generation = generation;
  member.trainer.reset();
  member.splines.clear();
  member.weights.clear();
  if (!owns(m)) return;
  TrainConfig c = config_.base;
  c.seed = model_seed(m, generation);
  member.trainer = std::make_unique<Trainer>(c, folder_.model_dir(m, generation));
  if (fresh) {
    member.trainer->start_fresh(/*force=*/true);
    name_given_tokenizer(member.trainer->config(), folder_.model_dir(m, generation));
  }
  member.arch_rng = Rng(c.seed, 2);
  member.splines = splines_of(member.trainer->model());
  for (Parameter* p : member.trainer->model().parameters()) {
    bool is_spline = false;
    for (Spline* s : member.splines) is_spline = is_spline || &s->values() == p;
    if (!is_spline) member.weights.push_back(p);
  }
}

Transformer& Search::any_model() {
  for (Member& member : members_)
    if (member.trainer) return member.trainer->model();
  return *spare_->model;
}

TrainConfig Search::model_config(int m, int64_t generation) const {
  const Member* built = nullptr;
  for (const Member& member : members_)
    if (member.trainer && built == nullptr) built = &member;
  // The models' configurations differ in their seeds alone.
  TrainConfig c = built != nullptr ? built->trainer->config() : spare_->config;
  c.seed = model_seed(m, generation);
  return c;
}

Trainer& Search::trainer(int model) {
  const Member& member = members_[static_cast<size_t>(model)];
  TAPIR_CHECK(member.trainer != nullptr, "search: model ", model, " is built by rank ",
              dist::owner(model), ", not by this one");
  return *member.trainer;
}

bool Search::active(int model) const {
  return step_ >= members_[static_cast<size_t>(model)].start;
}

void Search::copy_shared_into(Member& member) {
  functions_->copy_into(member.splines);
}

double Search::arch_backward(int model) {
  const double value = arch_gradient(model);
  functions_->add_gradient(model);
  return value;
}

double Search::arch_gradient(int model) {
  Member& member = members_[static_cast<size_t>(model)];
  Trainer& trainer = *member.trainer;
  copy_shared_into(member);
  // Weights frozen: the D_arch loss reaches only the splines.
  for (Parameter* p : member.weights) p->set_frozen(true);
  for (Spline* s : member.splines) {
    s->values().set_frozen(false);
    s->values().value.zero_grad();
  }
  Batch batch;
  trainer.task().sample(name_of(config_.arch_split), config_.arch_batch, member.arch_rng, batch);
  const BatchTensors t = to_tensors(batch, trainer.device());
  Tensor loss = task_loss(trainer.model().forward(t.inputs), t.targets, t.mask);
  const double value = loss.item();
  TAPIR_CHECK(std::isfinite(value), "search: D_arch loss of model ", model, " became ", value,
              " at step ", step_ + 1);
  backward(loss);
  reset_step();
  functions_->take_gradient(model, member.splines);
  for (Parameter* p : member.weights) p->set_frozen(false);
  return value;
}

void Search::for_models(const std::vector<int>& models, const std::function<void(int)>& f) {
  // Concurrent models need the host's per-thread tapes and arenas; a cuda
  // search keeps one thread on its device.
  if (!concurrent_ || config_.base.device != Device::cpu) {
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

void Search::weights_step(int model) {
  Member& member = members_[static_cast<size_t>(model)];
  copy_shared_into(member);
  // Splines frozen: the D_wts step moves only the weights.
  for (Spline* s : member.splines) s->values().set_frozen(true);
  member.trainer->train_step();
  for (Spline* s : member.splines) s->values().set_frozen(false);
}

void Search::step() {
  functions_->zero_grad();
  const auto [models, mine] = models_with_steps(0);
  std::vector<double> losses(static_cast<size_t>(config_.models), 0.0);
  for_models(mine, [&](int m) {
    losses[static_cast<size_t>(m)] = arch_gradient(m);
    weights_step(m);
  });
  if (over_ranks_) share_arch_gradients(models, losses, *functions_);
  // In model order, whichever thread ran each model.
  const int active_models = static_cast<int>(models.size());
  double arch_loss = 0;
  for (int m : models) {
    arch_loss += losses[static_cast<size_t>(m)];
    functions_->add_gradient(m);
  }
  if (active_models > 0) {
    functions_->update(active_models, arch_lr_now());
    last_arch_loss_ = arch_loss / active_models;
  }
  ++step_;
  restart_finished();
}

void Search::restart_finished() {
  for (int m = 0; m < config_.models; ++m) {
    Member& member = members_[static_cast<size_t>(m)];
    if (active(m) && schedule_.restarts(member_steps(m))) {
      member.start = step_;
      start_member(m, member.generation + 1);
    }
  }
}

Architecture Search::architecture() {
  Transformer& model = any_model();
  functions_->copy_into(splines_of(model));
  return architecture_of(model);
}

void Search::run(const Events& events) {
  // Every model's kernels and BLAS calls run on the configured thread count
  // (a fresh process would otherwise give OpenBLAS its own default).
  set_num_threads(config_.base.threads);
  // What an untrained model scores: model 0 before its first step, on the
  // rank that owns it.
  if (step_ == 0) {
    std::vector<double> accuracy = {0.0};  // by model, as share_values takes it
    if (owns(0)) {
      copy_shared_into(members_.front());
      accuracy[0] = members_.front().trainer->evaluate().front().tally.all.accuracy();
    }
    if (over_ranks_) share_values({0}, accuracy);
    outcome_.untrained_accuracy = accuracy[0];
  }
  while (step_ < config_.steps) {
    step();
    int active_models = 0;
    for (int m = 0; m < config_.models; ++m) active_models += active(m) ? 1 : 0;
    if (events.on_step) events.on_step(step_, active_models, last_arch_loss_);
    const bool last = step_ == config_.steps;
    const bool evaluate = step_ % config_.base.eval_every == 0 || last;
    const double mean_accuracy = evaluate ? evaluate_models(active_models) : 0;
    if (writes_shared() && (step_ % config_.snapshot_every == 0 || last))
      folder_.save_snapshot(step_, architecture());
    if (evaluate) {
      save_state();  // after the logs and the snapshot of this step
      if (events.on_eval) events.on_eval(step_, mean_accuracy);
    }
  }
  finish();
}

double Search::evaluate_models(int active_models) {
  const auto [models, mine] = models_with_steps(1);  // the models that have trained
  std::vector<double> accuracy(static_cast<size_t>(config_.models), 0.0);
  for_models(mine, [&](int m) {
    Member& member = members_[static_cast<size_t>(m)];
    copy_shared_into(member);
    accuracy[static_cast<size_t>(m)] =
        member.trainer->evaluate_and_log().front().tally.all.accuracy();
  });
  if (over_ranks_) share_values(models, accuracy);
  double total = 0;
  for (int m : models) total += accuracy[static_cast<size_t>(m)];
  const int counted = static_cast<int>(models.size());
  const double mean_accuracy = counted ? total / counted : 0;
  outcome_.final_accuracy = mean_accuracy;
  if (!models.empty() && models.front() == 0) outcome_.model0_accuracy = accuracy.front();
  if (writes_shared()) {
    Json line = Json::object();
    line.set("step", step_);
    line.set("arch_loss", last_arch_loss_);
    line.set("active_models", active_models);
    line.set("mean_test_accuracy", mean_accuracy);
    folder_.append_log(line);
  }
  return mean_accuracy;
}

void Search::finish() {
  outcome_.steps = step_;
  outcome_.knot_abs_max = functions_->knot_abs_max();
  if (writes_shared()) folder_.save_result(architecture(), outcome_);
}

}  // namespace tapir
