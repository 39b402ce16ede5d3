// `tapir robust-compare`: plain training (ERM) against per-layer descent
// constraints over several seeds, side by side. For each seed it trains (or
// resumes, or reuses) DIR/erm_s<seed> and DIR/<arm>_s<seed> (arm "descent"
// unless --arm-name) with the same options except --constraint, then
// reports, as mean +- std over seeds: the per-layer loss profile and how many
// runs are monotone, every evaluation split's metric (for denoise: RMSE per
// sigma), and the metric under each input noise per gamma. Tables on stdout,
// SVG plots DIR/compare_<arm>_*.svg and DIR/summary_<arm>.json. Two
// constrained variants can share one DIR and its ERM runs.
#include <array>
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "engine/dist.h"
#include "engine/threads.h"
#include "lab/compare.h"
#include "lab/progress.h"
#include "lab/robust_report.h"
#include "lab/svg.h"
#include "optim/model_run.h"
#include "optim/trainer.h"
#include "tools/commands.h"
#include "tools/train_options.h"

namespace tapir {

namespace {

namespace fs = std::filesystem;

// Values per arm and seed of one quantity.
using PerArm = std::array<std::vector<double>, 2>;

// The constrained arm minus ERM, seed by seed (the runs of one seed share the
// initialisation and the data order).
std::vector<double> paired_difference(const PerArm& v) {
  std::vector<double> d;
  for (size_t i = 0; i < v[0].size() && i < v[1].size(); ++i) d.push_back(v[1][i] - v[0][i]);
  return d;
}

void print_row(const std::string& label, const PerArm& v) {
  std::printf("%10s  %22s  %22s  %22s\n", label.c_str(), mean_std_text(v[0]).c_str(),
              mean_std_text(v[1]).c_str(), mean_std_text(paired_difference(v)).c_str());
}

PlotSeries arm_series(const std::string& arm, const std::vector<double>& xs,
                      const std::vector<PerArm>& points, int a) {
  PlotSeries s{arm, xs, {}, {}};
  for (const PerArm& p : points) {
    double mean = 0, std = 0;
    mean_std(p[a], mean, std);
    s.y.push_back(mean);
    s.spread.push_back(std);
  }
  return s;
}

}  // namespace

Command add_robust_compare_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "robust-compare", "Train ERM and descent-constrained runs over seeds and compare them");
  struct Options {
    TrainOptions train;
    std::string out, split = "test", gamma = "0,0.25,0.5,1,1.5,2", arm = "descent";
    std::vector<std::string> noise = {"gaussian", "uniform", "discrete"};
    int64_t seeds = 3, repeats = 2, limit = 0;
    bool quiet = false;
  };
  auto o = std::make_shared<Options>();
  add_train_options(*cmd, o->train);
  note_defaults_unlike_train(*cmd);
  cmd->add_option("--out", o->out, "Folder for the runs and the report")->required();
  cmd->add_option("--arm-name", o->arm, "Name of the constrained runs (DIR/NAME_s<seed>)")
      ->capture_default_str();
  cmd->add_option("--seeds", o->seeds, "Seeds per arm: seed, seed + 1, ...")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_option("--noise", o->noise, "Noise kinds (comma-separated; discrete needs tokens)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--gamma", o->gamma, "Noise strengths")->capture_default_str();
  cmd->add_option("--repeats", o->repeats, "Noise seeds per gamma and run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--split", o->split, "Split for the profile and the noise")
      ->capture_default_str();
  cmd->add_option("--limit", o->limit, "Max examples per evaluation (0: all)");
  cmd->add_flag("--quiet", o->quiet, "Print only the tables");
  return {
      cmd,
      [o, cmd]() {
        TrainConfig base = finish_train_options(*cmd, o->train);
        const std::string note = recommended_note(base.task, recommend_unless_given(*cmd, base));
        TAPIR_CHECK(base.constraint.enabled(),
                    "robust-compare needs --constraint descent (the arm compared with ERM)");
        TAPIR_CHECK(
            !o->arm.empty() && o->arm != "erm" && o->arm.find_first_of("/ ") == std::string::npos,
            "--arm-name must be a plain name other than erm, got '", o->arm, "'");
        const std::string arms[2] = {"erm", o->arm};
        const std::vector<double> gammas = parse_double_list(o->gamma, "--gamma");
        const bool frames = make_task(base.task, base.task_options)->is_regression();
        for (const std::string& name : o->noise)  // refuse a bad kind before training
          TAPIR_CHECK(!(parse_noise_kind(name) == NoiseKind::discrete && frames),
                      "discrete noise replaces tokens; task ", base.task,
                      " reads real-valued frames (use --noise gaussian,uniform)");
        const auto lock = lock_for_job(o->out, "robust-compare folder");
        Progress progress(o->quiet || !dist::is_root());  // rank 0 reports for the job
        if (!note.empty()) progress.line(note);
        progress.plan(static_cast<int>(2 * o->seeds));
        std::vector<std::string> dirs[2];
        std::vector<PlannedRun> runs;
        for (int64_t k = 0; k < o->seeds; ++k) {
          for (int a = 0; a < 2; ++a) {
            TrainConfig c = base;
            c.seed = base.seed + static_cast<uint64_t>(k);
            if (a == 0) c.constraint = ConstraintConfig{};
            std::string dir = o->out + "/";
            dir += arms[a];
            dir += "_s";
            dir += std::to_string(c.seed);
            runs.push_back({c, dir, arms[a] + " seed " + std::to_string(c.seed)});
            dirs[a].push_back(dir);
          }
        }
        train_all(runs, progress);
        if (!dist::is_root()) return 0;  // rank 0 evaluates the runs and writes the report
        set_num_threads(base.threads);

        std::vector<PerArm> layer_loss(static_cast<size_t>(base.model.layers) + 1);
        int monotone[2] = {0, 0}, decreasing[2] = {0, 0};  // runs; layers with f_l < f_{l-1}
        std::vector<std::string> splits;
        std::vector<PerArm> split_metric;
        std::vector<std::vector<PerArm>> noise_metric(o->noise.size(),
                                                      std::vector<PerArm>(gammas.size()));
        std::string metric = "accuracy";
        for (int a = 0; a < 2; ++a) {
          for (const std::string& dir : dirs[a]) {
            ModelRun t = open_run(dir);
            t.config.eval_limit = o->limit;
            const Evaluator evaluator = t.evaluator();
            metric = task_metric_name(*t.task);
            const LayerProfile p = layer_profile(evaluator, o->split);
            for (size_t l = 0; l < p.loss.size(); ++l) layer_loss[l][a].push_back(p.loss[l]);
            monotone[a] += is_monotone(p.loss);
            for (size_t l = 1; l < p.loss.size(); ++l) decreasing[a] += p.loss[l] < p.loss[l - 1];
            splits = t.task->eval_splits();
            split_metric.resize(splits.size());
            for (size_t i = 0; i < splits.size(); ++i)
              split_metric[i][a].push_back(
                  task_metric(*t.task, evaluator.evaluate_split(splits[i]).tally.all));
            for (size_t n = 0; n < o->noise.size(); ++n) {
              const auto curve = robustness_curve(
                  evaluator, o->split, parse_noise_kind(o->noise[n]), gammas, o->repeats, 0);
              for (size_t g = 0; g < gammas.size(); ++g)
                noise_metric[n][g][a].push_back(curve[g].metric);
            }
          }
        }

        Json summary = Json::object();
        summary.set("split", o->split);
        summary.set("seeds", o->seeds);
        summary.set("metric", metric);
        std::printf("\n%lld seeds; mean +- std over seeds\n%10s  %22s  %22s  %22s\n",
                    static_cast<long long>(o->seeds), "", arms[0].c_str(), arms[1].c_str(),
                    (arms[1] + " - erm").c_str());
        std::printf("per-layer %s loss (layer 0 = embeddings)\n", o->split.c_str());
        Json layers = Json::array();
        std::vector<double> xs;
        for (size_t l = 0; l < layer_loss.size(); ++l) {
          print_row("layer " + std::to_string(l), layer_loss[l]);
          Json j = Json::object();
          for (int a = 0; a < 2; ++a) j.set(arms[a], mean_std_json(layer_loss[l][a]));
          j.set("difference", mean_std_json(paired_difference(layer_loss[l])));
          layers.push_back(j);
          xs.push_back(double(l));
        }
        const long long layer_count = static_cast<long long>(o->seeds * base.model.layers);
        std::printf(
            "monotone runs: %s %d/%lld, %s %d/%lld; layers with f_l < f_{l-1}: %s %d/%lld, "
            "%s %d/%lld\n",
            arms[0].c_str(), monotone[0], static_cast<long long>(o->seeds), arms[1].c_str(),
            monotone[1], static_cast<long long>(o->seeds), arms[0].c_str(), decreasing[0],
            layer_count, arms[1].c_str(), decreasing[1], layer_count);
        summary.set("layers", layers);
        summary.set("monotone", Json::object().set(arms[0], monotone[0]).set(arms[1], monotone[1]));
        summary.set("decreasing_layers",
                    Json::object().set(arms[0], decreasing[0]).set(arms[1], decreasing[1]));
        std::string prefix = o->out + "/compare_";
        prefix += o->arm;
        write_svg_line_plot(
            prefix + "_layers.svg", {"per-layer " + o->split + " loss", "layer", "loss", true},
            {arm_series(arms[0], xs, layer_loss, 0), arm_series(arms[1], xs, layer_loss, 1)});

        std::printf("%s per evaluation split\n", metric.c_str());
        Json by_split = Json::object();
        for (size_t i = 0; i < splits.size(); ++i) {
          print_row(splits[i], split_metric[i]);
          Json j = Json::object();
          for (int a = 0; a < 2; ++a) j.set(arms[a], mean_std_json(split_metric[i][a]));
          j.set("difference", mean_std_json(paired_difference(split_metric[i])));
          by_split.set(splits[i], j);
        }
        summary.set("splits", by_split);

        Json by_noise = Json::object();
        for (size_t n = 0; n < o->noise.size(); ++n) {
          std::printf("%s on %s under %s noise, by gamma\n", metric.c_str(), o->split.c_str(),
                      o->noise[n].c_str());
          Json rows = Json::array();
          for (size_t g = 0; g < gammas.size(); ++g) {
            char label[32];
            std::snprintf(label, sizeof label, "%g", gammas[g]);
            print_row(label, noise_metric[n][g]);
            Json j = Json::object();
            j.set("gamma", gammas[g]);
            for (int a = 0; a < 2; ++a) j.set(arms[a], mean_std_json(noise_metric[n][g][a]));
            j.set("difference", mean_std_json(paired_difference(noise_metric[n][g])));
            rows.push_back(j);
          }
          by_noise.set(o->noise[n], rows);
          std::string path = prefix + "_", title = metric + " under ";
          path += o->noise[n];
          path += ".svg";
          title += o->noise[n];
          title += " noise";
          write_svg_line_plot(path, {title, "gamma", metric, false},
                              {arm_series(arms[0], gammas, noise_metric[n], 0),
                               arm_series(arms[1], gammas, noise_metric[n], 1)});
        }
        summary.set("noise", by_noise);
        summary.set("arm", o->arm);
        summary.set("constraint", base.constraint.to_json());
        std::string summary_path = o->out + "/summary_";
        summary_path += o->arm;
        summary_path += ".json";
        write_file_atomic(summary_path, to_json(summary, 2) + "\n");
        std::printf("report: %s/summary_%s.json, %s_*.svg\n", o->out.c_str(), o->arm.c_str(),
                    prefix.c_str());
        return 0;
      },
      Ranks::several};
}

}  // namespace tapir
