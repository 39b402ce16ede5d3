#include "optim/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "autograd/ops.h"
#include "engine/file_io.h"
#include "engine/safetensors.h"
#include "engine/threads.h"
#include "nn/architecture.h"
#include "nn/checkpoint.h"
#include "optim/clip.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string path_in(const std::string& dir, const char* name) {
  return (fs::path(dir) / name).string();
}

}  // namespace

void position_losses(const float* logits, const int32_t* targets, const float* mask, int64_t rows,
                     int64_t V, float* losses) {
  for (int64_t r = 0; r < rows; ++r) {
    if (mask[r] == 0.0f) {
      losses[r] = 0.0f;
      continue;
    }
    const float* row = logits + r * V;
    const float mx = *std::max_element(row, row + V);
    double sum = 0;
    for (int64_t i = 0; i < V; ++i) sum += std::exp(double(row[i]) - mx);
    losses[r] = static_cast<float>(mx + std::log(sum) - row[targets[r]]);
  }
}

void batch_position_losses(const Task& task, const Batch& batch, const float* outputs,
                           std::vector<float>& losses) {
  const int64_t rows = batch.B * batch.T;
  losses.resize(static_cast<size_t>(rows));
  if (!task.is_regression())
    return position_losses(outputs, batch.targets.data(), batch.mask.data(), rows,
                           task.vocab().size(), losses.data());
  const int64_t n = batch.n;
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    if (batch.mask[r] != 0.0f)
      for (int64_t k = 0; k < n; ++k) {
        const double d = double(outputs[r * n + k]) - double(batch.values[r * n + k]);
        sum += d * d;
      }
    losses[r] = static_cast<float>(sum / double(n));
  }
}

BatchTensors to_tensors(const Batch& batch, Device device) {
  BatchTensors t;
  if (batch.n > 0) {
    t.inputs = empty(Shape{batch.B, batch.T, batch.n}, DType::f32, device);
    t.targets = empty(Shape{batch.B, batch.T, batch.n}, DType::f32, device);
    write_bytes(t.inputs, batch.inputs.data());
    write_bytes(t.targets, batch.values.data());
  } else {
    t.inputs = empty(Shape{batch.B, batch.T}, DType::i32, device);
    t.targets = empty(Shape{batch.B, batch.T}, DType::i32, device);
    write_bytes(t.inputs, batch.tokens.data());
    write_bytes(t.targets, batch.targets.data());
  }
  t.mask = empty(Shape{batch.B, batch.T}, DType::f32, device);
  write_bytes(t.mask, batch.mask.data());
  return t;
}

Tensor task_loss(Tensor outputs, Tensor targets, Tensor mask) {
  if (targets.dtype() == DType::i32) return cross_entropy(outputs, targets, mask);
  TAPIR_CHECK(outputs.shape() == targets.shape() && outputs.rank() == 3 &&
                  mask.shape() == Shape({outputs.dim(0), outputs.dim(1)}),
              "mean squared error: outputs ", outputs.describe(), ", targets ", targets.describe(),
              " and mask ", mask.describe(), " do not fit");
  // The mask's weights, normalised on the host: the mask gets no gradient.
  Tensor weights = empty(mask.shape(), DType::f32, Device::cpu);
  const float* m = to_host(mask).host_data<float>();
  double total = 0;
  for (int64_t i = 0; i < mask.numel(); ++i) total += m[i];
  for (int64_t i = 0; i < mask.numel(); ++i)
    weights.host_data<float>()[i] = total > 0 ? static_cast<float>(m[i] / total) : 0.0f;
  Tensor diff = sub(outputs, targets);
  return sum_all(mul(mean(mul(diff, diff), 2), to_device(weights, outputs.device())));
}

Trainer::Trainer(const TrainConfig& config, std::string out_dir)
    : config_(config), out_dir_(std::move(out_dir)), data_rng_(config.seed, 1) {
  config_.validate();
  device_ = config_.device;
  require_device(device_);
  task_ = make_task(config_.task, config_.task_options);
  config_.model.vocab = task_->vocab().size();
  if (task_->is_regression()) {
    config_.model.input = ModelInput::frames;
    config_.model.frame_dim = task_->frame_dim();
  }
  if (config_.model.context == 0) config_.model.context = task_->max_length();
  TAPIR_CHECK(task_->max_length() <= config_.model.context, "task ", config_.task,
              " produces sequences of length ", task_->max_length(), " but the model's context is ",
              config_.model.context);
  if (config_.schedule.total == 0) config_.schedule.total = config_.steps;
  // Learned functions from an architecture file replace the configured ones,
  // frozen unless arch_trainable (frozen parameters get no optimizer state).
  Architecture arch;
  if (!config_.arch_file.empty()) {
    TAPIR_CHECK(fs::exists(config_.arch_file), "architecture file ", config_.arch_file,
                " does not exist");
    arch = load_architecture(config_.arch_file);
    apply_architecture(arch, config_.model);
  }
  model_ = std::make_unique<Transformer>(config_.model);
  model_->init(config_.seed);
  if (!config_.arch_file.empty())
    load_architecture_values(arch, *model_, config_.arch_trainable, config_.arch_file);
  // Built and initialised on the host (the same values on every device), then moved.
  model_->to_device(device_);
  params_ = model_->parameters();
  optimizer_ = make_optimizer(config_.optimizer, params_);
  wall_start_ = now_seconds();
}

