// `tapir train`'s work once its flags are read (tools/cmd_train.cpp): a new
// run started in its folder, or a stopped one continued, trained to the end
// with progress lines, then when its first evaluation split peaked and how
// long it took. Under mpirun the ranks train one run together (data
// parallel, optim/data_parallel.h); rank 0 owns the folder and reports.
// Sits in lab/, on optim/trainer.h and lab/progress.h.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "engine/device.h"
#include "optim/train_config.h"

namespace tapir {

struct TrainJob {
  std::string out;          // a new run's folder
  std::string resume;       // or the run to continue ("": a new run)
  bool force = false;       // a new run may replace the run folder in out
  bool quiet = false;       // nothing printed but errors
  int64_t log_every = 0;    // a line of loss, gradient norm and lr every N steps (0: none)
  bool print_tape = false;  // the first step's tape on stdout (autograd/tape_print.h)
  // A new run: its configuration, validated, and the note of the settings
  // applied to it ("" when none).
  TrainConfig config;
  std::string note;
  // A resumed run: what replaces its saved values (none: as saved).
  std::optional<int64_t> steps;
  std::optional<Device> device;
  std::optional<int> threads;
};

// Starts or resumes the run, trains it to its last step and reports; the
// exit code (0). A run inside a comparison or search that is running is
// that job's to write, and is refused.
int run_train_job(TrainJob job);

}  // namespace tapir
