// The files of a run folder (optim/run_folder.h).
#include "optim/run_folder.h"

#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/parse.h"
#include "nn/architecture.h"
#include "optim/run_identity.h"
#include "tasks/task.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

constexpr const char* kResumeFormat = "tapir.resume.v1";

constexpr FolderKind kRunKind = {RunFolder::kKind, "run", RunFolder::kConfig,
                                 "use --resume to continue it or --force to overwrite it"};

}  // namespace

RunFolder::RunFolder(std::string dir) : OwnedFolder(std::move(dir), kRunKind) {}

std::vector<std::string> RunFolder::written() {
  return {kConfig,   kMetrics, kCheckpoint, kResume,    kArchitecture, kTokenizer,
          kFinished, kInputs,  "layers_*",  "robust_*", "report.html"};
}

bool RunFolder::check_replaceable(bool force) const {
  // A run from before the marker: its config.json reads as a run's (a task
  // whose corpus moved away is still a run).
  return OwnedFolder::check_replaceable(
      force, [this] { read_config(/*check_task=*/false); }, written());
}

void RunFolder::start_fresh(const TrainConfig& config, bool force) const {
  if (!writes()) return;
  // The tokenizer is read before anything in the folder is removed: it may
  // be the copy a run before left there.
  const std::string tokenizer = given_tokenizer(config.task_options);
  if (check_replaceable(force))
    for (const char* name :
         {kConfig, kMetrics, kCheckpoint, kResume, kArchitecture, kTokenizer, kFinished, kInputs})
      fs::remove(file(name));
  create_marked();
  if (config.task_options.has(kTokenizerOption)) write_file_atomic(file(kTokenizer), tokenizer);
  write_config(config);
}

void RunFolder::use_own_tokenizer(TrainConfig& config) const {
  tapir::use_own_tokenizer(config.task_options, dir());
}

void RunFolder::write_config(const TrainConfig& config) const {
  if (!writes()) return;
  // config.json keeps the tokenizer option as it was given, not the copy
  // that use_own_tokenizer put in its place: a run never changes its
  // tokenizer. (A search's models name the search's copy when it resumes;
  // optim/search_folder.cpp writes their configs with the given path.)
  TrainConfig stored = config;
  if (tokenizer_path(config.task_options) == file(kTokenizer) && has(kConfig))
    keep_given_tokenizer(stored.task_options, read_config(/*check_task=*/false).task_options);
  write_json(kConfig, stored.to_json());
}

TrainConfig RunFolder::read_config(bool check_task) const {
  const std::string path = file(kConfig);
  TrainConfig config = read_json_file(path, TrainConfig::from_json);  // errors name the file
  if (check_task) {
    TrainConfig own = config;  // the task as a resume builds it
    use_own_tokenizer(own);
    try {
      make_task(own.task, own.task_options);
    } catch (const Error& e) {
      fail(path, ": ", e.what());
    }
  }
  return config;
}

Json RunFolder::input_fingerprints(const TrainConfig& config) {
  Json files = Json::object();
  // A file that is not there is left out: what reads it says so, in its words.
  for (const RunInput& input : run_inputs(config))
    if (const std::string fingerprint = input_fingerprint(input); !fingerprint.empty())
      files.set(input.path, fingerprint);
  return files;
}

void RunFolder::record_inputs(const Json& fingerprints) const {
  if (!writes()) return;
  write_json(kInputs, fingerprints);
}

void RunFolder::check_same_inputs(const TrainConfig& config, bool required, const std::string& run,
                                  const std::string& remedy) const {
  const std::string path = file(kInputs);
  if (!has(kInputs)) {
    TAPIR_CHECK(!required, run, " that recorded no fingerprints of its input files (no ", kInputs,
                ", as before tapir kept them), so it cannot be reused safely; ", remedy);
    return;
  }
  const Json recorded = read_json_file(path);
  const Json now = input_fingerprints(config);
  for (const auto& [name, fingerprint] : now.as_object()) {
    if (name == file(kTokenizer)) continue;  // the run's own copy
    const Json* was = recorded.is_object() ? recorded.find(name) : nullptr;
    TAPIR_CHECK(was != nullptr && *was == fingerprint, run, " trained with other contents of ",
                name, " (", path, " records ",
                was && was->is_string() ? was->as_string() : std::string("none"), ", the file is ",
                fingerprint.as_string(), " now); ", remedy);
  }
}

void RunFolder::append_metrics(const Json& line) const {
  if (!writes()) return;
  append(kMetrics, line);
}

std::string RunFolder::drop_metrics_after(int64_t step) const {
  return writes() ? drop_log_lines_after(file(kMetrics), step) : "";
}

void RunFolder::sync_metrics() const {
  sync(kMetrics);
}

void RunFolder::save_checkpoint(Transformer& model, const TrainConfig& config, int64_t step,
                                const Metadata& identity) const {
  if (!writes()) return;
  Metadata meta = {{"format", "tapir.checkpoint.v1"},
                   {"model_config", to_json(config.model.to_json())},
                   {"task", config.task},
                   {"step", std::to_string(step)}};
  meta.insert(meta.end(), identity.begin(), identity.end());
  save_parameters(file(kCheckpoint), model.parameters(), meta);
  if (!model.learned_functions().empty())
    save_architecture(file(kArchitecture), architecture_of(model));
}

SafeTensorsFile RunFolder::read_checkpoint(const std::string& path, const TrainConfig& config,
                                           const TaskOptions& overridden) const {
  SafeTensorsFile checkpoint = SafeTensorsFile::load(path);
  IdentityAllowance allowed = reader_allowance();
  for (const auto& [name, value] : overridden.values()) {
    allowed.fields.insert("task_options." + name);
    if (name == "path") allowed.corpus = false;  // another corpus, on purpose
    if (name == kTokenizerOption) allowed.tokenizer = false;
  }
  check_run_identity(checkpoint, path, file(kConfig), config, allowed);
  return checkpoint;
}

void RunFolder::save_resume(const std::vector<Parameter*>& params, Optimizer& optimizer,
                            const Rng& data_rng, ResumeClock clock,
                            const std::vector<SafeTensorWrite>& extra,
                            const Metadata& extra_meta) const {
  if (!writes()) return;
  std::vector<SafeTensorWrite> writes;
  HostBytes host;  // device tensors are written from host copies
  Metadata meta;
  add_resume_state("", params, optimizer, &data_rng, clock, host, writes, meta);
  writes.insert(writes.end(), extra.begin(), extra.end());
  meta.insert(meta.end(), extra_meta.begin(), extra_meta.end());
  save_resume_file(kResumeFormat, writes, meta);
}

SafeTensorsFile RunFolder::read_resume(const TrainConfig& config) const {
  SafeTensorsFile resume = load_resume_file(kResumeFormat);
  check_run_identity(resume, file(kResume), file(kConfig), config, reader_allowance());
  return resume;
}

void RunFolder::load_resume(const SafeTensorsFile& resume, const std::vector<Parameter*>& params,
                            Optimizer& optimizer, Rng& data_rng, ResumeClock& clock) const {
  read_resume_state(resume, file(kResume), "", params, optimizer, &data_rng, clock);
}

std::string run_folder_of(const std::string& path) {
  return fs::is_directory(path) ? path : fs::path(path).parent_path().string();
}

std::vector<std::string> run_input_files(const std::string& path, const std::string& arch_file) {
  const RunFolder folder(run_folder_of(path));
  return {path, folder.file(RunFolder::kConfig), folder.file(RunFolder::kCheckpoint),
          folder.file(RunFolder::kArchitecture), arch_file};
}

}  // namespace tapir
