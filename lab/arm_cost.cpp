// The compute of a comparison's arms (lab/arm_cost.h).
#include "lab/arm_cost.h"

#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "lab/compare.h"
#include "optim/compute.h"
#include "optim/search_folder.h"

namespace tapir {

namespace fs = std::filesystem;

WorkCost runs_cost(const std::vector<PlannedRun>& planned, const std::vector<SeedRun>& read) {
  WorkCost cost;
  if (planned.empty()) return cost;
  // Seeds differ, nothing else: one step's FLOPs serve every run.
  const double step = training_step_flops(planned.front().config);
  for (const SeedRun& run : read) {
    ++cost.count;
    cost.flops += step * static_cast<double>(run.steps_done);
    cost.wall_s += run.wall_s;
  }
  return cost;
}

WorkCost search_cost(const std::string& arch_file) {
  WorkCost cost;
  if (arch_file.empty()) return cost;
  const fs::path dir = fs::path(arch_file).parent_path();
  const fs::path config = dir / SearchFolder::kConfig, result = dir / SearchFolder::kResult;
  if (!fs::is_regular_file(config) || !fs::is_regular_file(result)) return cost;
  const SearchConfig search = read_json_file(config.string(), SearchConfig::from_json);
  const SearchOutcome outcome = read_json_file(result.string(), SearchOutcome::from_json);
  cost.count = 1;
  cost.flops = search_flops(search);
  cost.wall_s = outcome.wall_s >= 0 ? outcome.wall_s : std::nan("");
  return cost;
}

std::string flops_text(double flops) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", flops);
  return text;
}

namespace {

Json work_json(const WorkCost& w) {
  Json j = Json::object();
  j.set("count", w.count);
  j.set("flops", w.flops);
  if (std::isfinite(w.wall_s)) j.set("wall_s", w.wall_s);
  return j;
}

}  // namespace

Json arm_cost_json(const ArmCost& cost) {
  Json j = Json::object();
  j.set("flops", cost.flops());
  if (std::isfinite(cost.wall_s())) j.set("wall_s", cost.wall_s());
  j.set("runs", work_json(cost.runs));
  j.set("searches", work_json(cost.searches));
  j.set("tuning", work_json(cost.tuning));
  return j;
}

}  // namespace tapir
