// Building a model run from a configuration or a run folder
// (optim/model_run.h).
#include "optim/model_run.h"

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

Evaluator ModelRun::evaluator() const {
  return Evaluator(*model, *task, config.device, eval_settings(config));
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
  r.task = make_task(c.task, c.task_options);
  complete_config(c, *r.task);
  // Learned functions from an architecture file replace the configured ones,
  // frozen unless arch_trainable (frozen parameters get no optimizer state).
  if (!c.arch_file.empty()) {
    TAPIR_CHECK(fs::exists(c.arch_file), "architecture file ", c.arch_file, " does not exist");
    r.arch = load_architecture(c.arch_file);
    apply_architecture(r.arch, c.model);
  }
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
  for (const auto& [name, value] : overrides.values()) config.task_options.set(name, value);
  config.device = device;
  ModelRun run = build_run(config);
  RunFolder::load_checkpoint(checkpoint, run.model->parameters());
  return run;
}

}  // namespace tapir
