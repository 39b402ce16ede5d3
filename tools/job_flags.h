// The flags of `tapir train` and `tapir search` read into the jobs that lab/
// runs (lab/train_job.h, lab/search_job.h): a new job's configuration from
// the train options, a preset, a protocol and the task's recommendations,
// or, for --resume, only the values a resumed job may change. Sits in
// tools/, beside tools/train_options.h.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "lab/search_job.h"
#include "lab/train_job.h"
#include "tools/train_options.h"

namespace tapir {

// The job whose plain fields (out, resume, quiet, ...) are bound to `cmd`'s
// flags in `bound`, completed from the other flags: for a new run (no
// --resume) its config and settings note; for a resumed one the flags that
// may be given with --resume (--steps, --threads, --device) and are. Read
// after the preset and the protocol have set their flags.
TrainJob train_job_from_flags(CLI::App& cmd, TrainOptions& train, const TrainJob& bound);
// The same for a search, `protocol` its --protocol (tools/protocols.h).
SearchJob search_job_from_flags(CLI::App& cmd, TrainOptions& train, const std::string& protocol,
                                const SearchJob& bound);

}  // namespace tapir
