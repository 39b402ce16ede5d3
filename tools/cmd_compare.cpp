// `tapir compare`: train variants over the same seeds and compare how fast
// and how reliably they reach accuracy thresholds, on every evaluation split.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "engine/dist.h"
#include "lab/compare.h"
#include "lab/compare_probe.h"
#include "lab/progress.h"
#include "optim/layer_eval.h"
#include "tasks/task.h"
#include "tools/commands.h"
#include "tools/protocols.h"
#include "tools/train_options.h"
#include "tools/variant_options.h"

namespace tapir {

namespace {

struct CompareCommandOptions {
  TrainOptions train;
  std::vector<std::string> variants;
  std::vector<std::string> arch;
  std::string out;
  int seeds = 5;
  std::string threshold = "0.99";
  bool quiet = false;
  ProbeOptions probe;
  std::string gamma = "0,0.25,0.5,1,1.5,2";
  std::string protocol = default_protocol();
  std::vector<std::string> verdicts;
};

// The probes run on every run after training (lab/compare_probe.h).
void add_probe_options(CLI::App& cmd, CompareCommandOptions& o) {
  auto* probes = "Probes of every run (docs/constraints.md)";
  cmd.add_flag("--layer-profile", o.probe.layers, "Per-layer loss profile of every run")
      ->group(probes);
  cmd.add_option("--robust", o.probe.noise,
                 "Metric under input noise for every run: gaussian,uniform,discrete")
      ->delimiter(',')
      ->group(probes);
  cmd.add_option("--gamma", o.gamma, "Noise strengths for --robust")
      ->capture_default_str()
      ->group(probes);
  cmd.add_option("--repeats", o.probe.repeats, "Noise seeds per gamma and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str()
      ->group(probes);
  cmd.add_option("--probe-split", o.probe.split, "Split the probes evaluate")
      ->capture_default_str()
      ->group(probes);
  cmd.add_option("--probe-limit", o.probe.limit, "Max examples per probe evaluation (0: all)")
      ->group(probes);
}

// Stops before anything trains unless every split a verdict names is one
// the task evaluates.
void check_verdict_splits(const TrainConfig& base, const std::vector<VerdictSpec>& verdicts) {
  const std::vector<std::string> splits = make_task(base.task, base.task_options)->eval_splits();
  std::string known;
  for (const std::string& s : splits) known += (known.empty() ? "" : ", ") + s;
  for (const VerdictSpec& v : verdicts)
    TAPIR_CHECK(v.split.empty() || std::find(splits.begin(), splits.end(), v.split) != splits.end(),
                "--verdict: task ", base.task, " evaluates no split ", quoted(v.split),
                " (its splits: ", known, ")");
}

}  // namespace

Command add_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compare", "Train variants (baseline, architectures, options) over seeds and compare them");
  auto o = std::make_shared<CompareCommandOptions>();
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  cmd->add_option("--variant", o->variants,
                  "A variant: baseline, arch:FILE, or key=value,... train options (repeatable); "
                  "pool=NAME in several pools their runs into one more row");
  cmd->add_option("--arch-file", o->arch,
                  "Shorthand for --variant baseline --variant arch:FILE; repeated (the functions "
                  "of several searches), one more row pools their runs");
  cmd->add_option("--seeds", o->seeds, "Seeds per variant (seed, seed+1, ...)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--threshold", o->threshold,
                  "Accuracies counted as solved, comma-separated (e.g. 0.9,0.99), each in (0, 1]")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Folder for the runs and the comparison")->required();
  cmd->add_option("--verdict", o->verdicts,
                  "What each verdict against the baseline judges, as METRIC or METRIC:SPLIT "
                  "(repeatable): steps (to the first threshold: faster or slower), accuracy or "
                  "bits-per-byte (final: higher or lower); default steps on the first split, "
                  "and accuracy on test_long where the task has it");
  cmd->add_flag("--quiet", o->quiet, "Print only the table");
  add_protocol_option(*cmd, o->protocol);
  add_probe_options(*cmd, *o);
  return {cmd,
          [o, cmd]() {
            CompareOptions c;
            const ProtocolRecord protocol = apply_protocol(*cmd, o->protocol, ProtocolStage::stage2,
                                                           {o->train.config.steps, 0, false});
            c.base = finish_train_options(*cmd, o->train);
            c.base.protocol = protocol;
            prepend_protocol_note(protocol, o->train.preset_note);
            const std::string note =
                settings_note(o->train, c.base.task, recommend_unless_given(*cmd, c.base));
            std::vector<std::string> specs = o->variants;
            for (auto it = o->arch.rbegin(); it != o->arch.rend(); ++it)
              specs.insert(specs.begin(), "arch:" + *it);
            if (!o->arch.empty()) specs.insert(specs.begin(), "baseline");
            if (specs.empty()) specs = {"baseline"};
            for (const std::string& s : specs) c.variants.push_back(parse_variant(s));
            c.seeds = o->seeds;
            c.thresholds = parse_thresholds(o->threshold);
            std::vector<VerdictSpec> verdicts;
            for (const std::string& text : o->verdicts)
              verdicts.push_back(parse_option("--verdict", text, parse_verdict_spec));
            check_verdict_splits(c.base, verdicts);
            c.out_dir = o->out;
            o->probe.gammas = parse_double_list(o->gamma, "--gamma");
            for (const std::string& kind : o->probe.noise) parse_noise_kind(kind);
            check_variants(c, apply_variant);  // all of it before the folder is touched
            check_pools(c.variants);
            Progress progress(o->quiet || !dist::is_root());  // rank 0 reports for the job
            if (!note.empty()) progress.line(note);
            c.progress = &progress;
            check_new_or_owned(o->out, "comparison folder");  // before anything is written
            const auto lock = lock_for_job(o->out, "comparison folder",
                                           {"compare.md", "compare.json", "report.html"});
            std::vector<VariantResult> results = run_compare(c, apply_variant);
            if (!dist::is_root()) return 0;  // rank 0 probes and writes the tables
            o->probe.threads = c.base.threads;
            const ProbeReport probe = probe_compare(results, o->probe);
            std::vector<VariantResult> pools = pool_named(results);
            if (o->arch.size() > 1) results.push_back(pool_arch_files(results, o->arch));
            for (VariantResult& pool : pools) results.push_back(std::move(pool));
            std::string table = compare_table_markdown(results, c.thresholds, verdicts);
            table += probe.markdown;
            Json json = parse_json(compare_json(results, c.thresholds, verdicts));
            if (!probe.markdown.empty()) json.set("probes", probe.json);
            write_file_atomic(o->out + "/compare.md", table);
            write_file_atomic(o->out + "/compare.json", to_json(json, 2) + "\n");
            std::printf("\n%s\nwrote %s/compare.md and compare.json\n", table.c_str(),
                        o->out.c_str());
            return 0;
          },
          Ranks::several};
}

}  // namespace tapir
