// The search folder, the one owner of a Stage I search's files (as
// optim/run_folder.h's RunFolder is of a run's):
//   search.json          the SearchConfig, resolved
//   search.jsonl         one line per evaluation: step, D_arch loss, active
//                        models, their mean test accuracy
//   models/model-M[-gen-G]/  each model's run folder (config.json, metrics.jsonl)
//   snapshots/           the shared functions every snapshot_every steps
//   resume.safetensors   everything a search needs to continue, saved at
//                        each evaluation (what it holds: optim/search_state.h)
//   arch.safetensors, search_result.json   at the end
//   tokenizer.model      a copy of the text task's subword tokenizer, which a
//                        resumed search reads (as a run folder keeps one)
// A tapir folder (optim/owned_folder.h: the marker, the writes, the logs
// cut back on resume). The loop that fills it is optim/search.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/safetensors.h"
#include "nn/architecture.h"
#include "nn/checkpoint.h"
#include "optim/owned_folder.h"
#include "optim/search_config.h"
#include "optim/train_config.h"

namespace tapir {

class SearchFolder : public OwnedFolder {
 public:
  static constexpr const char* kConfig = "search.json";
  static constexpr const char* kLog = "search.jsonl";
  static constexpr const char* kResult = "search_result.json";
  static constexpr const char* kSnapshots = "snapshots";

  // The kind its marker names (base/folder_lock.h).
  static constexpr const char* kKind = "search folder";
  // The names of the files at its top that a search writes.
  static std::vector<std::string> written();

  // A search without files when `dir` is empty.
  explicit SearchFolder(std::string dir = "");
  // The run folder of model m in its generation g ("" when nothing is written).
  std::string model_dir(int m, int64_t generation) const;

  // For `--out DIR [--force]`: whether the folder holds anything; fails if
  // it does, unless force and it is tapir's search folder (its marker, or a
  // search.json that reads as a search's).
  bool check_replaceable(bool force) const;
  // Removes the files a search writes (written(), the snapshots, the model
  // folders' config.json, metrics.jsonl, tokenizer.model, lock and marker,
  // and folders that leaves empty); any other file stays.
  void clear() const;
  // A fresh search's first files: snapshots/ and search.json.
  void start_fresh(const SearchConfig& config) const;
  void write_config(const SearchConfig& config) const;
  // search.json of the search to resume; fails naming the folder when it
  // is not a search folder or holds what a resume cannot rewrite safely
  // (OwnedFolder::check_resumable).
  SearchConfig read_config_to_resume() const;

  // A model that starts in the folder (at `run_dir`) names the tokenizer
  // in its config.json as search.json gives it, as the models of an
  // uninterrupted search do; `config` names the copy when the search was
  // resumed (Search::resume).
  void name_given_tokenizer(TrainConfig config, const std::string& run_dir) const;

  void append_log(const Json& line) const;
  void save_snapshot(int64_t step, const Architecture& arch) const;
  // The end's files: arch.safetensors and search_result.json.
  void save_result(const Architecture& arch, const SearchOutcome& outcome) const;

  // Flushes search.jsonl to the disk: before each resume file, which must
  // never claim a step whose lines could still be lost.
  void sync_log() const;
  // The resume file: its format label, then `meta`.
  void save_resume(const std::vector<SafeTensorWrite>& writes, const Metadata& meta) const;
  // The resume file, its format checked; fails naming the folder when the
  // search saved none.
  SafeTensorsFile load_resume() const;

  // Where a model stands at the step a search resumes from.
  struct ModelAt {
    int64_t generation = 0;
    TrainConfig config;  // as it runs now (device, threads)
    int64_t steps = 0;   // steps it has taken
  };
  // Cuts the folder back to `step` of `config` (the search as it continues):
  // the log, each model's metrics, model folders and snapshots from after
  // it, the end's files when the search goes on; rewrites search.json and
  // the models' config.json. Returns what was dropped ("" when nothing).
  std::string truncate_to(int64_t step, const SearchConfig& config,
                          const std::vector<ModelAt>& models) const;

 private:
  // search.json as it is (the tokenizer as given).
  SearchConfig read_config() const;
  // Removes the snapshots taken after `step`; returns how many.
  int64_t drop_snapshots_after(int64_t step) const;
};

}  // namespace tapir
