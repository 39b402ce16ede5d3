// The Stage I loop (optim/search.h): building or resuming the search, one
// step of every active model and of the shared functions, the evaluations
// and the end.
#include "optim/search.h"

#include <cmath>

#include "autograd/ops.h"
#include "base/clock.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/model_run.h"
#include "optim/run_identity.h"
#include "optim/search_ranks.h"
#include "optim/search_state.h"
#include "optim/task_loss.h"
#include "optim/tokenizer_copy.h"

namespace tapir {

namespace {

// The ranges of `config` and no --arch: what a search checks before it
// builds a model.
void check_settings(const SearchConfig& config) {
  config.validate();
  TAPIR_CHECK(config.base.arch_file.empty(),
              "search learns its own functions: --arch cannot be given to it");
}

// `config` checked, then resolved: what the search runs.
SearchConfig checked(const SearchConfig& config) {
  check_settings(config);  // the models built below are the rest of check()
  return config.resolved();
}

}  // namespace

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks)
    : Search(config, std::move(out_dir), over_ranks, nullptr, "") {}

Search::Search(const SearchConfig& config, std::string out_dir, bool over_ranks,
               const SafeTensorsFile* state, const std::string& path)
    : config_(checked(config)),
      folder_(std::move(out_dir)),
      pool_(config_, folder_, over_ranks && dist::distributed()),
      arch_schedule_(config_.arch_lr_schedule()),
      wall_start_(now_seconds()) {
  for (int m = 0; m < config_.models; ++m) {
    if (state == nullptr)
      pool_.start(m, {pool_.schedule().first_start(m), 0});
    else  // where and in which generation the model is; restore checks both
      pool_.start(m, SearchState::model_start(*state, path, m), /*fresh=*/false);
  }
  // The shared functions start as the models' initial splines (every model
  // initialises them alike from the config).
  const std::vector<Spline*> initial = splines_of(pool_.any_model());
  TAPIR_CHECK(!initial.empty(),
              "search needs a model with learned functions (--mlp-act spline, --attn "
              "score-spline or feature-spline, and/or --attn-fn spline)");
  functions_ = std::make_unique<SharedFunctions>(initial, config_.models, config_);
  if (state != nullptr) {
    const SearchState saved = SearchState::restore(*state, path, pool_, *functions_);
    step_ = saved.clock.step;
    wall_offset_ = saved.clock.wall_s;
    outcome_ = saved.outcome;
  } else if (pool_.writes_shared()) {
    folder_.start_fresh(config_);
  }
  if (pool_.writes_shared()) identity_ = run_identity(config_.to_json(), config_.base);
}

void Search::check(const SearchConfig& config) {
  check_settings(config);
  const ModelRun run = build_run(config.resolved().base);
  TAPIR_CHECK(!run.model->learned_functions().empty(),
              "search needs a model with learned functions (--mlp-act spline, --attn "
              "score-spline or feature-spline, and/or --attn-fn spline)");
}

std::unique_ptr<Search> Search::resume(const std::string& dir, int64_t steps,
                                       std::optional<Device> device, std::optional<int> threads,
                                       bool over_ranks) {
  const SearchFolder folder(dir);
  SearchConfig config = folder.read_config_to_resume();
  use_own_tokenizer(config.base.task_options, dir);  // the copy the search took
  const int64_t saved_steps = config.resolved().steps;
  // Everything is read and checked before anything in the folder changes.
  const SafeTensorsFile file = folder.load_resume();
  const std::string path = folder.file(SearchFolder::kResume);
  // search.json and the files it names against what the search ran with;
  // a resume sets anew search.json's `steps` and what a run's reader does
  // of its base run (the device, the threads, ...).
  IdentityAllowance allowed;
  allowed.fields = {"steps"};
  for (const std::string& field : reader_allowance().fields) allowed.fields.insert("base." + field);
  allowed.kind = "search";
  check_run_identity(file, path, folder.file(SearchFolder::kConfig), config.to_json(), config.base,
                     allowed);
  const int64_t step = metadata_count(file, path, "step");
  TAPIR_CHECK(step <= saved_steps, path, ": step ", step, " is beyond the search's end (",
              saved_steps, " steps in ", folder.file(SearchFolder::kConfig), ")");
  TAPIR_CHECK(steps <= 0 || steps >= step, "--search-steps ", steps, " is below step ", step,
              " that ", dir, " has reached; a search can only be extended");
  if (steps > 0) config.steps = steps;
  if (device) config.base.device = *device;
  if (threads) config.base.threads = *threads;
  std::unique_ptr<Search> search(new Search(config, dir, over_ranks, &file, path));
  // Rank 0 cuts the folder back (restore checked the steps each model's
  // state has taken against the schedule); the others wait, so that none
  // appends to a model's log before it is cut.
  ModelPool& pool = search->pool_;
  if (pool.writes_shared())
    search->resume_note_ =
        search->folder_.truncate_to(search->step_, search->config_, pool.positions(search->step_));
  if (pool.over_ranks()) dist::barrier();
  return search;
}

