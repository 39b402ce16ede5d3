// `tapir robust-compare` (lab/robust_compare.h): the runs of both arms, their
// measurements, and the tables and summary over seeds.
#include "lab/robust_compare.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "lab/intervals.h"
#include "lab/progress.h"
#include "lab/robust_report.h"
#include "lab/run_jobs.h"
#include "optim/model_run.h"
#include "tasks/task.h"

namespace tapir {

namespace {

// Values per arm and seed of one quantity.
using PerArm = std::array<std::vector<double>, 2>;
// The arms' names: "erm" and the constrained one's.
using ArmNames = std::array<std::string, 2>;

// The constrained arm minus ERM, seed by seed (the runs of one seed share the
// initialisation and the data order).
std::vector<double> paired_difference(const PerArm& v) {
  std::vector<double> d;
  for (size_t i = 0; i < v[0].size() && i < v[1].size(); ++i) d.push_back(v[1][i] - v[0][i]);
  return d;
}

// Each arm's mean +- std, and the paired difference's mean with its 95%
// bootstrap interval over seeds.
void print_row(const std::string& label, const PerArm& v) {
  std::printf("%10s  %22s  %22s  %28s\n", label.c_str(), mean_std_text(v[0]).c_str(),
              mean_std_text(v[1]).c_str(),
              format_difference(mean_interval(paired_difference(v))).c_str());
}

// The paired difference's mean +- std, its seeds, and its mean's 95%
// interval ("lo", "hi").
Json difference_json(const PerArm& v) {
  const std::vector<double> d = paired_difference(v);
  const Interval mean = mean_interval(d);
  return mean_std_json(d).set("lo", mean.lo).set("hi", mean.hi);
}

// Sets each arm's mean +- std and their paired difference on `j`.
Json& set_arms(Json& j, const ArmNames& arms, const PerArm& v) {
  for (int a = 0; a < 2; ++a) j.set(arms[a], mean_std_json(v[a]));
  j.set("difference", difference_json(v));
  return j;
}

// What the evaluation of every run measured, per arm.
struct Measures {
  std::vector<PerArm> layer_loss;
  PerArm monotone;             // per run: 1 if its profile is monotone, else 0
  int decreasing[2] = {0, 0};  // layers with f_l < f_{l-1}
  std::vector<std::string> splits;
  std::vector<PerArm> split_metric;
  std::vector<std::vector<PerArm>> noise_metric;  // [noise][gamma]
  // [noise][gamma]: per run, 1 if its per-layer profile under that noise
  // (the first noise seed) is monotone, else 0 (Theorem 4's test)
  std::vector<std::vector<PerArm>> noise_monotone;
  std::string metric = "accuracy";
};

// Everything the command would refuse later, before anything is trained or
// written: the model, the split, the limit, the strengths, and noise kinds
// the task cannot take.
void check_robust_compare(const RobustCompareConfig& c) {
  const ModelRun run = build_run(c.base);
  run.task->eval_size(c.split);  // fails naming the task's splits
  TAPIR_CHECK(c.limit >= 0, "--limit must be 0 (all) or positive, got ", c.limit);
  for (double gamma : c.gammas)
    TAPIR_CHECK(gamma >= 0 && std::isfinite(gamma),
                "--gamma: each strength must be a non-negative number, got ", gamma);
  const bool frames = run.task->is_regression();
  for (const std::string& name : c.noise)
    TAPIR_CHECK(!(parse_noise_kind(name) == NoiseKind::discrete && frames),
                "discrete noise replaces tokens; task ", c.base.task,
                " reads real-valued frames (use --noise gaussian,uniform)");
}

// Trains (or resumes, or reuses) every run; returns each arm's folders.
std::array<std::vector<std::string>, 2> train_arms(const RobustCompareConfig& c,
                                                   const ArmNames& arms, Progress& progress) {
  progress.plan(static_cast<int>(2 * c.seeds));
  std::array<std::vector<std::string>, 2> dirs;
  std::vector<PlannedRun> runs;
  for (int64_t k = 0; k < c.seeds; ++k) {
    for (int a = 0; a < 2; ++a) {
      TrainConfig run = c.base;
      run.seed = c.base.seed + static_cast<uint64_t>(k);
      if (a == 0) {  // ERM: no constraint, no training noise
        run.constraint = ConstraintConfig{};
        run.train_noise = TrainNoise::none;
        run.train_gamma = 0;
      }
      std::string dir = c.out + "/";
      dir += arms[a];
      dir += "_s";
      dir += std::to_string(run.seed);
      runs.push_back({run, dir, arms[a] + " seed " + std::to_string(run.seed)});
      dirs[a].push_back(dir);
    }
  }
  train_all(runs, progress);
  return dirs;
}

// Adds the measurements of the run in `dir` to arm a's.
void measure_run(const RobustCompareConfig& c, const std::string& dir, int a, Measures& m) {
  ModelRun t = open_run(dir);
  t.config.eval_limit = c.limit;
  const Evaluator evaluator = t.evaluator();
  m.metric = task_metric_name(*t.task);
  const LayerProfile p = layer_profile(evaluator, c.split);
  for (size_t l = 0; l < p.loss.size(); ++l) m.layer_loss[l][a].push_back(p.loss[l]);
  m.monotone[a].push_back(is_monotone(p.loss) ? 1 : 0);
  for (size_t l = 1; l < p.loss.size(); ++l) m.decreasing[a] += p.loss[l] < p.loss[l - 1];
  m.splits = t.task->eval_splits();
  m.split_metric.resize(m.splits.size());
  for (size_t i = 0; i < m.splits.size(); ++i)
    m.split_metric[i][a].push_back(
        task_metric(*t.task, evaluator.evaluate_split(m.splits[i]).tally.all));
  for (size_t n = 0; n < c.noise.size(); ++n) {
    const auto curve =
        robustness_curve(evaluator, c.split, parse_noise_kind(c.noise[n]), c.gammas, c.repeats, 0);
    for (size_t g = 0; g < c.gammas.size(); ++g) {
      m.noise_metric[n][g][a].push_back(curve[g].metric);
      const Perturbation noise = make_perturbation(parse_noise_kind(c.noise[n]), c.gammas[g],
                                                   evaluator.model(), *t.task, 0);
      std::vector<double> loss;
      for (const EvalTally& layer : evaluate_layers(evaluator, c.split, noise))
        loss.push_back(layer.all.loss());
      m.noise_monotone[n][g][a].push_back(is_monotone(loss) ? 1 : 0);
    }
  }
}

// The per-layer loss: table and summary.
void report_layers(const RobustCompareConfig& c, const ArmNames& arms, const Measures& m,
                   Json& summary) {
  std::printf("per-layer %s loss (layer 0 = embeddings)\n", c.split.c_str());
  Json layers = Json::array();
  for (size_t l = 0; l < m.layer_loss.size(); ++l) {
    print_row("layer " + std::to_string(l), m.layer_loss[l]);
    Json j = Json::object();
    layers.push_back(set_arms(j, arms, m.layer_loss[l]));
  }
  const long long seeds = static_cast<long long>(c.seeds);
  const long long layer_count = static_cast<long long>(c.seeds * c.base.model.layers);
  int monotone[2] = {0, 0};
  for (int a = 0; a < 2; ++a)
    for (double x : m.monotone[a]) monotone[a] += x > 0;
  std::printf(
      "monotone runs: %s %d/%lld, %s %d/%lld; layers with f_l < f_{l-1}: %s %d/%lld, "
      "%s %d/%lld\n",
      arms[0].c_str(), monotone[0], seeds, arms[1].c_str(), monotone[1], seeds, arms[0].c_str(),
      m.decreasing[0], layer_count, arms[1].c_str(), m.decreasing[1], layer_count);
  summary.set("layers", layers);
  std::printf("monotone runs, %s - erm, as a share of the seeds: %s\n", arms[1].c_str(),
              format_difference(mean_interval(paired_difference(m.monotone))).c_str());
  summary.set("monotone", Json::object()
                              .set(arms[0], monotone[0])
                              .set(arms[1], monotone[1])
                              .set("difference", difference_json(m.monotone)));
  summary.set("decreasing_layers",
              Json::object().set(arms[0], m.decreasing[0]).set(arms[1], m.decreasing[1]));
}

// Every evaluation split's metric: table and summary.
void report_splits(const ArmNames& arms, const Measures& m, Json& summary) {
  std::printf("%s per evaluation split\n", m.metric.c_str());
  Json by_split = Json::object();
  for (size_t i = 0; i < m.splits.size(); ++i) {
    print_row(m.splits[i], m.split_metric[i]);
    Json j = Json::object();
    by_split.set(m.splits[i], set_arms(j, arms, m.split_metric[i]));
  }
  summary.set("splits", by_split);
}

// The metric under each noise by gamma: tables and summary.
void report_noise(const RobustCompareConfig& c, const ArmNames& arms, const Measures& m,
                  Json& summary) {
  Json by_noise = Json::object();
  for (size_t n = 0; n < c.noise.size(); ++n) {
    std::printf("%s on %s under %s noise, by gamma\n", m.metric.c_str(), c.split.c_str(),
                c.noise[n].c_str());
    Json rows = Json::array();
    for (size_t g = 0; g < c.gammas.size(); ++g) {
      char label[32];
      std::snprintf(label, sizeof label, "%g", c.gammas[g]);
      print_row(label, m.noise_metric[n][g]);
      Json j = Json::object();
      j.set("gamma", c.gammas[g]);
      rows.push_back(set_arms(j, arms, m.noise_metric[n][g]));
    }
    by_noise.set(c.noise[n], rows);
  }
  summary.set("noise", by_noise);
  // The per-layer profile under each noise: is it still monotone?
  Json profile = Json::object();
  for (size_t n = 0; n < c.noise.size(); ++n) {
    std::printf("monotone runs on %s under %s noise, by gamma:", c.split.c_str(),
                c.noise[n].c_str());
    Json rows = Json::array();
    for (size_t g = 0; g < c.gammas.size(); ++g) {
      int count[2] = {0, 0};
      for (int a = 0; a < 2; ++a)
        for (double x : m.noise_monotone[n][g][a]) count[a] += x > 0;
      std::printf("%s %g: %s %d, %s %d", g == 0 ? "" : ";", c.gammas[g], arms[0].c_str(), count[0],
                  arms[1].c_str(), count[1]);
      rows.push_back(Json::object()
                         .set("gamma", c.gammas[g])
                         .set(arms[0], count[0])
                         .set(arms[1], count[1])
                         .set("difference", difference_json(m.noise_monotone[n][g])));
    }
    std::printf(" (of %lld)\n", static_cast<long long>(c.seeds));
    profile.set(c.noise[n], rows);
  }
  summary.set("monotone_noise", profile);
}

}  // namespace

bool run_robust_compare(const RobustCompareConfig& c) {
  const ArmNames arms = {"erm", c.arm};
  check_robust_compare(c);
  check_new_or_owned(c.out, "robust-compare folder");  // before anything is written
  const auto lock = lock_for_job(c.out, "robust-compare folder", {"summary_*", "compare_*"});
  Progress progress(c.quiet || !dist::is_root());  // rank 0 reports for the job
  if (!c.note.empty()) progress.line(c.note);
  const auto dirs = train_arms(c, arms, progress);
  if (!dist::is_root()) return false;  // rank 0 evaluates the runs and writes the summary
  set_num_threads(c.base.threads);

  Measures m;
  m.layer_loss.resize(static_cast<size_t>(c.base.model.layers) + 1);
  m.noise_metric.assign(c.noise.size(), std::vector<PerArm>(c.gammas.size()));
  m.noise_monotone.assign(c.noise.size(), std::vector<PerArm>(c.gammas.size()));
  for (int a = 0; a < 2; ++a)
    for (const std::string& dir : dirs[a]) measure_run(c, dir, a, m);

  Json summary = Json::object();
  summary.set("split", c.split);
  summary.set("seeds", c.seeds);
  summary.set("metric", m.metric);
  std::printf(
      "\n%lld seeds; mean +- std over seeds; the difference: paired by seed, mean [95%% "
      "interval]\n%10s  %22s  %22s  %28s\n",
      static_cast<long long>(c.seeds), "", arms[0].c_str(), arms[1].c_str(),
      (arms[1] + " - erm").c_str());
  report_layers(c, arms, m, summary);
  report_splits(arms, m, summary);
  report_noise(c, arms, m, summary);
  summary.set("arm", c.arm);
  summary.set("constraint", c.base.constraint.to_json());
  write_file_atomic(c.out + "/summary_" + c.arm + ".json", to_json(summary, 2) + "\n");
  std::printf("summary: %s/summary_%s.json\n", c.out.c_str(), c.arm.c_str());
  return true;
}

}  // namespace tapir
