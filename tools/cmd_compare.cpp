// `tapir compare`: train variants over the same seeds and compare how fast
// and how reliably they reach accuracy thresholds, on every evaluation split.
// This file declares the flags; lab/compare_job.h runs the comparison.
#include <memory>

#include "lab/compare_job.h"
#include "tools/commands.h"
#include "tools/protocols.h"
#include "tools/train_options.h"
#include "tools/variant_options.h"

namespace tapir {

struct CompareCommandOptions {
  TrainOptions train;
  CompareJob job;  // seeds, out, arch files, probes, quiet
  std::vector<std::string> variants;
  std::string threshold = "0.99";
  std::string protocol = default_protocol();
  std::vector<std::string> verdicts;
  std::vector<std::string> tune;           // KEY=V1,V2,...
  std::vector<std::string> tune_baseline;  // the baseline's own grid
};

Command add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare", "Train variants (baseline, architectures, options) over seeds and compare them");
  auto o = std::make_shared<CompareCommandOptions>();
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  cmd->add_option("--variant", o->variants,
                  "A variant: baseline, arch:FILE, or key=value,... train options (repeatable); "
                  "pool=NAME in several pools their runs into one more row");
  cmd->add_option("--arch-file", o->job.arch_files,
                  "Shorthand for --variant baseline --variant arch:FILE; repeated (the functions "
                  "of several searches), one more row pools their runs");
  cmd->add_option("--seeds", o->job.compare.seeds, "Seeds per variant (seed, seed+1, ...)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--threshold", o->threshold,
                  "Accuracies counted as solved, comma-separated (e.g. 0.9,0.99), each in (0, 1]")
      ->capture_default_str();
  cmd->add_option("--out", o->job.compare.out_dir, "Folder for the runs and the comparison")
      ->required();
  cmd->add_option("--verdict", o->verdicts,
                  "What each verdict against the baseline judges, as METRIC or METRIC:SPLIT "
                  "(repeatable): steps (to the first threshold: faster or slower), accuracy or "
                  "bits-per-byte (final: higher or lower); default steps on the first split, "
                  "and accuracy on test_long where the task has it");
  cmd->add_option("--tune", o->tune,
                  "Tune every variant first: KEY=V1,V2,... (repeatable; a grid over lr, "
                  "weight-decay, schedule, warmup, ...), each point trained on the train split "
                  "with --tune-seeds seeds of its own and scored on the held-out arch split by "
                  "the first verdict's metric; the best point's settings then run the --seeds");
  cmd->add_option("--tune-baseline", o->tune_baseline,
                  "The baseline's own grid in place of --tune's, KEY=V1,V2,... (repeatable): a "
                  "larger one makes a compute-matched arm (compare.md's Compute table)");
  cmd->add_option("--tune-seeds", o->job.tune.seeds, "Seeds per point of the --tune grid")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_flag("--quiet", o->job.quiet, "Print only the table");
  add_protocol_option(*cmd, o->protocol);
  // The probes run on every run after training (lab/compare_probe.h).
  auto* probes = "Probes of every run (docs/constraints.md)";
  cmd->add_flag("--layer-profile", o->job.probe.layers, "Per-layer loss profile of every run")
      ->group(probes);
  cmd->add_option("--robust", o->job.probe.noise,
                  "Metric under input noise for every run: gaussian,uniform,discrete")
      ->delimiter(',')
      ->group(probes);
  cmd->add_option("--gamma", o->job.gamma, "Noise strengths for --robust")
      ->capture_default_str()
      ->group(probes);
  cmd->add_option("--repeats", o->job.probe.repeats, "Noise seeds per gamma and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str()
      ->group(probes);
  cmd->add_option("--probe-split", o->job.probe.split, "Split the probes evaluate")
      ->capture_default_str()
      ->group(probes);
  cmd->add_option("--probe-limit", o->job.probe.limit, "Max examples per probe evaluation (0: all)")
      ->group(probes);
  return {cmd,
          [o, cmd]() {
            const ProtocolRecord protocol = apply_protocol(*cmd, o->protocol, ProtocolStage::stage2,
                                                           {o->train.config.steps, 0, false});
            CompareJob job = o->job;
            CompareOptions& c = job.compare;
            c.base = finish_train_options(*cmd, o->train);
            c.base.protocol = protocol;
            prepend_protocol_note(protocol, o->train.preset_note);
            job.note = settings_note(o->train, c.base.task, recommend_unless_given(*cmd, c.base));
            std::vector<std::string> specs = o->variants;
            for (auto it = job.arch_files.rbegin(); it != job.arch_files.rend(); ++it)
              specs.insert(specs.begin(), "arch:" + *it);
            if (!job.arch_files.empty()) specs.insert(specs.begin(), "baseline");
            if (specs.empty()) specs = {"baseline"};
            for (const std::string& s : specs) c.variants.push_back(parse_variant(s));
            c.thresholds = parse_thresholds(o->threshold);
            for (const std::string& text : o->verdicts)
              job.verdicts.push_back(parse_option("--verdict", text, parse_verdict_spec));
            for (const std::string& text : o->tune) job.tune.axes.push_back(parse_tune_axis(text));
            check_tune_axes(job.tune.axes);
            for (const std::string& text : o->tune_baseline)
              job.tune.baseline_axes.push_back(parse_tune_axis(text));
            check_tune_axes(job.tune.baseline_axes);
            TAPIR_CHECK(job.tune.baseline_axes.empty() || job.tune.enabled(),
                        "--tune-baseline is the baseline's grid beside --tune's; give --tune too");
            return run_compare_job(std::move(job), apply_variant);
          },
          Ranks::several};
}

}  // namespace tapir
