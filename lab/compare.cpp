// Training, reusing and summarising the runs of a comparison (lab/compare.h).
#include "lab/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "base/file_io.h"
#include "base/json.h"
#include "engine/dist.h"
#include "lab/progress.h"
#include "lab/report_text.h"
#include "optim/model_run.h"
#include "optim/trainer.h"
#include "tasks/task.h"
#include "tasks/text.h"

namespace tapir {

namespace fs = std::filesystem;

std::vector<double> parse_thresholds(const std::string& text) {
  const std::vector<double> thresholds = parse_double_list(text, "--threshold");
  for (size_t i = 0; i < thresholds.size(); ++i) {
    const double t = thresholds[i];
    TAPIR_CHECK(t > 0 && t <= 1, "--threshold: ", t, " is not an accuracy in (0, 1] (got '", text,
                "')");
    for (size_t k = 0; k < i; ++k)
      TAPIR_CHECK(thresholds[k] != t, "--threshold: ", t, " is listed twice (got '", text, "')");
  }
  return thresholds;
}

namespace {

// The entry of `name` in `items` (matched on .split or .key), appended when absent.
template <typename T, typename Key>
T& entry(std::vector<T>& items, Key T::*key, const std::string& name) {
  for (T& item : items)
    if (item.*key == name) return item;
  items.emplace_back();
  items.back().*key = name;
  return items.back();
}

}  // namespace

SeedRun read_run(const std::string& dir, const std::vector<double>& thresholds) {
  SeedRun r;
  r.dir = dir;
  r.build = recorded_build(dir);
  const std::string path = (fs::path(dir) / "metrics.jsonl").string();
  read_json_lines(path, [&r](const Json& j) {
    SplitRun& split = entry(r.splits, &SplitRun::split, j.at("split").as_string());
    const int64_t step = j.at("step").as_int();
    const double seconds = j.at("wall_s").as_double();
    split.accuracy.push_back({step, j.at("accuracy").as_double(), seconds});
    r.steps_done = std::max(r.steps_done, step);
    r.wall_s = std::max(r.wall_s, seconds);
    split.loss.push_back({step, j.at("loss").as_double(), seconds});
    const Json* bits = j.find("bits_per_byte");
    split.final_bits_per_byte = bits != nullptr && bits->is_number()
                                    ? bits->as_double()
                                    : std::numeric_limits<double>::quiet_NaN();
    split.final_groups.clear();  // only the last evaluation's groups count
    if (const Json* groups = j.find("groups")) {
      r.group_by = j.at("group_by").as_string();
      for (const auto& [key, g] : groups->as_object())
        split.final_groups.push_back({key, g.at("accuracy").as_double()});
    }
  });
  TAPIR_CHECK(!r.splits.empty(), path, ": no evaluations logged");
  for (SplitRun& split : r.splits) {
    for (double threshold : thresholds) {
      split.steps_to.push_back(steps_to_threshold(split.accuracy, threshold));
      split.seconds_to.push_back(seconds_to_threshold(split.accuracy, threshold));
    }
    split.final_accuracy = split.accuracy.back().value;
    split.best_loss = split.loss.front().value;
    for (const CurvePoint& p : split.loss) split.best_loss = std::min(split.best_loss, p.value);
  }
  return r;
}

VariantResult summarise_variant(const Variant& variant, std::vector<SeedRun> runs,
                                const std::vector<double>& thresholds) {
  TAPIR_CHECK(!runs.empty(), "variant ", variant.name, ": no runs to summarise");
  VariantResult vr;
  vr.variant = variant;
  vr.thresholds = thresholds;
  vr.runs = std::move(runs);
  // Values over seeds, split by split; a split a run did not log has no value from it.
  struct Values {
    std::string split;
    std::vector<std::vector<double>> steps, seconds;  // [threshold][run]
    std::vector<double> finals, losses, bits;         // bits: runs that logged bits per byte
    std::vector<std::pair<std::string, std::vector<double>>> groups;  // key, [run]
  };
  std::vector<Values> values;
  for (const SeedRun& run : vr.runs) {
    if (vr.group_by.empty()) vr.group_by = run.group_by;
    for (const SplitRun& split : run.splits) {
      TAPIR_CHECK(split.steps_to.size() == thresholds.size(), run.dir,
                  ": read for a different number of thresholds");
      Values& v = entry(values, &Values::split, split.split);
      v.steps.resize(thresholds.size());
      v.seconds.resize(thresholds.size());
      for (size_t t = 0; t < thresholds.size(); ++t) {
        v.steps[t].push_back(split.steps_to[t]);
        v.seconds[t].push_back(split.seconds_to[t]);
      }
      v.finals.push_back(split.final_accuracy);
      v.losses.push_back(split.best_loss);
      if (std::isfinite(split.final_bits_per_byte)) v.bits.push_back(split.final_bits_per_byte);
      for (const GroupAccuracy& g : split.final_groups) {
        auto it = std::find_if(v.groups.begin(), v.groups.end(),
                               [&](const auto& kv) { return kv.first == g.key; });
        if (it == v.groups.end()) it = v.groups.insert(v.groups.end(), {g.key, {}});
        it->second.push_back(g.accuracy);
      }
    }
  }
  for (const Values& v : values) {
    SplitSummary s;
    s.split = v.split;
    // Each interval its own RNG stream: threshold t, then accuracy, loss.
    for (size_t t = 0; t < thresholds.size(); ++t) {
      s.steps.push_back(spread(v.steps[t]));
      s.seconds.push_back(spread(v.seconds[t]));
      s.steps_interval.push_back(median_interval(v.steps[t], t));
    }
    s.final_accuracy = spread(v.finals);
    s.best_loss = spread(v.losses);
    s.final_accuracy_interval = median_interval(v.finals, thresholds.size());
    s.best_loss_interval = median_interval(v.losses, thresholds.size() + 1);
    if (!v.bits.empty() && v.bits.size() == v.finals.size()) {
      s.final_bits_per_byte = spread(v.bits);
      s.final_bits_per_byte_interval = median_interval(v.bits, thresholds.size() + 2);
    }
    for (const auto& [key, accuracies] : v.groups) s.groups.push_back({key, spread(accuracies)});
    vr.splits.push_back(std::move(s));
  }
  return vr;
}

std::string variant_folder(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '.' ? c : '_';
  return s.size() > 80 ? s.substr(s.size() - 80) : s;
}

std::vector<PlannedRun> plan_variant(const TrainConfig& config, const Variant& variant, int seeds,
                                     const std::string& dir) {
  TAPIR_CHECK(seeds >= 1, "seeds must be at least 1, got ", seeds);
  std::vector<PlannedRun> runs;
  for (int s = 0; s < seeds; ++s) {
    TrainConfig seeded = config;
    seeded.seed = config.seed + static_cast<uint64_t>(s);
    runs.push_back({seeded, (fs::path(dir) / ("seed-" + std::to_string(seeded.seed))).string(),
                    variant.name + " seed " + std::to_string(seeded.seed)});
  }
  return runs;
}

VariantResult read_variant(const Variant& variant, const std::vector<PlannedRun>& runs,
                           const std::vector<double>& thresholds) {
  std::vector<SeedRun> read;
  for (const PlannedRun& planned : runs) {
    SeedRun run = read_run(planned.dir, thresholds);
    run.seed = planned.config.seed;
    read.push_back(std::move(run));
  }
  const WorkCost cost = runs_cost(runs, read);
  VariantResult r = summarise_variant(variant, std::move(read), thresholds);
  r.compute.runs = cost;
  if (!runs.empty()) r.compute.searches = search_cost(runs.front().config.arch_file);
  return r;
}

std::vector<TrainConfig> check_variants(const CompareOptions& options,
                                        const ApplyVariant& apply_variant) {
  TAPIR_CHECK(!options.variants.empty(), "compare needs at least one variant");
  std::map<std::string, std::string> folders;  // slug -> the variant that has it
  std::vector<TrainConfig> configs;
  for (const Variant& variant : options.variants) {
    TAPIR_CHECK(!variant.name.empty(),
                "--variant: expected baseline, arch:FILE or key=value items, got an empty name");
    const auto [at, fresh] = folders.emplace(variant_folder(variant.name), variant.name);
    TAPIR_CHECK(fresh, "variants ", quoted(at->second), " and ", quoted(variant.name),
                at->second == variant.name ? " are the same" : " would share one folder",
                "; give each variant once");
    configs.push_back(apply_variant(options.base, variant));
    // The model as its runs will build it: the architecture and poly files
    // are read and checked against it now, not after the variants before
    // it have trained.
    build_run(configs.back());
  }
  // One search counted once: two variants alike but for the path of an
  // architecture file with the same bytes (a.safetensors and
  // ./a.safetensors, or a copy) would pool one search as two. Rows of an
  // explicit pool=NAME are the user's own grouping (controls of several
  // searches may well be the same function) and are left as given.
  std::map<std::string, size_t> by_content;
  for (size_t k = 0; k < configs.size(); ++k) {
    if (configs[k].arch_file.empty() || !options.variants[k].pool.empty()) continue;
    TrainConfig keyed = configs[k];
    keyed.arch_file = file_fingerprint(configs[k].arch_file);
    const auto [at, fresh] = by_content.emplace(to_json(keyed.to_json()), k);
    TAPIR_CHECK(fresh, "variants ", quoted(options.variants[at->second].name), " and ",
                quoted(options.variants[k].name),
                " are one search: ", configs[at->second].arch_file, " and ", configs[k].arch_file,
                " hold the same bytes (", keyed.arch_file, "); give each search once");
  }
  return configs;
}

std::vector<VariantResult> run_compare(const CompareOptions& options,
                                       const ApplyVariant& apply_variant) {
  const std::vector<TrainConfig> configs = check_variants(options, apply_variant);
  Progress silent(Progress::Style::quiet);
  Progress& progress = options.progress ? *options.progress : silent;
  std::vector<std::vector<PlannedRun>> plans;
  std::vector<PlannedRun> all;
  for (size_t k = 0; k < configs.size(); ++k) {
    plans.push_back(plan_variant(
        configs[k], options.variants[k], options.seeds,
        (fs::path(options.out_dir) / variant_folder(options.variants[k].name)).string()));
    all.insert(all.end(), plans.back().begin(), plans.back().end());
  }
  progress.plan(static_cast<int>(all.size()));
  train_all(all, progress);
  std::vector<VariantResult> results;
  for (size_t k = 0; k < configs.size(); ++k)
    results.push_back(read_variant(options.variants[k], plans[k], options.thresholds));
  return results;
}

}  // namespace tapir
