// The training loop (optim/trainer.h).
#include "optim/trainer.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "autograd/ops.h"
#include "base/clock.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/clip.h"
#include "optim/data_parallel.h"
#include "optim/layer_eval.h"
#include "optim/resume_codec.h"
#include "optim/run_identity.h"
#include "optim/task_loss.h"

namespace tapir {

Trainer::Trainer(const TrainConfig& config, std::string out_dir)
    : run_(build_run(config)),
      folder_(std::move(out_dir)),
      evaluator_(run_.evaluator()),
      params_(run_.model->parameters()),
      optimizer_(make_optimizer(run_.config.optimizer, params_)),
      data_rng_(config.seed, 1),
      wall_start_(now_seconds()) {
  if (folder_.writes()) identity_ = run_identity(run_.config);
  TAPIR_CHECK(config.train_noise == TrainNoise::none || !run_.task->is_regression(),
              "--train-noise perturbs token embeddings; task ", run_.task->name(),
              " reads real-valued frames");
}

namespace {

// The first parameter whose gradient holds a NaN or Inf, for the message of
// a diverged run ("" when none is found on the host).
std::string first_non_finite_grad(const std::vector<Parameter*>& params) {
  for (Parameter* p : params) {
    const Tensor t = p->tensor();
    if (!t.has_grad() || t.device() != Device::cpu || t.dtype() != DType::f32) continue;
    const float* g = t.grad<float>();
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isfinite(g[i])) return p->name;
  }
  return "";
}

// Every training step makes exactly one optimizer update (constraints and
// data parallelism included), so the saved counts must agree.
void check_optimizer_steps(const Optimizer& optimizer, int64_t step, const std::string& path,
                           const std::string& prefix) {
  TAPIR_CHECK(optimizer.steps() == step, path, ": metadata '", prefix, "optimizer_steps' is ",
              optimizer.steps(), ", expected ", step,
              " (one optimizer update per step of metadata '", prefix, "step')");
}

}  // namespace

void Trainer::start_fresh(bool force) {
  if (folder_.writes()) {
    folder_.check_replaceable(force);  // a refused folder is left as it was, without a lock file
    lock_ = std::make_unique<FolderLock>(folder_.dir(), RunFolder::kKind, RunFolder::written());
  }
  folder_.start_fresh(run_.config, force);
}

std::string Trainer::divergence_note() const {
  if (!folder_.writes()) return "";
  if (saved_step_ < 0) return "; no checkpoint was saved yet";
  return "; the last good checkpoint (step " + std::to_string(saved_step_) + ") in " +
         folder_.dir() + " is kept";
}

double Trainer::wall_seconds() const {
  return wall_offset_ + now_seconds() - wall_start_;
}

Tensor Trainer::compute_loss(Tensor inputs, Tensor targets, Tensor mask) {
  const TrainConfig& c = run_.config;
  if (c.train_noise == TrainNoise::none)
    return task_loss(run_.model->forward(inputs), targets, mask);
  // This step's noise, from the seed and the step alone.
  const Perturbation noise = make_perturbation(
      c.train_noise == TrainNoise::gaussian ? NoiseKind::gaussian : NoiseKind::uniform,
      c.train_gamma, *run_.model, *run_.task,
      splitmix64(splitmix64(c.seed ^ 0x6e6f697365ull) ^ static_cast<uint64_t>(step_)));
  return task_loss(run_.model->forward(inputs, nullptr, noise.on_embeddings), targets, mask);
}

void Trainer::set_data_parallel(bool on) {
  if (on && dist::distributed()) {
    TAPIR_CHECK(can_sum_over_ranks_on(run_.config.device),
                "data-parallel training on cuda sums the gradients through NCCL, and this "
                "build has none (it needs CUDA, MPI and NCCL's nccl.h); use --device cpu");
    TAPIR_CHECK(!run_.config.constraint.enabled(),
                "data-parallel training under MPI does not take --constraint (each rank would "
                "update the dual variables from its own rows); run constrained training as one "
                "process");
    TAPIR_CHECK(run_.config.batch >= dist::size(), "--batch ", run_.config.batch,
                " is split among the ", dist::size(), " ranks; give at least one row per rank");
  }
  data_parallel_ = on;
  // The evaluations are shared among the ranks too (optim/evaluator.h).
  EvalSettings settings = evaluator_.settings();
  settings.over_ranks = on;
  evaluator_ = Evaluator(*run_.model, *run_.task, run_.config.device, settings);
}

