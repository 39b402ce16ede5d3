// The run folder, the one owner of a training run's files:
//   config.json             the TrainConfig (everything needed to re-run)
//   metrics.jsonl           one JSON object per evaluation and split
//   checkpoint.safetensors  the model's parameters (+ config in metadata)
//   resume.safetensors      parameters, optimizer state, step, the sampling
//                           RNG state and what a trainer adds, packed by
//                           the resume codec (optim/resume_codec.h)
//   arch.safetensors        the learned functions, when the model has any
//                           (nn/architecture.h)
//   tokenizer.model         a copy of the text task's subword tokenizer,
//                           when it has one (optim/tokenizer_copy.h)
// A tapir folder (optim/owned_folder.h: the marker, the writes, the logs
// cut back on resume). Above nn and the optimizers; the training loop
// (optim/trainer.h) and open_run (optim/model_run.h) use it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json.h"
#include "engine/rng.h"
#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "nn/transformer.h"
#include "optim/optimizer.h"
#include "optim/owned_folder.h"
#include "optim/resume_codec.h"
#include "optim/tokenizer_copy.h"
#include "optim/train_config.h"

namespace tapir {

class RunFolder : public OwnedFolder {
 public:
  static constexpr const char* kConfig = "config.json";
  static constexpr const char* kMetrics = "metrics.jsonl";
  static constexpr const char* kCheckpoint = "checkpoint.safetensors";
  // Written by compare, transfer and robust-compare when a run completes
  // (lab/compare.h); holds the step count and the fingerprints of its files.
  static constexpr const char* kFinished = "finished";
  // Written with a run that train, compare, transfer or robust-compare
  // start: the fingerprints of the files it reads (input_fingerprints).
  static constexpr const char* kInputs = "inputs.json";

  // The kind its marker names (base/folder_lock.h).
  static constexpr const char* kKind = "run folder";
  // The names of the files a run writes through write_file_atomic: their
  // temporaries are removed when a writer takes the lock.
  static std::vector<std::string> written();

  // A run without files when `dir` is empty.
  explicit RunFolder(std::string dir = "");

  // Whether the folder holds anything; fails, changing nothing, if it does
  // unless force and it is tapir's run folder (its marker, or a config.json
  // that reads as a run's).
  bool check_replaceable(bool force) const;
  // Opens the folder for a fresh run: check_replaceable, then removes the
  // run's files if the folder held anything, marks it and writes config.json.
  void start_fresh(const TrainConfig& config, bool force) const;
  void write_config(const TrainConfig& config) const;
  // config.json, strictly; with check_task, the task is also built from its
  // name and options, so a bad option fails naming this file.
  TrainConfig read_config(bool check_task = true) const;
  // Points the task option `tokenizer` at the folder's copy when it has one
  // (write_config puts the given path back).
  void use_own_tokenizer(TrainConfig& config) const;

  // The files a run reads besides its folder, by path, with their
  // fingerprints now: its architecture file, its tokenizer, and a text
  // task's corpus (as the task reads it: a directory's files in order),
  // under the `path` option's value (a missing file is left out: what reads
  // it fails naming it). Taken before the task reads them, so a file
  // changed meanwhile shows at the next check.
  static Json input_fingerprints(const TrainConfig& config);
  // Writes inputs.json.
  void record_inputs(const Json& fingerprints) const;
  // Fails unless each file input_fingerprints(config) names holds what
  // inputs.json recorded when the run started: "<run> trained with other
  // contents of F (inputs.json records ..., the file is ... now); <remedy>",
  // with `run` e.g. "DIR holds a run". The folder's copy of the tokenizer
  // (which a resumed run reads) is the run's own and not checked. Without
  // inputs.json (a run from
  // before tapir kept it) that fails too when required, and passes
  // unchecked otherwise.
  void check_same_inputs(const TrainConfig& config, bool required, const std::string& run,
                         const std::string& remedy) const;

  void append_metrics(const Json& line) const;
  // Drops the metrics lines logged after `step`, so a resumed run's file
  // reads as if it had never been interrupted. A torn last line (a write
  // cut short by a crash) is dropped too; the return value says what was
  // dropped ("" when nothing). Any other unreadable line is an error naming
  // its line number.
  std::string drop_metrics_after(int64_t step) const;
  // Flushes metrics.jsonl to the disk (with each checkpoint).
  void sync_metrics() const;

  // checkpoint.safetensors, and arch.safetensors when the model has learned
  // functions (ready for `train --arch` and `plot arch`).
  // `identity`: what the run is (optim/run_identity.h), added to the metadata.
  void save_checkpoint(Transformer& model, const TrainConfig& config, int64_t step,
                       const Metadata& identity = {}) const;
  // Reads the checkpoint at `path` and checks that config.json (as `config`
  // reads it; the task options in `overridden` are the reader's own) and the
  // files the run reads are what it was trained with (optim/run_identity.h);
  // load_parameters (nn/checkpoint.h) then fills a model from it.
  SafeTensorsFile read_checkpoint(const std::string& path, const TrainConfig& config,
                                  const TaskOptions& overridden) const;

  // The resume file is self-contained (parameters included), so a crash
  // between the checkpoint and resume writes cannot pair weights with the
  // wrong optimizer state. `extra` tensors and metadata follow the loop's
  // own (their data must stay alive until this returns).
  void save_resume(const std::vector<Parameter*>& params, Optimizer& optimizer, const Rng& data_rng,
                   ResumeClock clock, const std::vector<SafeTensorWrite>& extra,
                   const Metadata& extra_meta) const;
  // Reads the resume file and checks its format label and that config.json
  // (as `config` reads it, the tokenizer option naming the run's copy) and
  // the files the run reads are what it was trained with
  // (optim/run_identity.h; a resume sets the steps, device and threads anew).
  SafeTensorsFile read_resume(const TrainConfig& config) const;
  // Reads that file back into params, the optimizer (state and step count),
  // data_rng and clock. Everything is checked (counters, shapes, finite
  // values) before anything is returned; nothing on disk changes.
  void load_resume(const SafeTensorsFile& resume, const std::vector<Parameter*>& params,
                   Optimizer& optimizer, Rng& data_rng, ResumeClock& clock) const;
};

// The run folder of `path`: the folder itself, or the folder a checkpoint
// file is in.
std::string run_folder_of(const std::string& path);

// The files a command that opens the run at `path` (a folder or a checkpoint
// file) reads: `path`, its folder's config.json, checkpoint and
// architecture file, and the architecture file `arch_file` it names (if
// any). An output among them is refused (refuse_output_over_inputs).
std::vector<std::string> run_input_files(const std::string& path, const std::string& arch_file);

}  // namespace tapir
