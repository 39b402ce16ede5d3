// Per-layer profiles and robustness curves (lab/robust_report.h).
#include "lab/robust_report.h"

#include <cmath>
#include <cstdio>

namespace tapir {

double task_metric(const Task& task, const Tally& tally) {
  return task.is_regression() ? std::sqrt(tally.loss()) : tally.accuracy();
}

const char* task_metric_name(const Task& task) {
  return task.is_regression() ? "rmse" : "accuracy";
}

LayerProfile layer_profile(const Evaluator& evaluator, const std::string& split) {
  LayerProfile p;
  for (const EvalTally& t : evaluate_layers(evaluator, split)) {
    p.loss.push_back(t.all.loss());
    p.metric.push_back(task_metric(evaluator.task(), t.all));
    p.examples = t.all.examples;
  }
  return p;
}

bool is_monotone(const std::vector<double>& loss) {
  for (size_t l = 1; l < loss.size(); ++l)
    if (!(loss[l] < loss[l - 1])) return false;
  return true;
}

int count_descent(const std::vector<double>& loss, double alpha) {
  int n = 0;
  for (size_t l = 1; l < loss.size(); ++l) n += loss[l] <= (1.0 - alpha) * loss[l - 1];
  return n;
}

std::string format_layer_table(const LayerProfile& p, const std::string& metric_name,
                               double alpha) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%5s %10s %10s %12s\n", "layer", "loss", metric_name.c_str(),
                "f_l/f_{l-1}");
  std::string out = buf;
  double worst = 0;
  size_t worst_at = 0;
  for (size_t l = 0; l < p.loss.size(); ++l) {
    if (l == 0) {
      std::snprintf(buf, sizeof buf, "%5zu %10.4f %10.4f %12s\n", l, p.loss[l], p.metric[l], "");
    } else {
      const double ratio = p.loss[l] / p.loss[l - 1];
      if (ratio > worst || worst_at == 0) worst = ratio, worst_at = l;
      std::snprintf(buf, sizeof buf, "%5zu %10.4f %10.4f %12.4f\n", l, p.loss[l], p.metric[l],
                    ratio);
    }
    out += buf;
  }
  const size_t L = p.loss.empty() ? 0 : p.loss.size() - 1;
  std::snprintf(buf, sizeof buf,
                "monotone: %s; largest ratio %.4f (layer %zu); f_l <= (1 - %g) f_{l-1} at %d of "
                "%zu layers\n",
                is_monotone(p.loss) ? "yes" : "no", worst, worst_at, alpha,
                count_descent(p.loss, alpha), L);
  out += buf;
  return out;
}

void mean_std(const std::vector<double>& values, double& mean, double& std) {
  mean = 0;
  std = 0;
  if (values.empty()) return;
  for (double v : values) mean += v;
  mean /= double(values.size());
  for (double v : values) std += (v - mean) * (v - mean);
  std = std::sqrt(std / double(values.size()));
}

std::string mean_std_text(const std::vector<double>& values) {
  double mean = 0, std = 0;
  mean_std(values, mean, std);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f +- %.4f", mean, std);
  return buf;
}

Json mean_std_json(const std::vector<double>& values) {
  double mean = 0, std = 0;
  mean_std(values, mean, std);
  Json seeds = Json::array();
  for (double v : values) seeds.push_back(v);
  return Json::object().set("mean", mean).set("std", std).set("seeds", seeds);
}

std::vector<RobustPoint> robustness_curve(const Evaluator& evaluator, const std::string& split,
                                          NoiseKind noise, const std::vector<double>& gammas,
                                          int64_t repeats, uint64_t seed) {
  std::vector<RobustPoint> curve;
  for (double gamma : gammas) {
    std::vector<double> metrics, losses;
    for (int64_t r = 0; r < repeats; ++r) {
      const Perturbation p = make_perturbation(noise, gamma, evaluator.model(), evaluator.task(),
                                               seed + static_cast<uint64_t>(r));
      const EvalTally t = evaluate_perturbed(evaluator, split, p);
      metrics.push_back(task_metric(evaluator.task(), t.all));
      losses.push_back(t.all.loss());
    }
    RobustPoint point;
    point.gamma = gamma;
    double unused = 0;
    mean_std(metrics, point.metric, point.spread);
    mean_std(losses, point.loss, unused);
    curve.push_back(point);
  }
  return curve;
}

std::string format_robust_table(const std::vector<RobustPoint>& curve,
                                const std::string& metric_name) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%7s %10s %10s %10s\n", "gamma", metric_name.c_str(), "+-std",
                "loss");
  std::string out = buf;
  for (const RobustPoint& p : curve) {
    std::snprintf(buf, sizeof buf, "%7.3g %10.4f %10.4f %10.4f\n", p.gamma, p.metric, p.spread,
                  p.loss);
    out += buf;
  }
  return out;
}

}  // namespace tapir
