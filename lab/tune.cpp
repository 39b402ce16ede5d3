// Tuning each variant on a grid before a comparison (lab/tune.h).
#include "lab/tune.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "base/error.h"
#include "lab/report_text.h"
#include "tasks/task.h"

namespace tapir {

namespace fs = std::filesystem;

const std::vector<std::string>& tune_keys() {
  static const std::vector<std::string> keys = {"lr",           "weight-decay", "beta1",  "beta2",
                                                "optimizer",    "schedule",     "warmup", "decay",
                                                "min-lr-ratio", "clip"};
  return keys;
}

TuneAxis parse_tune_axis(const std::string& text) {
  const size_t eq = text.find('=');
  TuneAxis axis;
  axis.key = text.substr(0, eq);
  std::string keys;
  for (const std::string& k : tune_keys()) keys += (keys.empty() ? "" : ", ") + k;
  TAPIR_CHECK(eq != std::string::npos && eq > 0, "--tune: expected KEY=V1,V2,... (keys: ", keys,
              "), got ", tapir::quoted(text));
  TAPIR_CHECK(std::find(tune_keys().begin(), tune_keys().end(), axis.key) != tune_keys().end(),
              "--tune: ", tapir::quoted(axis.key), " is not a key it tunes (keys: ", keys, ")");
  std::stringstream in(text.substr(eq + 1));
  for (std::string value; std::getline(in, value, ',');) {
    TAPIR_CHECK(!value.empty(), "--tune: an empty value in ", tapir::quoted(text));
    TAPIR_CHECK(std::find(axis.values.begin(), axis.values.end(), value) == axis.values.end(),
                "--tune: ", tapir::quoted(value), " is listed twice in ", tapir::quoted(text));
    axis.values.push_back(value);
  }
  TAPIR_CHECK(!axis.values.empty(), "--tune: no values in ", tapir::quoted(text));
  return axis;
}

void check_tune_axes(const std::vector<TuneAxis>& axes) {
  std::set<std::string> seen;
  for (const TuneAxis& a : axes)
    TAPIR_CHECK(seen.insert(a.key).second, "--tune: ", tapir::quoted(a.key),
                " is given twice; list its values once (", a.key, "=V1,V2,...)");
}

TuneGoal tune_goal(const std::vector<VerdictSpec>& verdicts,
                   const std::vector<double>& thresholds) {
  TuneGoal goal;
  goal.threshold = thresholds.front();
  if (!verdicts.empty()) goal.metric = verdicts.front().metric;
  return goal;
}

std::string tune_goal_text(const TuneGoal& goal) {
  switch (goal.metric) {
    case VerdictMetric::steps: {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%g%%", 100 * goal.threshold);
      return std::string("median steps to ") + pct + " on arch";
    }
    case VerdictMetric::accuracy:
      return "median final accuracy on arch";
    case VerdictMetric::bits_per_byte:
      return "median final bits per byte on arch";
  }
  return "";
}

namespace {

using Point = std::vector<std::pair<std::string, std::string>>;  // key, value

// Every point of the grid, the first axis slowest.
std::vector<Point> grid_points(const std::vector<TuneAxis>& axes) {
  std::vector<Point> points = {{}};
  for (const TuneAxis& axis : axes) {
    std::vector<Point> next;
    for (const Point& p : points)
      for (const std::string& v : axis.values) {
        next.push_back(p);
        next.back().emplace_back(axis.key, v);
      }
    points = std::move(next);
  }
  return points;
}

std::string point_text(const Point& p, const char* sep = " ") {
  std::string s;
  for (const auto& [k, v] : p) s += (s.empty() ? "" : sep) + k + "=" + v;
  return s;
}

// A point's runs score by the goal, lower is better (accuracy negated), and
// ties go to the higher final accuracy, then to the earlier point.
struct Scored {
  double score = 0;           // in the goal's unit (steps, accuracy, bits)
  double rank = 0;            // lower is better
  double final_accuracy = 0;  // median on arch
};

Scored score_point(const VariantResult& r, const TuneGoal& goal) {
  const SplitSummary& arch = summary_split(r, "arch");
  Scored s;
  s.final_accuracy = arch.final_accuracy.median;
  switch (goal.metric) {
    case VerdictMetric::steps:
      s.score = arch.steps.front().median;
      s.rank = s.score;
      break;
    case VerdictMetric::accuracy:
      s.score = arch.final_accuracy.median;
      s.rank = -s.score;
      break;
    case VerdictMetric::bits_per_byte:
      TAPIR_CHECK(arch.final_bits_per_byte.count > 0, "--tune: the runs of ",
                  tapir::quoted(r.variant.name), " logged no bits per byte on arch");
      s.score = arch.final_bits_per_byte.median;
      s.rank = s.score;
      break;
  }
  return s;
}

// The variant at one point: its own items, the point's, and the tuning
// run's data (train split, scored on arch, arch held out even where the
// comparison trains on all of D with arch-frac 0).
Variant point_variant(const Variant& v, const Point& p, bool hold_out_arch) {
  Variant t{v.name + " @ " + point_text(p, ","), v.args, ""};
  for (const auto& [k, value] : p) t.args.push_back("--" + k + "=" + value);
  t.args.push_back("--train-on=train");
  t.args.push_back("--eval-on=arch");
  if (hold_out_arch) t.args.push_back(std::string("--arch-frac=") + kTuneArchFrac);
  return t;
}

// Whether the options of `config` set arch-frac to 0 (as the authors'
// protocol does: all of D trains the weights), so that tuning must hold an
// arch split out of its own. Left to the task's default, it holds one out.
bool arch_split_empty(const TrainConfig& config) {
  const TaskOptions options = config.task_options;
  const std::string given = options.get_string("arch-frac", "");
  return !given.empty() && std::stod(given) == 0;
}

}  // namespace

TunedVariants tune_variants(const CompareOptions& options, const ApplyVariant& apply_variant,
                            const TuneOptions& tune, const TuneGoal& goal) {
  check_tune_axes(tune.axes);
  check_tune_axes(tune.baseline_axes);
  TAPIR_CHECK(tune.seeds >= 1, "--tune-seeds must be at least 1, got ", tune.seeds);
  TAPIR_CHECK(tune.baseline_axes.empty() || !tune.axes.empty(),
              "--tune-baseline is the baseline's grid beside --tune's; give --tune too");
  const bool hold_out = arch_split_empty(options.base);
  TrainConfig base = options.base;
  base.seed = options.base.seed + kTuneSeedOffset;
  // Every point of every variant planned (and checked) before the first trains.
  struct Planned {
    Variant variant;
    std::vector<PlannedRun> runs;
  };
  std::vector<std::vector<Planned>> plans;
  std::vector<PlannedRun> all;
  for (const Variant& v : options.variants) {
    plans.emplace_back();
    for (const Point& p : grid_points(tune.axes_for(v.name))) {
      const Variant t = point_variant(v, p, hold_out);
      TrainConfig config = apply_variant(base, t);
      const std::string dir = (fs::path(options.out_dir) / "tune" / variant_folder(v.name) /
                               variant_folder(point_text(p, ",")))
                                  .string();
      plans.back().push_back({t, plan_variant(config, t, tune.seeds, dir)});
      all.insert(all.end(), plans.back().back().runs.begin(), plans.back().back().runs.end());
    }
    // The grid's keys leave the task alone: its arch split is checked once.
    const TrainConfig& first = plans.back().front().runs.front().config;
    TAPIR_CHECK(make_task(first.task, first.task_options)->eval_size("arch") > 0, "--tune: task ",
                first.task, " has no arch split to score settings on");
  }
  Progress silent(Progress::Style::quiet);
  Progress& progress = options.progress ? *options.progress : silent;
  std::string grids = std::to_string(grid_points(tune.axes).size()) + " settings";
  if (!tune.baseline_axes.empty())
    grids += " (the baseline " + std::to_string(grid_points(tune.baseline_axes).size()) + ")";
  progress.line("tuning " + std::to_string(options.variants.size()) + " variants over " + grids +
                " x " + std::to_string(tune.seeds) + " seeds, scored by " + tune_goal_text(goal));
  progress.plan(static_cast<int>(all.size()));
  train_all(all, progress);

  TunedVariants out;
  for (size_t k = 0; k < options.variants.size(); ++k) {
    const Variant& v = options.variants[k];
    const std::vector<TuneAxis>& axes = tune.axes_for(v.name);
    const std::vector<Point> points = grid_points(axes);
    WorkCost cost;
    std::vector<Scored> scores;
    Json point_list = Json::array();
    size_t best = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      const Planned& planned = plans[k][i];
      const VariantResult r = read_variant(planned.variant, planned.runs, {goal.threshold});
      cost.add(r.compute.runs);
      scores.push_back(score_point(r, goal));
      const Scored& s = scores.back();
      Json settings = Json::object();
      for (const auto& [key, value] : points[i]) settings.set(key, value);
      Json j = Json::object();
      j.set("settings", settings);
      if (std::isfinite(s.score))
        j.set("score", s.score);
      else
        j.set("score", "never");
      j.set("final_accuracy", s.final_accuracy);
      j.set("flops", r.compute.runs.flops);
      j.set("wall_s", r.compute.runs.wall_s);
      point_list.push_back(j);
      const Scored& b = scores[best];
      if (s.rank < b.rank || (s.rank == b.rank && s.final_accuracy > b.final_accuracy)) best = i;
    }
    Variant tuned = v;
    for (const auto& [key, value] : points[best]) tuned.args.push_back("--" + key + "=" + value);
    Json grid = Json::object();
    for (const TuneAxis& a : axes) {
      Json values = Json::array();
      for (const std::string& value : a.values) values.push_back(value);
      grid.set(a.key, values);
    }
    Json seeds = Json::array();
    for (int s = 0; s < tune.seeds; ++s) seeds.push_back(static_cast<int64_t>(base.seed + s));
    Json chosen = Json::object();
    for (const auto& [key, value] : points[best]) chosen.set(key, value);
    Json record = Json::object();
    record.set("split", "arch");
    record.set("arch_held_out",
               hold_out ? std::string("arch-frac=") + kTuneArchFrac + " of the training data"
                        : std::string("the task's"));
    record.set("score", tune_goal_text(goal));
    record.set("grid", grid);
    record.set("seeds", seeds);
    record.set("points", point_list);
    record.set("chosen", chosen);
    record.set("chosen_text", point_text(points[best]));
    record.set("runs", cost.count);
    record.set("flops", cost.flops);
    record.set("wall_s", cost.wall_s);
    out.variants.push_back(std::move(tuned));
    out.records.push_back(std::move(record));
    out.costs.push_back(cost);
  }
  return out;
}

}  // namespace tapir
