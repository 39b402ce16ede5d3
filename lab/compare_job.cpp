// `tapir compare`'s work (lab/compare_job.h).
#include "lab/compare_job.h"

#include <cstdio>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "base/json.h"
#include "engine/dist.h"
#include "lab/progress.h"
#include "optim/layer_eval.h"
#include "optim/model_run.h"

namespace tapir {

int run_compare_job(CompareJob job, const ApplyVariant& apply_variant) {
  CompareOptions& c = job.compare;
  check_verdict_splits(c.base, job.verdicts);
  job.probe.gammas = parse_double_list(job.gamma, "--gamma");
  for (const std::string& kind : job.probe.noise) parse_noise_kind(kind);
  const std::vector<TrainConfig> configs = check_variants(c, apply_variant);
  // The probes' split is one every variant's task has, before anything trains.
  if (job.probe.layers || !job.probe.noise.empty())
    for (const TrainConfig& config : configs) {
      try {
        make_training_task(config)->eval_size(job.probe.split);  // names the task's splits
      } catch (const Error& e) {
        fail("--probe-split: ", e.what());
      }
    }
  check_pools(c.variants);
  Progress progress(job.quiet || !dist::is_root());  // rank 0 reports for the job
  if (!job.note.empty()) progress.line(job.note);
  c.progress = &progress;
  const std::string& out = c.out_dir;
  check_new_or_owned(out, "comparison folder");  // before anything is written
  const auto lock =
      lock_for_job(out, "comparison folder", {"compare.md", "compare.json", "report.html"});
  TunedVariants tuned;
  if (job.tune.enabled()) {
    tuned = tune_variants(c, apply_variant, job.tune, tune_goal(job.verdicts, c.thresholds));
    c.variants = tuned.variants;
  }
  std::vector<VariantResult> results = run_compare(c, apply_variant);
  if (!dist::is_root()) return 0;
  for (size_t k = 0; k < tuned.records.size(); ++k) {
    results[k].tuning = tuned.records[k];
    results[k].compute.tuning = tuned.costs[k];
  }  // rank 0 probes and writes the tables
  job.probe.threads = c.base.threads;
  const ProbeReport probe = probe_compare(results, job.probe);
  std::vector<VariantResult> pools = pool_named(results);
  if (job.arch_files.size() > 1) results.push_back(pool_arch_files(results, job.arch_files));
  for (VariantResult& pool : pools) results.push_back(std::move(pool));
  std::string table = compare_table_markdown(results, c.thresholds, job.verdicts);
  table += probe.markdown;
  table += tuning_markdown(results);
  table += compute_markdown(results);
  Json json = parse_json(compare_json(results, c.thresholds, job.verdicts));
  if (!probe.markdown.empty()) json.set("probes", probe.json);
  write_file_atomic(out + "/compare.md", table);
  write_file_atomic(out + "/compare.json", to_json(json, 2) + "\n");
  std::printf("\n%s\nwrote %s/compare.md and compare.json\n", table.c_str(), out.c_str());
  return 0;
}

}  // namespace tapir