void Trainer::start_fresh(bool force) {
  if (out_dir_.empty()) return;
  if (fs::exists(out_dir_)) {
    TAPIR_CHECK(force, "output folder ", out_dir_,
                " already exists (use --resume to continue it or --force to overwrite it)");
    for (const char* name : {"config.json", "metrics.jsonl", "checkpoint.safetensors",
                             "resume.safetensors", "arch.safetensors"})
      fs::remove(path_in(out_dir_, name));
  }
  fs::create_directories(out_dir_);
  write_file_atomic(path_in(out_dir_, "config.json"), to_json(config_.to_json(), 2) + "\n");
}

Tensor Trainer::compute_loss(Tensor inputs, Tensor targets, Tensor mask) {
  return task_loss(model_->forward(inputs), targets, mask);
}

StepStats Trainer::train_step() {
  task_->sample("train", config_.batch, data_rng_, batch_);
  const BatchTensors t = to_tensors(batch_, device_);
  optimizer_->zero_grad();
  Tensor loss = compute_loss(t.inputs, t.targets, t.mask);
  StepStats stats;
  stats.loss = loss.item();
  TAPIR_CHECK(std::isfinite(stats.loss), "loss became ", stats.loss, " at step ", step_ + 1,
              out_dir_.empty() ? "" : "; the last good checkpoint in " + out_dir_ + " is kept");
  backward(loss);
  stats.grad_norm = clip_grad_norm(params_, config_.clip);
  TAPIR_CHECK(std::isfinite(stats.grad_norm), "gradient norm became ", stats.grad_norm, " at step ",
              step_ + 1,
              out_dir_.empty() ? "" : "; the last good checkpoint in " + out_dir_ + " is kept");
  stats.lr = config_.schedule.lr_at(step_);
  optimizer_->step(stats.lr);
  reset_step();
  ++step_;
  stats.step = step_;
  losses_.push_back(stats.loss);
  after_step(stats);
  return stats;
}

EvalResult Trainer::evaluate_split(const std::string& split) {
  NoGrad no_grad;
  EvalResult result{split, {}};
  int64_t n = task_->eval_size(split);
  if (config_.eval_limit > 0) n = std::min(n, config_.eval_limit);
  std::vector<float> losses;
  for (int64_t begin = 0; begin < n; begin += config_.eval_batch) {
    const int64_t count = std::min(config_.eval_batch, n - begin);
    task_->eval_batch(split, begin, count, batch_);
    const BatchTensors t = to_tensors(batch_, device_);
    const Tensor outputs = to_host(model_->forward(t.inputs));
    batch_position_losses(*task_, batch_, outputs.host_data<float>(), losses);
    task_->score(batch_, outputs.host_data<float>(), losses.data(), result.tally);
    reset_step();
  }
  return result;
}

std::vector<EvalResult> Trainer::evaluate_and_log(double tokens_per_s) {
  std::vector<EvalResult> results = evaluate();
  append_metrics(results, tokens_per_s);
  return results;
}

std::vector<EvalResult> Trainer::evaluate() {
  std::vector<EvalResult> results;
  for (const std::string& split : task_->eval_splits()) results.push_back(evaluate_split(split));
  return results;
}

void Trainer::append_metrics(const std::vector<EvalResult>& results, double tokens_per_s) {
  if (out_dir_.empty()) return;
  const std::string run = out_dir_;
  for (const EvalResult& r : results) {
    Json line = Json::object();
    line.set("run", run);
    line.set("step", step_);
    line.set("split", r.split);
    line.set("loss", r.tally.all.loss());
    line.set("accuracy", r.tally.all.accuracy());
    line.set("token_accuracy", r.tally.all.token_accuracy());
    if (task_->is_regression()) line.set("rmse", std::sqrt(r.tally.all.loss()));
    line.set("examples", r.tally.all.examples);
    line.set("lr", config_.schedule.lr_at(step_ > 0 ? step_ - 1 : 0));
    line.set("tokens_per_s", tokens_per_s);
    line.set("wall_s", wall_offset_ + now_seconds() - wall_start_);
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
      line.set("group_by", task_->group_name());
      line.set("groups", groups);
    }
    add_metrics(line);
    append_line(path_in(out_dir_, "metrics.jsonl"), to_json(line));
  }
}

