// `--preset NAME`: a named set of flags, applied for every flag of the
// command that the user did not give (on the command line or in a --config
// file), as if given there; what the user gives always wins. One preset,
// lm-afs: the setup of the authors' public code for the learned
// nonlinearities (idiap/lm-afs, trainLmAf.py), at any width and step count:
// the schedules' lengths are the reference's shares of the steps. Each flag
// carries the reference's setting it stands for (docs/experiments.md lists
// them).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "tasks/task.h"

namespace tapir {

struct PresetFlag {
  std::string flag;       // "--pos"
  std::string value;      // "rope"; "" for a flag that takes none
  std::string reference;  // the reference's setting it stands for
};

// What a preset's values depend on: the run's steps and, for a search, the
// search's (0: the run's), and whether the command searches (a search
// learns the functions a trained run keeps fixed).
struct PresetSteps {
  int64_t steps = 1000;
  int64_t search_steps = 0;
  bool search = false;
};

// The known presets' names, for --help and errors.
std::vector<std::string> preset_names();
// The flags of preset `name`; fails naming the known presets.
std::vector<PresetFlag> preset_flags(const std::string& name, const PresetSteps& steps);
// Sets each of `flags` that `cmd` has and that was not given, as if given;
// returns those it set (a preset's, a protocol's: tools/protocols.h).
std::vector<PresetFlag> apply_flags(CLI::App& cmd, const std::vector<PresetFlag>& flags);
// Sets each flag of the preset that `cmd` has and that was not given, as
// if given; returns those it set. Call before reading what was parsed.
std::vector<PresetFlag> apply_preset(CLI::App& cmd, const std::string& name,
                                     const PresetSteps& steps);
// "lm-afs: --pos rope --norm rms ... (a flag you give overrides its value)".
std::string preset_note(const std::string& name, const std::vector<PresetFlag>& applied);
// A search under lm-afs holds nothing out, as the reference: where the task
// takes arch-frac and the user gave none, it becomes 0 (the weights and the
// functions then both draw from all of D). Returns whether it did.
bool apply_preset_task_options(const std::string& name, const std::string& task,
                               TaskOptions& options);

}  // namespace tapir
