// The files of a run folder (optim/run_folder.h).
#include "optim/run_folder.h"

#include <filesystem>
#include <sstream>

#include "engine/file_io.h"
#include "nn/architecture.h"

namespace tapir {

namespace fs = std::filesystem;

std::string RunFolder::file(const char* name) const {
  return (fs::path(dir_) / name).string();
}

bool RunFolder::has(const char* name) const {
  return fs::exists(file(name));
}

void RunFolder::start_fresh(const TrainConfig& config, bool force) const {
  if (!writes()) return;
  if (fs::exists(dir_)) {
    TAPIR_CHECK(force, "output folder ", dir_,
                " already exists (use --resume to continue it or --force to overwrite it)");
    for (const char* name : {kConfig, kMetrics, kCheckpoint, kResume, kArchitecture})
      fs::remove(file(name));
  }
  fs::create_directories(dir_);
  write_config(config);
}

void RunFolder::write_config(const TrainConfig& config) const {
  if (!writes()) return;
  write_file_atomic(file(kConfig), to_json(config.to_json(), 2) + "\n");
}

TrainConfig RunFolder::read_config() const {
  return read_json_file(file(kConfig), TrainConfig::from_json);  // errors name the file
}

void RunFolder::append_metrics(const Json& line) const {
  if (!writes()) return;
  append_line(file(kMetrics), to_json(line));
}

void RunFolder::drop_metrics_after(int64_t step) const {
  if (!writes() || !has(kMetrics)) return;
  std::istringstream in(read_file(file(kMetrics)));
  std::string kept, line;
  while (std::getline(in, line))
    if (!line.empty() && parse_json(line).at("step").as_int() <= step) kept += line + "\n";
  write_file_atomic(file(kMetrics), kept);
}

void RunFolder::save_checkpoint(Transformer& model, const TrainConfig& config, int64_t step) const {
  if (!writes()) return;
  const Metadata meta = {{"format", "tapir.checkpoint.v1"},
                         {"model_config", to_json(config.model.to_json())},
                         {"task", config.task},
                         {"step", std::to_string(step)}};
  save_parameters(file(kCheckpoint), model.parameters(), meta);
  if (!model.learned_functions().empty())
    save_architecture(file(kArchitecture), architecture_of(model));
}

void RunFolder::load_checkpoint(const std::string& path, const std::vector<Parameter*>& params) {
  load_parameters(SafeTensorsFile::load(path), params, path);
}

void RunFolder::save_resume(const std::vector<Parameter*>& params, Optimizer& optimizer,
                            const Rng& data_rng, ResumeClock clock,
                            const std::vector<SafeTensorWrite>& extra,
                            const Metadata& extra_meta) const {
  if (!writes()) return;
  std::vector<SafeTensorWrite> writes;
  HostBytes host;  // device tensors are written from host copies
  add_parameter_writes(writes, params, host, "param.");
  const std::vector<StateTensor> state = optimizer.state_tensors();
  for (const StateTensor& s : state)
    writes.push_back(
        {"optim." + s.name, s.tensor.dtype(), s.tensor.shape().vec(), host.of(s.tensor)});
  const std::vector<int32_t> rng_words = data_rng.state().to_words();
  writes.push_back(
      {"data_rng", DType::i32, {static_cast<int64_t>(rng_words.size())}, rng_words.data()});
  writes.insert(writes.end(), extra.begin(), extra.end());
  Metadata meta = {{"format", "tapir.resume.v1"},
                   {"step", std::to_string(clock.step)},
                   {"optimizer_steps", std::to_string(optimizer.steps())},
                   {"wall_s", std::to_string(clock.wall_s)}};
  meta.insert(meta.end(), extra_meta.begin(), extra_meta.end());
  save_safetensors(file(kResume), writes, meta);
}

SafeTensorsFile RunFolder::load_resume(const std::vector<Parameter*>& params, Optimizer& optimizer,
                                       Rng& data_rng, ResumeClock& clock) const {
  const std::string path = file(kResume);
  SafeTensorsFile resume = SafeTensorsFile::load(path);
  load_parameters(resume, params, path, "param.");
  for (const StateTensor& s : optimizer.state_tensors()) {
    const SafeTensorView& v = resume.at("optim." + s.name);
    TAPIR_CHECK(Shape(v.shape) == s.tensor.shape() && v.dtype == s.tensor.dtype(), path,
                ": optimizer state '", s.name, "' does not match");
    write_bytes(s.tensor, v.data);
  }
  const SafeTensorView& rng = resume.at("data_rng");
  data_rng.set_state(RngState::from_words(reinterpret_cast<const int32_t*>(rng.data),
                                          rng.nbytes / sizeof(int32_t)));
  clock.step = std::stoll(resume.metadata_value("step", "0"));
  optimizer.set_steps(std::stoll(resume.metadata_value("optimizer_steps", "0")));
  clock.wall_s = std::stod(resume.metadata_value("wall_s", "0"));
  return resume;
}

std::string run_folder_of(const std::string& path) {
  return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
}

}  // namespace tapir