StepStats Trainer::train_step() {
  const TrainConfig& config = run_.config;
  run_.task->sample("train", config.batch, data_rng_, batch_);
  if (config.shuffle_labels) batch_.shuffle_labels(data_rng_);
  const bool split = data_parallel_ && dist::distributed();
  const double share = split ? take_rank_rows(batch_, rank_batch_) : 1.0;
  const BatchTensors t = to_tensors(split ? rank_batch_ : batch_, config.device);
  optimizer_->zero_grad();
  Tensor loss = compute_loss(t.inputs, t.targets, t.mask);
  StepStats stats;
  stats.loss = loss.item();
  if (split) {
    // The whole batch's loss and gradient, the same on every rank.
    backward(loss);
    stats.loss = sum_over_ranks(params_, share, stats.loss);
  }
  TAPIR_CHECK(std::isfinite(stats.loss), "training diverged: the loss became ", stats.loss,
              " at step ", step_ + 1, divergence_note());
  if (!split) backward(loss);
  stats.grad_norm = clip_grad_norm(params_, config.clip);
  if (!std::isfinite(stats.grad_norm)) {
    const std::string where = first_non_finite_grad(params_);
    fail("training diverged: the gradient norm became ", stats.grad_norm, " at step ", step_ + 1,
         where.empty() ? "" : " (first non-finite gradient: " + where + ")", divergence_note());
  }
  stats.lr = config.schedule.lr_at(step_);
  optimizer_->step(stats.lr);
  reset_step();
  ++step_;
  stats.step = step_;
  losses_.push_back(stats.loss);
  after_step(stats);
  return stats;
}

std::vector<EvalResult> Trainer::evaluate_and_log(double tokens_per_s) {
  std::vector<EvalResult> results = evaluate();
  append_metrics(results, tokens_per_s);
  return results;
}

void Trainer::append_metrics(const std::vector<EvalResult>& results, double tokens_per_s) {
  if (!folder_.writes()) return;
  const Task& task = *run_.task;
  for (const EvalResult& r : results) {
    Json line = Json::object();
    line.set("run", folder_.dir());
    line.set("step", step_);
    line.set("split", r.split);
    line.set("loss", r.tally.all.loss());
    line.set("accuracy", r.tally.all.accuracy());
    line.set("token_accuracy", r.tally.all.token_accuracy());
    if (task.is_regression()) line.set("rmse", std::sqrt(r.tally.all.loss()));
    if (r.tally.all.bytes > 0) line.set("bits_per_byte", r.tally.all.bits_per_byte());
    line.set("examples", r.tally.all.examples);
    line.set("lr", run_.config.schedule.lr_at(step_ > 0 ? step_ - 1 : 0));
    line.set("tokens_per_s", tokens_per_s);
    line.set("wall_s", wall_seconds());
    if (!r.tally.by_group.empty()) {
      Json groups = Json::object();
      for (const auto& [key, tally] : r.tally.by_group) {
        Json g = Json::object();
        g.set("examples", tally.examples);
        g.set("accuracy", tally.accuracy());
        g.set("token_accuracy", tally.token_accuracy());
        g.set("loss", tally.loss());
        groups.set(std::to_string(key), g);
      }
      line.set("group_by", task.group_name());
      line.set("groups", groups);
    }
    add_metrics(line);
    folder_.append_metrics(line);
  }
}

void Trainer::save() {
  if (!folder_.writes()) return;
  const Metadata identity = {{kRunIdentityKey, to_json(identity_)}};
  folder_.save_checkpoint(*run_.model, run_.config, step_, identity);
  std::vector<SafeTensorWrite> extra;
  Metadata extra_meta = identity;
  save_state(extra, extra_meta);
  folder_.save_resume(params_, *optimizer_, data_rng_, {step_, wall_seconds()}, extra, extra_meta);
  folder_.sync_metrics();
  saved_step_ = step_;
}

void Trainer::add_state(const std::string& prefix, HostBytes& host,
                        std::vector<SafeTensorWrite>& writes, Metadata& meta) const {
  add_resume_state(prefix, params_, *optimizer_, &data_rng_, {step_, wall_seconds()}, host, writes,
                   meta);
}

