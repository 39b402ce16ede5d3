// What an arm of a comparison cost to train, on one scale for every arm:
// model FLOPs (optim/compute.h) and wall seconds, of its runs, of the
// Stage I searches that made its learned functions, and of the tuning that
// chose its settings (lab/tune.h). Every verdict is read beside it
// (compare.md's "Compute" table, compare.json's "compute"). Sits in lab/.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "base/json.h"

namespace tapir {

struct PlannedRun;
struct SeedRun;

// One kind of work: how many runs (or searches), their FLOPs and their wall
// seconds (NaN where a part's wall time was not recorded).
struct WorkCost {
  int count = 0;
  double flops = 0, wall_s = 0;
  void add(const WorkCost& o) {
    count += o.count;
    flops += o.flops;
    wall_s += o.wall_s;
  }
};

struct ArmCost {
  WorkCost runs, searches, tuning;
  double flops() const { return runs.flops + searches.flops + tuning.flops; }
  double wall_s() const { return runs.wall_s + searches.wall_s + tuning.wall_s; }
  void add(const ArmCost& o) {
    runs.add(o.runs);
    searches.add(o.searches);
    tuning.add(o.tuning);
  }
};

// The runs of one configuration as read back (their steps taken and wall
// seconds): their model FLOPs at the planned configuration.
WorkCost runs_cost(const std::vector<PlannedRun>& planned, const std::vector<SeedRun>& read);
// The search whose folder holds `arch_file` (its search.json and
// search_result.json beside it); nothing (count 0) when the file is not in
// a search folder or is empty.
WorkCost search_cost(const std::string& arch_file);

// "4.1e12" (FLOPs), three significant digits.
std::string flops_text(double flops);
Json arm_cost_json(const ArmCost& cost);

}  // namespace tapir
