// Building a model run from a configuration or a run folder
// (optim/model_run.h).
#include "optim/model_run.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>

#include "nn/architecture.h"
#include "optim/run_folder.h"

namespace tapir {

namespace fs = std::filesystem;

void complete_config(TrainConfig& config, const Task& task) {
  config.model.vocab = task.vocab().size();
  if (task.is_regression()) {
    config.model.input = ModelInput::frames;
    config.model.frame_dim = task.frame_dim();
  }
  if (config.model.context == 0) config.model.context = task.max_length();
  TAPIR_CHECK(task.max_length() <= config.model.context, "task ", config.task,
              " produces sequences of length ", task.max_length(), " but the model's context is ",
              config.model.context);
  if (config.schedule.total == 0) config.schedule.total = config.steps;
}

int64_t estimated_training_bytes(const TrainConfig& config, int64_t length, int64_t eval_examples) {
  const ModelConfig& m = config.model;
  // In doubles: the products of absurd sizes overflow no integer.
  const double v = static_cast<double>(m.input == ModelInput::frames ? m.frame_dim : m.vocab);
  const double c = static_cast<double>(m.width), t = static_cast<double>(length);
  const double l = static_cast<double>(m.layers), r = static_cast<double>(m.mlp_ratio);
  const double h = static_cast<double>(m.heads);
  const double block = 4 * c * c + 2 * r * c * c + (9 + r) * c;
  const double tables = m.tie_embeddings ? 1 : 2;  // token table and head, or one tied
  const double parameters =
      tables * v * c + static_cast<double>(m.context) * c + l * block + 2 * c + v;
  // Per example: every block's stored activations (with QK norm or RoPE, the
  // copies of q, k and v they make: at most 10 C more), its attention scores
  // and their softmax, and the logits with their gradient.
  const double qk = m.qk_norm || m.pos == Positions::rope ? 10 : 0;
  const double per_example = t * (l * (c * (8 + 2 * r + qk) + 2 * h * t) + 2 * v);
  const double batch =
      static_cast<double>(std::max(config.batch, std::min(config.eval_batch, eval_examples)));
  const double bytes = 4 * (4 * parameters + batch * per_example);
  return bytes >= 9e18 ? INT64_MAX : static_cast<int64_t>(bytes);
}

namespace {

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// Refuses a run that cannot fit in this machine's memory before the first
// allocation, which would end in std::bad_alloc (or in the kernel's
// out-of-memory killer) only after minutes of filling the memory.
void check_fits_in_memory(const TrainConfig& c, const Task& task) {
  if (c.device != Device::cpu) return;
  int64_t eval_examples = 0;
  for (const std::string& split : task.eval_splits())
    eval_examples = std::max(eval_examples, task.eval_size(split));
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  const double memory = static_cast<double>(pages) * static_cast<double>(page);
  const double need =
      static_cast<double>(estimated_training_bytes(c, task.max_length(), eval_examples));
  TAPIR_CHECK(need <= memory, "this run needs about ", gib(need), " of memory (width ",
              c.model.width, ", ", c.model.layers, " layers, sequences of ", task.max_length(),
              ", --batch ", c.batch, ", --eval-batch ", c.eval_batch, "), more than the ",
              gib(memory), " this machine has; lower --batch, --eval-batch, --width or --layers");
}

}  // namespace

Evaluator ModelRun::evaluator() const {
  return Evaluator(*model, *task, config.device, eval_settings(config));
}

std::unique_ptr<Task> make_training_task(const TrainConfig& config) {
  TaskOptions options = config.task_options;
  std::unique_ptr<Task> task = make_task(config.task, options);
  if (config.train_on == TrainOn::train || !options.asked("arch-frac")) return task;
  options.set("arch-frac", "0");
  return make_task(config.task, options);
}

namespace {

// A configuration as its run would record it, with the task and the
// architecture file it was completed from.
struct Resolved {
  TrainConfig config;
  std::unique_ptr<Task> task;
  Architecture arch;
};

// `on_device`: the run will be built, so config.device must be usable.
Resolved resolve(const TrainConfig& config, bool on_device) {
  Resolved r;
  r.config = config;
  TrainConfig& c = r.config;
  c.validate();
  if (on_device) require_device(c.device);
  r.task = make_training_task(c);
  complete_config(c, *r.task);
  // Learned functions from an architecture file replace the configured ones,
  // frozen unless arch_trainable (frozen parameters get no optimizer state).
  if (!c.arch_file.empty()) {
    TAPIR_CHECK(fs::exists(c.arch_file), "architecture file ", c.arch_file, " does not exist");
    r.arch = load_architecture(c.arch_file);
    apply_architecture(r.arch, c.model);
  }
  if (on_device) check_fits_in_memory(c, *r.task);
  return r;
}

}  // namespace

TrainConfig resolved_config(const TrainConfig& config) {
  return resolve(config, /*on_device=*/false).config;
}

ModelRun build_run(const TrainConfig& config) {
  Resolved r = resolve(config, /*on_device=*/true);
  ModelRun run;
  run.config = std::move(r.config);
  run.task = std::move(r.task);
  const TrainConfig& c = run.config;
  run.model = std::make_unique<Transformer>(c.model);
  run.model->init(c.seed);
  if (!c.arch_file.empty())
    load_architecture_values(r.arch, *run.model, c.arch_trainable, c.arch_file);
  // Built and initialised on the host (the same values on every device), then moved.
  run.model->to_device(c.device);
  return run;
}

ModelRun open_run(const std::string& path, const TaskOptions& overrides, Device device) {
  TAPIR_CHECK(fs::exists(path), "checkpoint ", path, " does not exist");
  const RunFolder folder(run_folder_of(path));
  const std::string checkpoint =
      fs::is_directory(path) ? folder.file(RunFolder::kCheckpoint) : path;
  TAPIR_CHECK(folder.has(RunFolder::kConfig), "no config.json next to checkpoint ", checkpoint,
              " (expected a tapir run folder)");
  TAPIR_CHECK(fs::exists(checkpoint), "run folder ", folder.dir(),
              " has no checkpoint.safetensors yet");
  TrainConfig config = folder.read_config();
  folder.use_own_tokenizer(config);
  // config.json and the files it names are checked against the checkpoint
  // before the task reads them.
  const SafeTensorsFile file = folder.read_checkpoint(checkpoint, config, overrides);
  for (const auto& [name, value] : overrides.values()) config.task_options.set(name, value);
  config.device = device;
  ModelRun run = build_run(config);
  load_parameters(file, run.model->parameters(), checkpoint);
  return run;
}

}  // namespace tapir