void Trainer::save() {
  if (out_dir_.empty()) return;
  Metadata meta = {{"format", "tapir.checkpoint.v1"},
                   {"model_config", to_json(config_.model.to_json())},
                   {"task", config_.task},
                   {"step", std::to_string(step_)}};
  save_parameters(path_in(out_dir_, "checkpoint.safetensors"), params_, meta);
  // The learned functions on their own, ready for `train --arch` and `plot arch`.
  if (!model_->learned_functions().empty())
    save_architecture(path_in(out_dir_, "arch.safetensors"), architecture_of(*model_));

  // The resume file is self-contained (parameters included), so a crash
  // between the two writes cannot pair weights with the wrong optimizer state.
  std::vector<SafeTensorWrite> writes;
  HostBytes host;  // device tensors are written from host copies
  for (const Parameter* p : params_)
    writes.push_back(
        {"param." + p->name, DType::f32, p->tensor().shape().vec(), host.of(p->tensor())});
  std::vector<StateTensor> state = optimizer_->state_tensors();
  for (const StateTensor& s : state)
    writes.push_back(
        {"optim." + s.name, s.tensor.dtype(), s.tensor.shape().vec(), host.of(s.tensor)});
  const std::vector<int32_t> rng_words = data_rng_.state().to_words();
  writes.push_back(
      {"data_rng", DType::i32, {static_cast<int64_t>(rng_words.size())}, rng_words.data()});
  Metadata resume_meta = {{"format", "tapir.resume.v1"},
                          {"step", std::to_string(step_)},
                          {"optimizer_steps", std::to_string(optimizer_->steps())},
                          {"wall_s", std::to_string(wall_offset_ + now_seconds() - wall_start_)}};
  save_state(writes, resume_meta);
  save_safetensors(path_in(out_dir_, "resume.safetensors"), writes, resume_meta);
}

std::unique_ptr<Trainer> Trainer::resume(const std::string& dir, int64_t steps,
                                         std::optional<Device> device) {
  const std::string config_path = path_in(dir, "config.json");
  TAPIR_CHECK(fs::exists(config_path), "cannot resume ", dir, ": no config.json in it");
  TrainConfig config = TrainConfig::from_json(parse_json(read_file(config_path)));
  if (steps > 0) {
    if (config.schedule.total == config.steps) config.schedule.total = steps;
    config.steps = steps;
  }
  if (device) config.device = *device;
  std::unique_ptr<Trainer> trainer = make_trainer(config, dir);
  const std::string resume_path = path_in(dir, "resume.safetensors");
  TAPIR_CHECK(fs::exists(resume_path), "cannot resume ", dir,
              ": no resume.safetensors in it (the run saved nothing yet)");
  SafeTensorsFile file = SafeTensorsFile::load(resume_path);
  for (Parameter* p : trainer->params_) {
    const SafeTensorView& v = file.at("param." + p->name);
    TAPIR_CHECK(Shape(v.shape) == p->tensor().shape() && v.dtype == DType::f32, resume_path,
                ": parameter '", p->name, "' does not match the model");
    write_bytes(p->tensor(), v.data);
  }
  for (const StateTensor& s : trainer->optimizer_->state_tensors()) {
    const SafeTensorView& v = file.at("optim." + s.name);
    TAPIR_CHECK(Shape(v.shape) == s.tensor.shape() && v.dtype == s.tensor.dtype(), resume_path,
                ": optimizer state '", s.name, "' does not match");
    write_bytes(s.tensor, v.data);
  }
  const SafeTensorView& rng = file.at("data_rng");
  trainer->data_rng_.set_state(RngState::from_words(reinterpret_cast<const int32_t*>(rng.data),
                                                    rng.nbytes / sizeof(int32_t)));
  trainer->step_ = std::stoll(file.metadata_value("step", "0"));
  trainer->optimizer_->set_steps(std::stoll(file.metadata_value("optimizer_steps", "0")));
  trainer->wall_offset_ = std::stod(file.metadata_value("wall_s", "0"));
  trainer->load_state(file);

  // Drop metrics logged after the saved step, so the file reads as if the
  // run had never been interrupted.
  const std::string metrics_path = path_in(dir, "metrics.jsonl");
  if (fs::exists(metrics_path)) {
    std::istringstream in(read_file(metrics_path));
    std::string kept, line;
    while (std::getline(in, line))
      if (!line.empty() && parse_json(line).at("step").as_int() <= trainer->step_)
        kept += line + "\n";
    write_file_atomic(metrics_path, kept);
  }
  write_file_atomic(config_path, to_json(trainer->config_.to_json(), 2) + "\n");
  return trainer;
}

void Trainer::run(const TrainEvents& events) {
  set_num_threads(config_.threads);
  const int64_t tokens_per_step = config_.batch * task_->max_length();
  double window_start = now_seconds();
  int64_t window_steps = 0;
  while (step_ < config_.steps) {
    const StepStats stats = train_step();
    ++window_steps;
    const double elapsed = now_seconds() - window_start;
    const double steps_per_s = elapsed > 0 ? window_steps / elapsed : 0;
    if (events.on_step) events.on_step(stats, steps_per_s);
    if (step_ % config_.eval_every == 0 || step_ == config_.steps) {
      const double tokens_per_s = steps_per_s * static_cast<double>(tokens_per_step);
      std::vector<EvalResult> results = evaluate_and_log(tokens_per_s);
      save();
      if (events.on_eval) events.on_eval(step_, results);
      window_start = now_seconds();
      window_steps = 0;
      if (config_.stop_at > 0 && results.front().tally.all.accuracy() >= config_.stop_at) break;
    }
  }
}

}  // namespace tapir
