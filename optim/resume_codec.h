// The resume codec: a training loop's state packed into the tensors and
// metadata of a safetensors file (engine/safetensors.h) and read back, every
// counter, shape and value checked before anything is used. A run's resume
// file (optim/run_folder.h) holds one loop's state; a Stage I search's
// (optim/search_state.h) holds its shared functions' and one per model,
// each under a prefix. Knows no folder: the callers say which file.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/rng.h"
#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "optim/optimizer.h"

namespace tapir {

// The counters a resume file restores besides the tensors.
struct ResumeClock {
  int64_t step = 0;   // steps completed
  double wall_s = 0;  // wall-clock seconds the run has taken so far
};

// An RNG's state as the I32 tensor `name`, and back (errors name `path`).
// `rng` must already be on the seed and stream the config gives it: a state
// of another seed or stream is refused.
void add_rng_state(const std::string& name, const Rng& rng, HostBytes& host,
                   std::vector<SafeTensorWrite>& writes);
void read_rng_state(const SafeTensorsFile& file, const std::string& path, const std::string& name,
                    Rng& rng);

// A training loop's resumable state in a resume file: its parameters
// ("param.NAME"), optimizer state ("optim.NAME") and step count, sampling RNG
// ("data_rng", when not null) and clock, every name under `prefix`. A run's resume file
// holds one under no prefix; a Stage I search's holds one per model
// ("model-3/", optim/search_state.h). The tensors' data lives in `host` until the
// file is written.
void add_resume_state(const std::string& prefix, const std::vector<Parameter*>& params,
                      Optimizer& optimizer, const Rng* data_rng, ResumeClock clock, HostBytes& host,
                      std::vector<SafeTensorWrite>& writes, Metadata& meta);
// Reads what add_resume_state wrote under `prefix` back, checking every
// counter, shape and value (errors name `path`); nothing on disk changes.
// The optimizer may not have made more updates than the loop took steps,
// and a second moment may not be negative.
void read_resume_state(const SafeTensorsFile& file, const std::string& path,
                       const std::string& prefix, const std::vector<Parameter*>& params,
                       Optimizer& optimizer, Rng* data_rng, ResumeClock& clock);
// Fails unless the file's metadata 'format' is `expected`.
void check_format(const SafeTensorsFile& file, const std::string& path,
                  const std::string& expected);
// Fails naming the first tensor of the file not in `known`: a resume file
// holds nothing its reader does not restore. `whose`: "this run's state".
void reject_unknown_tensors(const SafeTensorsFile& file, const std::string& path,
                            const std::set<std::string>& known, const std::string& whose);
// A counter in a resume file's metadata, strictly: present, all digits, in
// range. A damaged file stops the resume before anything changes.
int64_t metadata_count(const SafeTensorsFile& file, const std::string& path,
                       const std::string& key);

}  // namespace tapir
