// Several variants' runs pooled as one (lab/compare.h: pool_variants).
#include <algorithm>

#include "base/error.h"
#include "lab/compare.h"
#include "lab/intervals.h"

namespace tapir {

namespace {

const SplitRun* find_split(const SeedRun& run, const std::string& split) {
  for (const SplitRun& s : run.splits)
    if (s.split == split) return &s;
  return nullptr;
}

// One vector per part of what `value` reads from each run's split (runs
// without the split give nothing).
template <typename Value>
std::vector<std::vector<double>> by_part(const VariantResult& pooled, const std::string& split,
                                         Value value) {
  std::vector<std::vector<double>> groups;
  for (const std::vector<size_t>& part : runs_by_part(pooled)) {
    groups.emplace_back();
    for (size_t k : part)
      if (const SplitRun* s = find_split(pooled.runs[k], split)) groups.back().push_back(value(*s));
  }
  std::erase_if(groups, [](const std::vector<double>& g) { return g.empty(); });
  return groups;
}

}  // namespace

std::vector<std::vector<size_t>> runs_by_part(const VariantResult& r) {
  std::vector<std::vector<size_t>> parts(std::max<size_t>(r.pooled.size(), 1));
  for (size_t k = 0; k < r.runs.size(); ++k)
    parts[r.pooled.empty() ? 0 : static_cast<size_t>(r.part_of_run[k])].push_back(k);
  return parts;
}

VariantResult pool_variants(const std::string& name,
                            const std::vector<const VariantResult*>& parts) {
  TAPIR_CHECK(parts.size() >= 2, "pooling needs at least two variants, got ", parts.size());
  std::vector<SeedRun> runs;
  std::vector<int> part_of_run;
  std::vector<std::string> pooled;
  for (size_t p = 0; p < parts.size(); ++p) {
    TAPIR_CHECK(parts[p]->thresholds == parts.front()->thresholds, "variant ",
                parts[p]->variant.name, " was summarised at other thresholds");
    pooled.push_back(parts[p]->variant.name);
    for (const SeedRun& run : parts[p]->runs) {
      runs.push_back(run);
      part_of_run.push_back(static_cast<int>(p));
    }
  }
  VariantResult r =
      summarise_variant(Variant{name, {}, {}}, std::move(runs), parts.front()->thresholds);
  r.pooled = std::move(pooled);
  for (const VariantResult* part : parts) r.compute.add(part->compute);
  r.part_of_run = std::move(part_of_run);
  // The intervals again, parts first, then seeds (the same streams as
  // summarise_variant's).
  const size_t thresholds = r.thresholds.size();
  for (SplitSummary& s : r.splits) {
    for (size_t t = 0; t < thresholds; ++t)
      s.steps_interval[t] = grouped_median_interval(
          by_part(r, s.split, [t](const SplitRun& run) { return run.steps_to[t]; }), t);
    s.final_accuracy_interval = grouped_median_interval(
        by_part(r, s.split, [](const SplitRun& run) { return run.final_accuracy; }), thresholds);
    s.best_loss_interval = grouped_median_interval(
        by_part(r, s.split, [](const SplitRun& run) { return run.best_loss; }), thresholds + 1);
    if (s.final_bits_per_byte.count > 0)
      s.final_bits_per_byte_interval = grouped_median_interval(
          by_part(r, s.split, [](const SplitRun& run) { return run.final_bits_per_byte; }),
          thresholds + 2);
  }
  return r;
}

VariantResult pool_arch_files(const std::vector<VariantResult>& results,
                              const std::vector<std::string>& arch_files) {
  std::vector<const VariantResult*> parts;
  for (const std::string& file : arch_files) {
    const auto it = std::find_if(results.begin(), results.end(), [&](const VariantResult& r) {
      return r.variant.name == "arch:" + file;
    });
    TAPIR_CHECK(it != results.end(), "no variant arch:", file, " to pool");
    parts.push_back(&*it);
  }
  return pool_variants("arch: " + std::to_string(parts.size()) + " searches", parts);
}

namespace {

// Pool names in the order they first appear, each with its variants.
std::vector<std::pair<std::string, std::vector<size_t>>> pools_of(
    const std::vector<const Variant*>& variants) {
  std::vector<std::pair<std::string, std::vector<size_t>>> pools;
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string& name = variants[i]->pool;
    if (name.empty()) continue;
    auto it =
        std::find_if(pools.begin(), pools.end(), [&](const auto& p) { return p.first == name; });
    if (it == pools.end()) it = pools.insert(pools.end(), {name, {}});
    it->second.push_back(i);
  }
  return pools;
}

}  // namespace

void check_pools(const std::vector<Variant>& variants) {
  std::vector<const Variant*> all;
  for (const Variant& v : variants) all.push_back(&v);
  for (const auto& [name, members] : pools_of(all))
    TAPIR_CHECK(members.size() >= 2, "pool '", name, "' has one variant (",
                variants[members[0]].name, "); pooling needs two or more with pool=", name);
}

std::vector<VariantResult> pool_named(const std::vector<VariantResult>& results) {
  std::vector<const Variant*> all;
  for (const VariantResult& r : results) all.push_back(&r.variant);
  std::vector<VariantResult> out;
  for (const auto& [name, members] : pools_of(all)) {
    std::vector<const VariantResult*> parts;
    for (size_t i : members) parts.push_back(&results[i]);
    out.push_back(pool_variants(name + ": " + std::to_string(parts.size()) + " pooled", parts));
  }
  return out;
}

}  // namespace tapir
