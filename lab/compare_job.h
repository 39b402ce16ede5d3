// `tapir compare`'s work once its flags are read (tools/cmd_compare.cpp):
// the variants checked before the folder is touched, trained over seeds
// (lab/compare.h), probed (lab/compare_probe.h), pooled, and their table
// written as compare.md and compare.json and printed. Under mpirun the
// ranks share the runs; rank 0 reports, probes and writes. Sits in lab/, on
// lab/compare.h.
#pragma once
#include <string>
#include <vector>

#include "lab/compare.h"
#include "lab/compare_probe.h"
#include "lab/tune.h"

namespace tapir {

struct CompareJob {
  CompareOptions compare;                    // its progress is set here
  std::vector<std::string> arch_files;       // --arch-file: several pool their runs into one row
  std::vector<VerdictSpec> verdicts;         // none: default_verdicts
  ProbeOptions probe;                        // gammas from `gamma`, threads from the base config
  TuneOptions tune;                          // --tune: each variant tuned on arch first
  std::string gamma = "0,0.25,0.5,1,1.5,2";  // the probes' noise strengths, comma-separated
  std::string note;                          // the settings note, printed first ("": none)
  bool quiet = false;
};

// Runs the comparison into job.compare.out_dir; the exit code (0).
int run_compare_job(CompareJob job, const ApplyVariant& apply_variant);

}  // namespace tapir
