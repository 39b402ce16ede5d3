// The search folder's files (optim/search_folder.h): where each lives, how
// it is written, and how a resumed folder is cut back to its step.
#include "optim/search_folder.h"

#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "optim/run_folder.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

constexpr const char* kResumeFormat = "tapir.search-resume.v1";

constexpr FolderKind kSearchKind = {SearchFolder::kKind, "search", SearchFolder::kConfig,
                                    "use --force to overwrite it"};

}  // namespace

SearchFolder::SearchFolder(std::string dir) : OwnedFolder(std::move(dir), kSearchKind) {}

std::string SearchFolder::model_dir(int m, int64_t generation) const {
  if (!writes()) return "";
  std::string name = "model-" + std::to_string(m);
  if (generation > 0) {
    name += "-gen-";
    name += std::to_string(generation);
  }
  return (fs::path(dir()) / "models" / name).string();
}

std::vector<std::string> SearchFolder::written() {
  return {kConfig, kLog, kResume, kArchitecture, kResult, kTokenizer, "report.html"};
}

bool SearchFolder::check_replaceable(bool force) const {
  // A search from before the marker: its search.json reads as a search's.
  return OwnedFolder::check_replaceable(
      force, [this] { read_json_file(file(kConfig), SearchConfig::from_json); }, written());
}

namespace {

// Removes the files named `names` from dir, then dir itself when that leaves
// it empty.
void remove_files(const fs::path& dir, const std::vector<std::string>& names) {
  for (const std::string& name : names) fs::remove(dir / name);
  std::error_code ec;
  if (fs::is_empty(dir, ec) && !ec) fs::remove(dir);
}

}  // namespace

void SearchFolder::clear() const {
  for (const std::string& name : written()) fs::remove(file(name.c_str()));
  const fs::path snapshots = fs::path(dir()) / kSnapshots;
  if (fs::is_directory(snapshots)) {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(snapshots)) {
      long long at = 0;
      char rest = 0;
      const std::string name = e.path().filename().string();
      if (std::sscanf(name.c_str(), "arch-step-%lld.safetensor%c", &at, &rest) == 2 && rest == 's')
        names.push_back(name);
    }
    remove_files(snapshots, names);
  }
  const fs::path models = fs::path(dir()) / "models";
  if (fs::is_directory(models)) {
    for (const fs::directory_entry& e : fs::directory_iterator(models))
      if (e.is_directory() && e.path().filename().string().rfind("model-", 0) == 0)
        remove_files(e.path(), {RunFolder::kConfig, RunFolder::kMetrics, RunFolder::kTokenizer,
                                FolderLock::kFile, kMarkerFile});
    remove_files(models, {});
  }
}

void SearchFolder::start_fresh(const SearchConfig& config) const {
  create_marked(kSnapshots);
  if (!tokenizer_path(config.base.task_options).empty())
    write_file_atomic(file(kTokenizer), given_tokenizer(config.base.task_options));
  write_config(config);
}

void SearchFolder::write_config(const SearchConfig& config) const {
  // As a run folder's config.json, search.json keeps the tokenizer as given.
  SearchConfig stored = config;
  if (!tokenizer_path(config.base.task_options).empty() && fs::exists(file(kConfig)))
    keep_given_tokenizer(stored.base.task_options, read_config().base.task_options);
  write_json(kConfig, stored.to_json());
}

SearchConfig SearchFolder::read_config_to_resume() const {
  TAPIR_CHECK(fs::is_directory(dir()), "cannot resume ", dir(), ": no such folder");
  const std::string path = file(kConfig);
  TAPIR_CHECK(fs::exists(path), "cannot resume ", dir(), ": no ", kConfig,
              " in it (not a search folder)");
  check_resumable(written());
  return read_config();
}

SearchConfig SearchFolder::read_config() const {
  return read_json_file(file(kConfig), SearchConfig::from_json);
}

void SearchFolder::name_given_tokenizer(TrainConfig config, const std::string& run_dir) const {
  if (tokenizer_path(config.task_options).empty() || !writes() || !has(kConfig)) return;
  keep_given_tokenizer(config.task_options, read_config().base.task_options);
  RunFolder(run_dir).write_config(config);
}