void Trainer::restore_state(const SafeTensorsFile& file, const std::string& path,
                            const std::string& prefix) {
  ResumeClock clock;
  read_resume_state(file, path, prefix, params_, *optimizer_, &data_rng_, clock);
  check_optimizer_steps(*optimizer_, clock.step, path, prefix);
  step_ = clock.step;
  saved_step_ = clock.step;
  wall_offset_ = clock.wall_s;
  wall_start_ = now_seconds();
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& dir, int64_t steps,
                                         std::optional<Device> device, std::optional<int> threads,
                                         bool writes) {
  const RunFolder folder(dir);
  TAPIR_CHECK(std::filesystem::is_directory(dir), "cannot resume ", dir, ": no such folder");
  TAPIR_CHECK(folder.has(RunFolder::kConfig), "cannot resume ", dir, ": no config.json in it");
  if (writes) folder.check_resumable(RunFolder::written());
  auto lock =
      writes ? std::make_unique<FolderLock>(dir, RunFolder::kKind, RunFolder::written()) : nullptr;
  TrainConfig config = folder.read_config();
  folder.use_own_tokenizer(config);
  const int64_t saved_steps = config.steps;
  if (steps > 0) {
    if (config.schedule.total == config.steps) config.schedule.total = steps;
    config.steps = steps;
  }
  if (device) config.device = *device;
  if (threads) config.threads = *threads;
  config.validate();
  TAPIR_CHECK(folder.has(RunFolder::kResume), "cannot resume ", dir,
              ": no resume.safetensors in it (the run saved nothing yet)");
  // Everything is read and checked before anything in the folder changes:
  // config.json and the files it names against the resume file first,
  // before the task reads them.
  const SafeTensorsFile file = folder.read_resume(config);
  std::unique_ptr<Trainer> trainer = make_trainer(config, dir);
  ResumeClock clock;
  folder.load_resume(file, trainer->params_, *trainer->optimizer_, trainer->data_rng_, clock);
  const std::string resume_path = folder.file(RunFolder::kResume);
  TAPIR_CHECK(clock.step <= saved_steps, resume_path, ": step ", clock.step,
              " is beyond the run's end (", saved_steps, " steps in config.json)");
  TAPIR_CHECK(steps <= 0 || steps >= clock.step, "--steps ", steps, " is below step ", clock.step,
              " that ", dir, " has reached; a run can only be extended");
  check_optimizer_steps(*trainer->optimizer_, clock.step, resume_path, "");
  trainer->step_ = clock.step;
  trainer->saved_step_ = clock.step;
  trainer->wall_offset_ = clock.wall_s;
  trainer->load_state(file);
  trainer->check_resume_tensors(file, resume_path);
  if (!writes) {
    trainer->folder_ = RunFolder();
    return trainer;
  }
  trainer->lock_ = std::move(lock);
  trainer->resume_note_ = folder.drop_metrics_after(trainer->step_);
  folder.write_config(trainer->config());
  return trainer;
}

void Trainer::check_resume_tensors(const SafeTensorsFile& file, const std::string& path) const {
  // The names this run saves: its parameters, optimizer state, sampling RNG
  // and what the trainer adds.
  std::set<std::string> known = {"data_rng"};
  for (const Parameter* p : params_) known.insert("param." + p->name);
  for (const StateTensor& s : optimizer_->state_tensors()) known.insert("optim." + s.name);
  std::vector<SafeTensorWrite> extra;
  Metadata extra_meta;
  save_state(extra, extra_meta);
  for (const SafeTensorWrite& w : extra) known.insert(w.name);
  reject_unknown_tensors(file, path, known, "this run's state");
}

void Trainer::run(const TrainEvents& events) {
  const TrainConfig& config = run_.config;
  set_num_threads(config.threads);
  const int64_t tokens_per_step = config.batch * run_.task->max_length();
  double window_start = now_seconds();
  int64_t window_steps = 0;
  while (step_ < config.steps) {
    const StepStats stats = train_step();
    ++window_steps;
    const double elapsed = now_seconds() - window_start;
    const double steps_per_s = elapsed > 0 ? window_steps / elapsed : 0;
    if (events.on_step) events.on_step(stats, steps_per_s);
    if (step_ % config.eval_every == 0 || step_ == config.steps) {
      const double tokens_per_s = steps_per_s * static_cast<double>(tokens_per_step);
      std::vector<EvalResult> results = evaluate_and_log(tokens_per_s);
      save();
      if (events.on_eval) events.on_eval(step_, results);
      window_start = now_seconds();
      window_steps = 0;
      if (config.stop_at > 0 && results.front().tally.all.accuracy() >= config.stop_at) break;
    }
  }
}

}  // namespace tapir
