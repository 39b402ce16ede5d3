// The training loop (optim/trainer.h).
#include "optim/trainer.h"

#include <chrono>
#include <cmath>

#include "autograd/ops.h"
#include "engine/threads.h"
#include "optim/batch.h"
#include "optim/clip.h"
#include "optim/task_loss.h"

namespace tapir {

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

Trainer::Trainer(const TrainConfig& config, std::string out_dir)
    : run_(build_run(config)),
      folder_(std::move(out_dir)),
      evaluator_(run_.evaluator()),
      params_(run_.model->parameters()),
      optimizer_(make_optimizer(run_.config.optimizer, params_)),
      data_rng_(config.seed, 1),
      wall_start_(now_seconds()) {}

void Trainer::start_fresh(bool force) {
  folder_.start_fresh(run_.config, force);
}

double Trainer::wall_seconds() const {
  return wall_offset_ + now_seconds() - wall_start_;
}

Tensor Trainer::compute_loss(Tensor inputs, Tensor targets, Tensor mask) {
  return task_loss(run_.model->forward(inputs), targets, mask);
}

StepStats Trainer::train_step() {
  const TrainConfig& config = run_.config;
  const std::string& out_dir = folder_.dir();
  run_.task->sample("train", config.batch, data_rng_, batch_);
  const BatchTensors t = to_tensors(batch_, config.device);
  optimizer_->zero_grad();
  Tensor loss = compute_loss(t.inputs, t.targets, t.mask);
  StepStats stats;
  stats.loss = loss.item();
  TAPIR_CHECK(std::isfinite(stats.loss), "loss became ", stats.loss, " at step ", step_ + 1,
              out_dir.empty() ? "" : "; the last good checkpoint in " + out_dir + " is kept");
  backward(loss);
  stats.grad_norm = clip_grad_norm(params_, config.clip);
  TAPIR_CHECK(std::isfinite(stats.grad_norm), "gradient norm became ", stats.grad_norm, " at step ",
              step_ + 1,
              out_dir.empty() ? "" : "; the last good checkpoint in " + out_dir + " is kept");
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
  folder_.save_checkpoint(*run_.model, run_.config, step_);
  std::vector<SafeTensorWrite> extra;
  Metadata extra_meta;
  save_state(extra, extra_meta);
  folder_.save_resume(params_, *optimizer_, data_rng_, {step_, wall_seconds()}, extra, extra_meta);
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& dir, int64_t steps,
                                         std::optional<Device> device) {
  const RunFolder folder(dir);
  TAPIR_CHECK(folder.has(RunFolder::kConfig), "cannot resume ", dir, ": no config.json in it");
  TrainConfig config = folder.read_config();
  if (steps > 0) {
    if (config.schedule.total == config.steps) config.schedule.total = steps;
    config.steps = steps;
  }
  if (device) config.device = *device;
  std::unique_ptr<Trainer> trainer = make_trainer(config, dir);
  TAPIR_CHECK(folder.has(RunFolder::kResume), "cannot resume ", dir,
              ": no resume.safetensors in it (the run saved nothing yet)");
  ResumeClock clock;
  const SafeTensorsFile file =
      folder.load_resume(trainer->params_, *trainer->optimizer_, trainer->data_rng_, clock);
  trainer->step_ = clock.step;
  trainer->wall_offset_ = clock.wall_s;
  trainer->load_state(file);
  folder.drop_metrics_after(trainer->step_);
  folder.write_config(trainer->config());
  return trainer;
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
