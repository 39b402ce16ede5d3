// How far the experiment in a folder has come (lab/folder_state.h).
#include "lab/folder_state.h"

#include <algorithm>
#include <filesystem>

#include "base/error.h"
#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "optim/run_folder.h"
#include "optim/search_folder.h"
#include "optim/train_config.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

bool has(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// When the file was last written; the earliest time when it is not there.
fs::file_time_type written_at(const fs::path& path) {
  std::error_code ec;
  const fs::file_time_type t = fs::last_write_time(path, ec);
  return ec ? fs::file_time_type::min() : t;
}

// The folders directly in `dir`, in order of name.
std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
    if (e.is_directory(ec)) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  return folders;
}

// The kind of experiment `dir` holds: a finished one by its result, as
// build_report reads it, and one being written by the marker its command
// left (base/folder_lock.h).
std::string kind_of(const fs::path& dir) {
  if (has(dir / "transfer.json")) return "transfer";
  if (has(dir / "compare.json")) return "comparison";
  if (has(dir / SearchFolder::kConfig)) return "search";
  if (has(dir / RunFolder::kMetrics) && has(dir / RunFolder::kConfig)) return "run";
  const std::string marker = owned_kind(dir.string());
  if (marker == "transfer folder") return "transfer";
  if (marker == "comparison folder") return "comparison";
  if (marker == SearchFolder::kKind) return "search";
  if (marker == RunFolder::kKind) return "run";
  return "";
}

// The trainer's own end (optim/trainer.cpp): the evaluation at the last
// step, or one whose first split reached stop_at.
bool final_evaluation_logged(const RunFolder& folder) {
  const TrainConfig config = folder.read_config(/*check_task=*/false);
  int64_t last_step = -1;
  double first_accuracy = 0;
  read_json_lines(folder.file(RunFolder::kMetrics), [&](const Json& j) {
    const int64_t step = j.at("step").as_int();
    if (step == last_step) return;
    last_step = step;
    first_accuracy = j.at("accuracy").as_double();
  });
  return last_step >= config.steps || (config.stop_at > 0 && first_accuracy >= config.stop_at);
}

std::string count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

bool run_finished(const std::string& dir) {
  const RunFolder folder(dir);
  if (folder.has(RunFolder::kFinished)) return true;
  try {
    return final_evaluation_logged(folder);
  } catch (const Error&) {
    return false;  // read again at the next look
  }
}

int FolderState::in_progress() const {
  return static_cast<int>(
      std::count_if(runs.begin(), runs.end(), [](const RunState& r) { return r.in_progress; }));
}

std::string FolderState::summary() const {
  if (finished()) return "finished";
  if (stopped()) {
    const int open = in_progress();
    return "stopped" +
           (kind == "search" || kind == "run" || open == 0
                ? " before its end"
                : " with " + std::to_string(open) + " of " + count(runs.size(), "run") +
                      " unfinished") +
           "; no tapir process writes it";
  }
  if (kind == "search") return "the search in progress";
  if (kind == "run") return "the run in progress";
  const int running = in_progress();
  if (running > 0)
    return std::to_string(running) + " of " + count(runs.size(), "run") + " in progress";
  const std::string result_file = kind == "comparison" ? "compare.json" : "transfer.json";
  if (runs.empty()) return "no run started yet";
  return "all " + count(runs.size(), "run") + " finished; " + result_file + " not written yet";
}

FolderState folder_state(const std::string& dir) {
  FolderState state;
  const fs::path top(dir);
  std::error_code ec;
  if (!fs::is_directory(top, ec)) return state;
  state.kind = kind_of(top);
  state.writer = !state.kind.empty() && folder_has_writer(dir);
  // The latest end of a run: the experiment's result must be written after it.
  fs::file_time_type last_end = fs::file_time_type::min();
  auto add_run = [&](const fs::path& run, bool search) {
    RunState r;
    r.dir = run.string();
    r.label = run.lexically_relative(top).string();
    r.search = search;
    const fs::path end = search ? run / SearchFolder::kResult : run / RunFolder::kFinished;
    r.in_progress = search ? !has(end) : !run_finished(r.dir);
    if (!r.in_progress) last_end = std::max(last_end, written_at(end));
    state.runs.push_back(std::move(r));
  };
  auto result_after_runs = [&](const char* name) {
    return has(top / name) && written_at(top / name) >= last_end;
  };
  if (state.kind == "run") {
    add_run(top, false);
    state.runs.back().label = top.filename().string();
    state.result = !state.runs.back().in_progress;
  } else if (state.kind == "search") {
    add_run(top, true);
    state.runs.back().label = top.filename().string();
    state.result = !state.runs.back().in_progress;
  } else if (state.kind == "comparison") {
    for (const fs::path& variant : subfolders(top))
      for (const fs::path& run : subfolders(variant))
        if (has(run / RunFolder::kConfig)) add_run(run, false);
    state.result = result_after_runs("compare.json");
  } else if (state.kind == "transfer") {
    for (const fs::path& search : subfolders(top))
      if (search.filename().string().rfind("search-", 0) == 0 &&
          has(search / SearchFolder::kConfig))
        add_run(search, true);
    for (const fs::path& cell : subfolders(top / "cells"))
      for (const fs::path& run : subfolders(cell))
        if (has(run / RunFolder::kConfig)) add_run(run, false);
    state.result = result_after_runs("transfer.json");
  }
  return state;
}

std::string tree_fingerprint(const std::string& dir, const std::string& ignored) {
  std::vector<std::string> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == ignored || name.rfind(ignored + ".tmp.", 0) == 0) continue;
    std::error_code stat_ec;  // a file removed since it was listed: left out
    if (!it->is_regular_file(stat_ec)) continue;
    const uintmax_t size = it->file_size(stat_ec);
    const fs::file_time_type time = it->last_write_time(stat_ec);
    if (stat_ec) continue;
    entries.push_back(it->path().lexically_relative(dir).string() + " " + std::to_string(size) +
                      " " + std::to_string(time.time_since_epoch().count()));
  }
  std::sort(entries.begin(), entries.end());
  std::string fingerprint;
  for (const std::string& e : entries) fingerprint += e + "\n";
  return fingerprint;
}

}  // namespace tapir