void SearchFolder::append_log(const Json& line) const {
  append(kLog, line);
}

void SearchFolder::sync_log() const {
  sync(kLog);
}

void SearchFolder::save_snapshot(int64_t step, const Architecture& arch) const {
  char name[64];
  std::snprintf(name, sizeof name, "arch-step-%08lld.safetensors", static_cast<long long>(step));
  save_architecture((fs::path(dir()) / kSnapshots / name).string(), arch);
}

void SearchFolder::save_result(const Architecture& arch, const SearchOutcome& outcome) const {
  save_architecture(file(kArchitecture), arch);
  write_json(kResult, outcome.to_json());
}

void SearchFolder::save_resume(const std::vector<SafeTensorWrite>& writes,
                               const Metadata& meta) const {
  save_resume_file(kResumeFormat, writes, meta);
}

SafeTensorsFile SearchFolder::load_resume() const {
  const std::string path = file(kResume);
  TAPIR_CHECK(fs::exists(path), "cannot resume ", dir(), ": no ", kResume,
              " in it (a search saves one at each evaluation, and this one reached none)");
  return load_resume_file(kResumeFormat);
}

std::string SearchFolder::truncate_to(int64_t step, const SearchConfig& config,
                                      const std::vector<ModelAt>& models) const {
  std::vector<std::string> notes;
  const auto note = [&notes](const std::string& text) {
    if (!text.empty()) notes.push_back(text);
  };
  // The options as search.json gives them (the tokenizer as given).
  const SearchConfig given = read_config();
  // Every log is read and checked before any is cut.
  std::vector<LogCut> cuts = {cut_log_after(file(kLog), step)};
  for (int m = 0; m < static_cast<int>(models.size()); ++m) {
    const ModelAt& at = models[static_cast<size_t>(m)];
    cuts.push_back(
        cut_log_after(RunFolder(model_dir(m, at.generation)).file(RunFolder::kMetrics), at.steps));
  }
  for (const LogCut& cut : cuts) note(cut.apply());
  int64_t later_folders = 0;
  for (int m = 0; m < static_cast<int>(models.size()); ++m) {
    const ModelAt& at = models[static_cast<size_t>(m)];
    const RunFolder folder(model_dir(m, at.generation));
    fs::create_directories(folder.dir());
    TrainConfig model_config = at.config;  // the device and threads it runs with now
    keep_given_tokenizer(model_config.task_options, given.base.task_options);
    folder.write_config(model_config);
    // Generations started after the resumed step start again when their time comes.
    for (int64_t g = at.generation + 1; fs::exists(model_dir(m, g)); ++g) {
      fs::remove_all(model_dir(m, g));
      ++later_folders;
    }
  }
  const int64_t later_snapshots = drop_snapshots_after(step);
  if (later_folders > 0)
    notes.push_back("removed " + std::to_string(later_folders) +
                    " model folders started after step " + std::to_string(step));
  if (later_snapshots > 0)
    notes.push_back("removed " + std::to_string(later_snapshots) + " snapshots taken after step " +
                    std::to_string(step));
  // The end's files belong to the end: a search that goes on writes them again.
  if (step < config.steps)
    for (const char* name : {kArchitecture, kResult}) fs::remove(file(name));
  write_config(config);
  std::string joined;
  for (const std::string& n : notes) joined += (joined.empty() ? "" : "\n") + n;
  return joined;
}

int64_t SearchFolder::drop_snapshots_after(int64_t step) const {
  const fs::path snapshots = fs::path(dir()) / kSnapshots;
  fs::create_directories(snapshots);
  int64_t dropped = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(snapshots)) {
    long long at = 0;
    if (std::sscanf(e.path().filename().string().c_str(), "arch-step-%lld.safetensors", &at) == 1 &&
        at > step) {
      fs::remove(e.path());
      ++dropped;
    }
  }
  return dropped;
}

}  // namespace tapir
