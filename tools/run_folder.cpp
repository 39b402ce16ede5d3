#include "tools/run_folder.h"

#include <filesystem>

#include "engine/file_io.h"
#include "nn/checkpoint.h"
#include "tools/train_options.h"

namespace tapir {

namespace fs = std::filesystem;

std::unique_ptr<Trainer> open_run(const std::string& path, const TaskOptions& overrides,
                                  Device device) {
  TAPIR_CHECK(fs::exists(path), "checkpoint ", path, " does not exist");
  const bool is_dir = fs::is_directory(path);
  const fs::path dir = is_dir ? fs::path(path) : fs::path(path).parent_path();
  const fs::path checkpoint = is_dir ? dir / "checkpoint.safetensors" : fs::path(path);
  const fs::path config_path = dir / "config.json";
  TAPIR_CHECK(fs::exists(config_path), "no config.json next to checkpoint ", checkpoint.string(),
              " (expected a tapir run folder)");
  TAPIR_CHECK(fs::exists(checkpoint), "run folder ", dir.string(),
              " has no checkpoint.safetensors yet");
  TrainConfig config = TrainConfig::from_json(parse_json(read_file(config_path.string())));
  for (const auto& [name, value] : overrides.values()) config.task_options.set(name, value);
  config.device = device;
  auto trainer = std::make_unique<Trainer>(config, "");
  const SafeTensorsFile file = SafeTensorsFile::load(checkpoint.string());
  load_parameters(file, trainer->model().parameters(), checkpoint.string());
  return trainer;
}

std::string run_folder_of(const std::string& path) {
  return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
}

Device usable_device(const std::string& name) {
  const Device d = parse_device(name);
  require_device(d);
  return d;
}

TaskOptions parse_task_overrides(const std::vector<std::string>& name_values) {
  TaskOptions overrides;
  set_task_options(name_values, {}, overrides);
  return overrides;
}

}  // namespace tapir
