// `--protocol NAME`: the learned-nonlinearity method's settings by name, for
// search, compare and transfer. A protocol is a list of flags, each with
// the source it stands for (the ICLR paper's text, or the authors' public
// code, idiap/lm-afs trainLmAf.py), split by stage:
//   - Stage I, a search (`tapir search`, and transfer's searches): how the
//     functions are learned, and how the search's own models train;
//   - Stage II, every arm of a comparison, the baseline included: how the
//     fresh models that use the frozen functions (and GeLU) train.
// Each flag is applied as --preset's are (tools/presets.h): only where the
// command has it and the user did not give it, as if given; what the user
// gives always wins. The name and the flags it set are recorded in every
// run it set (TrainConfig::protocol: config.json, search.json).
// docs/protocols.md lists every setting with its source.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "optim/train_config.h"
#include "tools/presets.h"

namespace tapir {

enum class ProtocolStage { search, stage2 };

// "tapir", "paper", "authors": for --help, errors and completion.
std::vector<std::string> protocol_names();
// The default of search, compare and transfer: tapir's own defaults.
inline const char* default_protocol() {
  return "tapir";
}

// The flags of protocol `name` for `stage`, with the step counts their
// schedules are shares of (steps: the run's --steps N; search_steps: the
// search's S, 0 for N). Fails naming the known protocols.
std::vector<PresetFlag> protocol_flags(const std::string& name, ProtocolStage stage,
                                       const PresetSteps& steps);
// The task option a protocol sets in a search where the task takes it and
// the user gave none: {"arch-frac", "0"} for authors; empty otherwise.
std::vector<std::pair<std::string, std::string>> protocol_task_options(const std::string& name);

// Applies the protocol's flags for `stage` to `cmd` (those it has and the
// user did not give) and returns the record of what it set, name included.
ProtocolRecord apply_protocol(CLI::App& cmd, const std::string& name, ProtocolStage stage,
                              const PresetSteps& steps);
// Sets the protocol's task options in `options` for `task` where the task
// takes them and none was given; adds each to `record` as `flag` and
// name=value ("--opt arch-frac=0"; transfer: "--task-opt copy:arch-frac=0").
// Returns whether it set any.
bool apply_protocol_task_options(const std::string& name, const std::string& task,
                                 TaskOptions& options, ProtocolRecord& record,
                                 const std::string& flag = "--opt ");
// "protocol authors: using --schedule trapezoid ... (a flag you give
// overrides its value)", or "" when it set nothing.
std::string protocol_note(const ProtocolRecord& record);
// Puts protocol_note(record), when there is one, as the first line of
// `notes` (a command's first lines: the protocol's, the preset's, ...).
void prepend_protocol_note(const ProtocolRecord& record, std::string& notes);

// Registers --protocol on `cmd`, bound to `name`.
void add_protocol_option(CLI::App& cmd, std::string& name);

}  // namespace tapir
