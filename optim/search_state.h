// A Stage I search's resume state (optim/search.h): what its resume file
// (optim/search_folder.h) holds after each evaluation, written with the
// resume codec (optim/resume_codec.h) and read back with every count
// checked against the stagger schedule before anything is used. The file
// holds, under no prefix, the shared functions (optim/search_functions.h)
// with their optimizer, the search's step and clock, and the accuracies so
// far; under "model-M/", each model's trainer state (optim/trainer.h), its
// start, generation and D_arch sampling RNG. Over ranks, rank 0 writes the
// models of every rank (optim/search_ranks.h) and each rank reads its own.
#pragma once
#include <string>

#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "optim/model_pool.h"
#include "optim/resume_codec.h"
#include "optim/search_config.h"
#include "optim/search_folder.h"
#include "optim/search_functions.h"
#include "optim/search_ranks.h"

namespace tapir {

// The state's own values; the tensors are restored in place, into the
// shared functions and the models of the pool.
struct SearchState {
  ResumeClock clock;      // the search's step, and its wall seconds so far
  SearchOutcome outcome;  // its accuracies so far (untrained, mean, model 0's)

  // Where model m stands, as `file` (read from `path`) says: read before
  // the model is built; restore checks it against the schedule.
  static ModelStart model_start(const SafeTensorsFile& file, const std::string& path, int m);
  // Reads the file back into `functions` and the models `pool` owns, every
  // count checked (errors name `path`); a tensor it does not restore is
  // damage. Nothing on disk changes.
  static SearchState restore(const SafeTensorsFile& file, const std::string& path, ModelPool& pool,
                             SharedFunctions& functions);
  // Writes the resume file into `folder`: the models' logs first (the file
  // never claims a step whose lines could still be lost), then the state.
  // Every rank calls it (over ranks). `identity`: what the search is
  // (optim/run_identity.h), added to the metadata.
  void save(const SearchFolder& folder, ModelPool& pool, SharedFunctions& functions,
            const Metadata& identity = {}) const;

 private:
  // The file's tensors and metadata (their data lives in host, or in
  // `gathered`): the shared state and this process's models, and on rank 0
  // the other ranks' models from `gathered`.
  void add(const ModelPool& pool, SharedFunctions& functions, HostBytes& host,
           std::vector<SafeTensorWrite>& writes, Metadata& meta,
           const GatheredModels& gathered = {}) const;
  // Model m's state, as the file holds it, and back.
  static void add_model(const ModelPool& pool, int m, HostBytes& host,
                        std::vector<SafeTensorWrite>& writes, Metadata& meta);
  static void restore_model(ModelPool& pool, int m, const SafeTensorsFile& file,
                            const std::string& path);
  // Before model m's state is read: its start, generation and step (from
  // the file's metadata) must be the ones the schedule gives at `step`.
  static void check_schedule(const ModelPool& pool, int m, int64_t step,
                             const SafeTensorsFile& file, const std::string& path);
};

}  // namespace tapir
