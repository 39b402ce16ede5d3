// The files of a run folder (optim/run_folder.h).
#include "optim/run_folder.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "engine/file_io.h"
#include "engine/folder_lock.h"
#include "engine/parse.h"
#include "nn/architecture.h"

namespace tapir {

namespace fs = std::filesystem;

std::string RunFolder::file(const char* name) const {
  return (fs::path(dir_) / name).string();
}

bool RunFolder::has(const char* name) const {
  return fs::exists(file(name));
}

namespace {

// The entries of dir other than its lock file, by name ("" when none).
std::string entries_of(const std::string& dir) {
  std::string names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != FolderLock::kFile) names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

}  // namespace

void RunFolder::start_fresh(const TrainConfig& config, bool force) const {
  if (!writes()) return;
  const std::string entries = fs::exists(dir_) ? entries_of(dir_) : "";
  if (!entries.empty()) {
    TAPIR_CHECK(force, "output folder ", dir_,
                " already exists (use --resume to continue it or --force to overwrite it)");
    // Only a folder tapir made is replaced: one whose config.json is a run's.
    bool is_run = false;
    if (has(kConfig)) {
      try {
        read_config();
        is_run = true;
      } catch (const Error&) {
      }
    }
    TAPIR_CHECK(is_run, "--force replaces only a tapir run folder, and ", dir_,
                " is not one (no readable tapir config.json; it holds ", entries,
                "); choose another --out or remove it yourself");
    for (const char* name : {kConfig, kMetrics, kCheckpoint, kResume, kArchitecture, kFinished})
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

std::string RunFolder::drop_metrics_after(int64_t step) const {
  if (!writes() || !has(kMetrics)) return "";
  const std::string path = file(kMetrics);
  const std::string text = read_file(path);
  std::string kept, dropped;
  int64_t later = 0;
  size_t begin = 0, number = 0;
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end == std::string::npos ? end : end - begin);
    ++number;
    const bool last = end == std::string::npos || end + 1 == text.size();
    int64_t line_step = 0;
    try {
      line_step = parse_json(line).at("step").as_int();
    } catch (const Error& e) {
      // Only the last line can be torn by a crash; anything else is damage
      // a person should look at.
      TAPIR_CHECK(last, path, ": line ", number, " is not a metrics line (", e.what(), ")");
      dropped =
          "dropped the torn last line of " + path + " (" + std::to_string(line.size()) + " bytes)";
      break;
    }
    if (line_step <= step)
      kept += line + "\n";
    else
      ++later;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (later > 0) {
    if (!dropped.empty()) dropped += "; ";
    dropped += "dropped " + std::to_string(later) + " metrics lines logged after step " +
               std::to_string(step) + ", the step of the resume file";
  }
  if (kept != text) write_file_atomic(path, kept);
  return dropped;
}

void RunFolder::sync_metrics() const {
  if (writes() && has(kMetrics)) sync_file(file(kMetrics));
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

namespace {

// A counter of the resume file's metadata, strictly: present, all digits,
// in range. A damaged file stops the resume before anything changes.
int64_t metadata_count(const SafeTensorsFile& file, const std::string& path, const char* key) {
  return parse_int64(file.metadata_value(key, ""), path + ": metadata '" + key + "'", 0);
}

double metadata_seconds(const SafeTensorsFile& file, const std::string& path, const char* key) {
  const double value =
      parse_double(file.metadata_value(key, ""), path + ": metadata '" + key + "'");
  TAPIR_CHECK(value >= 0, path, ": metadata '", key, "': expected a non-negative number, got ",
              value);
  return value;
}

}  // namespace

SafeTensorsFile RunFolder::load_resume(const std::vector<Parameter*>& params, Optimizer& optimizer,
                                       Rng& data_rng, ResumeClock& clock) const {
  const std::string path = file(kResume);
  SafeTensorsFile resume = SafeTensorsFile::load(path);
  const std::string format = resume.metadata_value("format", "");
  TAPIR_CHECK(format == "tapir.resume.v1", path,
              ": metadata 'format': expected 'tapir.resume.v1', got ", tapir::quoted(format));
  clock.step = metadata_count(resume, path, "step");
  const int64_t optimizer_steps = metadata_count(resume, path, "optimizer_steps");
  clock.wall_s = metadata_seconds(resume, path, "wall_s");
  load_parameters(resume, params, path, "param.");
  for (const StateTensor& s : optimizer.state_tensors()) {
    const SafeTensorView& v = resume.at("optim." + s.name);
    TAPIR_CHECK(Shape(v.shape) == s.tensor.shape() && v.dtype == s.tensor.dtype(), path,
                ": optimizer state '", s.name, "' is ", dtype_name(v.dtype), " ",
                Shape(v.shape).str(), ", expected ", dtype_name(s.tensor.dtype()), " ",
                s.tensor.shape().str());
    if (v.dtype == DType::f32)
      check_finite(reinterpret_cast<const float*>(v.data), s.tensor.numel(), path,
                   "optimizer state '" + s.name + "'");
    write_bytes(s.tensor, v.data);
  }
  const SafeTensorView& rng = resume.at("data_rng");
  TAPIR_CHECK(rng.dtype == DType::i32, path, ": tensor 'data_rng' is ", dtype_name(rng.dtype),
              ", expected I32");
  try {
    data_rng.set_state(RngState::from_words(reinterpret_cast<const int32_t*>(rng.data),
                                            rng.nbytes / sizeof(int32_t)));
  } catch (const Error& e) {
    fail(path, ": tensor 'data_rng': ", e.what());  // the RNG's own checks know no file
  }
  optimizer.set_steps(optimizer_steps);
  return resume;
}

std::string run_folder_of(const std::string& path) {
  return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
}

}  // namespace tapir