double Search::arch_backward(int model) {
  const double value = arch_gradient(model);
  functions_->add_gradient(model);
  return value;
}

double Search::arch_gradient(int model) {
  ModelPool::Member& member = pool_.member(model);
  Trainer& trainer = *member.trainer;
  functions_->copy_into(member.splines);
  // Weights frozen: the D_arch loss reaches only the splines.
  for (Parameter* p : member.weights) p->set_frozen(true);
  for (Spline* s : member.splines) {
    s->values().set_frozen(false);
    s->values().value.zero_grad();
  }
  Batch batch;
  trainer.task().sample(name_of(config_.arch_split), config_.arch_batch, member.arch_rng, batch);
  if (config_.base.shuffle_labels) batch.shuffle_labels(member.arch_rng);
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

void Search::weights_step(int model) {
  ModelPool::Member& member = pool_.member(model);
  functions_->copy_into(member.splines);
  // Splines frozen: the D_wts step moves only the weights.
  for (Spline* s : member.splines) s->values().set_frozen(true);
  member.trainer->train_step();
  for (Spline* s : member.splines) s->values().set_frozen(false);
}

void Search::step() {
  functions_->zero_grad();
  const auto [models, mine] = pool_.with_steps(step_, 0);
  std::vector<double> losses(static_cast<size_t>(config_.models), 0.0);
  pool_.for_models(mine, [&](int m) {
    losses[static_cast<size_t>(m)] = arch_gradient(m);
    weights_step(m);
  });
  if (pool_.over_ranks()) share_arch_gradients(models, losses, *functions_);
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
  pool_.restart_finished(step_);
}

Architecture Search::architecture() {
  Transformer& model = pool_.any_model();
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
    if (pool_.owns(0)) {
      functions_->copy_into(pool_.member(0).splines);
      accuracy[0] = pool_.trainer(0).evaluate().front().tally.all.accuracy();
    }
    if (pool_.over_ranks()) share_values({0}, accuracy);
    outcome_.untrained_accuracy = accuracy[0];
  }
  while (step_ < config_.steps) {
    step();
    int active_models = 0;
    for (int m = 0; m < config_.models; ++m) active_models += pool_.active(m, step_) ? 1 : 0;
    if (events.on_step) events.on_step(step_, active_models, last_arch_loss_);
    const bool last = step_ == config_.steps;
    const bool evaluate = step_ % config_.base.eval_every == 0 || last;
    const double mean_accuracy = evaluate ? evaluate_models(active_models) : 0;
    if (pool_.writes_shared() && (step_ % config_.snapshot_every == 0 || last))
      folder_.save_snapshot(step_, architecture());
    if (evaluate) {
      // After the logs and the snapshot of this step.
      const SearchState state{{step_, wall_offset_ + now_seconds() - wall_start_}, outcome_};
      state.save(folder_, pool_, *functions_, {{kRunIdentityKey, to_json(identity_)}});
      if (events.on_eval) events.on_eval(step_, mean_accuracy);
    }
  }
  finish();
}

double Search::evaluate_models(int active_models) {
  const auto [models, mine] = pool_.with_steps(step_, 1);  // the models that have trained
  std::vector<double> accuracy(static_cast<size_t>(config_.models), 0.0);
  pool_.for_models(mine, [&](int m) {
    functions_->copy_into(pool_.member(m).splines);
    accuracy[static_cast<size_t>(m)] =
        pool_.trainer(m).evaluate_and_log().front().tally.all.accuracy();
  });
  if (pool_.over_ranks()) share_values(models, accuracy);
  double total = 0;
  for (int m : models) total += accuracy[static_cast<size_t>(m)];
  const int counted = static_cast<int>(models.size());
  const double mean_accuracy = counted ? total / counted : 0;
  outcome_.final_accuracy = mean_accuracy;
  if (!models.empty() && models.front() == 0) outcome_.model0_accuracy = accuracy.front();
  if (pool_.writes_shared()) {
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
  outcome_.wall_s = wall_offset_ + now_seconds() - wall_start_;
  outcome_.knot_abs_max = functions_->knot_abs_max();
  if (pool_.writes_shared()) folder_.save_result(architecture(), outcome_);
}

}  // namespace tapir
