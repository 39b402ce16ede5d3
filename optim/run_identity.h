// What a run is, recorded with its checkpoint and its resume state (the
// metadata "run" of checkpoint.safetensors and resume.safetensors): the
// fields of its configuration as config.json holds them, and the
// fingerprints of the files it reads (its architecture file, its tokenizer,
// a text task's corpus). A command that reads a run (eval, dump, layers,
// robust, plot --run, train --resume, the reuse of compare and transfer)
// checks config.json and those files against the record before it uses
// either, and refuses a mismatch naming the field or file and both values:
// a config.json edited after training, a tokenizer put in place of the
// run's copy or a corpus changed since would otherwise give another model
// or other data than the one trained, without a word.
// Below the run folder (optim/run_folder.h), above the tasks.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/safetensors.h"
#include "optim/train_config.h"

namespace tapir {

// The metadata key of the record.
inline constexpr const char* kRunIdentityKey = "run";

// A file a run reads besides its folder: its role in the record
// ("arch_file", "tokenizer", "corpus"), what messages call it, and its path
// as the configuration gives it.
struct RunInput {
  const char* role;
  const char* what;
  std::string path;
};
// The files a run of `config` reads: its architecture file, its tokenizer,
// a text task's corpus (a path may be empty: not given).
std::vector<RunInput> run_inputs(const TrainConfig& config);
// The input's fingerprint as it is now (a corpus: the bytes the task reads,
// a folder's files in order), or "" when it is not there: what reads it
// then says so, in its own words.
std::string input_fingerprint(const RunInput& input);

// The record {"config": `fields` (the configuration file's JSON), "inputs":
// {"arch_file", "tokenizer", "corpus": fingerprints of the files `reads`
// names, as they are now; a file not there is left out}}. The task option
// `tokenizer` is in the fields but never compared: it names the run's copy or
// the file given, and its content is in the inputs.
Json run_identity(const Json& fields, const TrainConfig& reads);
// A run's: its config.json.
inline Json run_identity(const TrainConfig& config) {
  return run_identity(config.to_json(), config);
}

// What a reader allows to differ from the record: the fields a command sets
// anew for its own use (a resume's steps, device and threads), given as
// config.json's dotted names ("schedule.total", "task_options.len").
struct IdentityAllowance {
  std::set<std::string> fields;
  // With a corpus or tokenizer option overridden the reader means other
  // data: that file's fingerprint is not compared.
  bool corpus = true, tokenizer = true;
  // What the messages call the reader's folder: "run" or "search".
  const char* kind = "run";
};

// The fields every reader allows: what `train --resume` sets anew (--steps,
// and the schedule's length with it; --device, --threads) and what an
// evaluation sets for itself (--limit, the evaluation batch).
IdentityAllowance reader_allowance();

// Fails unless `file` (a checkpoint or resume file at `path`) records what
// run_identity(fields, reads) says now (fields: the configuration file at
// `config_path` as read; reads: its run's configuration, the task option
// `tokenizer` naming the file the reader will use), outside `allowed`:
// "<config.json>: model.qk_norm is true, but <path> was trained with false
// (config.json was changed after training); put back false, or start a new
// run". Files without the record (written before tapir kept one) are checked
// on their model alone (metadata "model_config"), or not at all.
void check_run_identity(const SafeTensorsFile& file, const std::string& path,
                        const std::string& config_path, const Json& fields,
                        const TrainConfig& reads, const IdentityAllowance& allowed);
inline void check_run_identity(const SafeTensorsFile& file, const std::string& path,
                               const std::string& config_path, const TrainConfig& config,
                               const IdentityAllowance& allowed) {
  check_run_identity(file, path, config_path, config.to_json(), config, allowed);
}

}  // namespace tapir
