// Command-line options shared by the commands that build a training run
// (train, compare, search, transfer, robust-compare): model, optimizer,
// schedule, loop and task options, bound to a TrainConfig.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "optim/train_config.h"
#include "tools/options.h"

namespace tapir {

struct TrainOptions {
  TrainConfig config;
  std::vector<std::string> task_opts;  // "name=value" from --opt
  // The splines' grids, made from their options in finish_train_options;
  // add_train_options starts them from `config`.
  SplineGridOptions mlp_grid{"spline", SplineConfig{}.grid};
  SplineGridOptions attn_grid{"attn-spline", SplineConfig{}.grid};
  SplineGridOptions attn_fn_grid{"attn-fn", default_attn_fn_spline().grid};
  std::string alpha = "0.05";  // --alpha: one rate or one per layer
  std::string mlp_poly;        // --mlp-poly: a poly file (nn/polynomial.h)
  std::string preset;          // --preset NAME (tools/presets.h)
  std::string preset_note;     // what finish_train_options applied of it, or ""
};

// Registers the options on `cmd`. Task options are given as --opt name=value
// or, after --task, as plain --name value (collected from CLI11's extras).
void add_train_options(CLI::App& cmd, TrainOptions& o);
// Appends "[train's default: X]" to the help of every option of `cmd` whose
// default differs from `tapir train`'s; a command that changes a default
// calls it after add_train_options.
void note_defaults_unlike_train(CLI::App& cmd);
// Fills o.config from what was parsed (the --preset's flags not given, then
// spline grids, task and constraint options) and validates it.
TrainConfig finish_train_options(CLI::App& cmd, TrainOptions& o);

// Applies c.task's recommended settings (optim/recommend.h) for every flag
// not given on `cmd`'s command line or in its --config file, and returns
// those applied. Commands call it once, after finish_train_options.
std::vector<TaskSetting> recommend_unless_given(const CLI::App& cmd, TrainConfig& c);
// Whether a flag of `cmd` was given (command line or --config file), for
// commands that apply recommendations per task (transfer).
std::function<bool(const std::string&)> given_on(const CLI::App& cmd);
// "modadd: using the task's recommended --layers 1 ... (a flag you give
// overrides its value)", or "" when nothing was applied.
std::string recommended_note(const std::string& task, const std::vector<TaskSetting>& applied);
// The preset's note (TrainOptions::preset_note) and the recommended one, a line
// each; "" when neither applied anything.
std::string settings_note(const TrainOptions& o, const std::string& task,
                          const std::vector<TaskSetting>& applied);

// Sets task options from `--opt name=value` values and from the arguments a
// command left over (CLI11's extras: `--name value` or `--name=value`).
// Shared by every command that takes task options (train, eval, tasks show).
// The unknown arguments a command was given, gathered from it and every app
// above it (CLI11 passes them up with fallthrough).
std::vector<std::string> extra_arguments(const CLI::App& cmd);
void set_task_options(const std::vector<std::string>& opts, const std::vector<std::string>& extras,
                      TaskOptions& into);

// A resumed run or search continues as its saved file (`saved`: "the run
// as its config.json") says: besides --resume, only the flags in `allowed`
// may be given (`allowed_text` lists them for the message), and no extra
// argument.
void check_resume_flags(const CLI::App& cmd, const std::set<std::string>& allowed,
                        const std::string& saved, const std::string& allowed_text);

}  // namespace tapir
