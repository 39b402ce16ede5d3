// Probes of a finished comparison (lab/compare_probe.h).
#include "lab/compare_probe.h"

#include <cstdio>

#include "engine/threads.h"
#include "lab/robust_report.h"
#include "optim/layer_eval.h"
#include "optim/model_run.h"

namespace tapir {

namespace {

// A Markdown table: one row per label, one column per variant.
std::string table(const std::string& corner, const std::vector<std::string>& labels,
                  const std::vector<VariantResult>& results,
                  const std::vector<std::vector<std::vector<double>>>& cells) {
  std::string out = "| " + corner + " |";
  for (const std::string& label : variant_labels(results)) out += " " + label + " |";
  out += "\n|---|";
  for (size_t v = 0; v < results.size(); ++v) out += "---|";
  out += "\n";
  for (size_t i = 0; i < labels.size(); ++i) {
    out += "| " + labels[i] + " |";
    for (size_t v = 0; v < results.size(); ++v) out += " " + mean_std_text(cells[v][i]) + " |";
    out += "\n";
  }
  return out;
}

// [variant][layer or gamma][seed]
using Cells = std::vector<std::vector<std::vector<double>>>;

// What the probes measured on every run.
struct ProbeMeasures {
  Cells layer_loss;
  std::vector<int> monotone;  // per variant
  std::vector<Cells> noisy;   // per noise kind
  std::string metric = "accuracy";
};

ProbeMeasures measure_probes(const std::vector<VariantResult>& results, const ProbeOptions& o,
                             const std::vector<NoiseKind>& kinds) {
  ProbeMeasures m;
  m.layer_loss.resize(results.size());
  m.monotone.assign(results.size(), 0);
  m.noisy.assign(kinds.size(),
                 Cells(results.size(), std::vector<std::vector<double>>(o.gammas.size())));
  for (size_t v = 0; v < results.size(); ++v) {
    for (const SeedRun& run : results[v].runs) {
      ModelRun t = open_run(run.dir);
      t.config.eval_limit = o.limit;
      const Evaluator evaluator = t.evaluator();
      m.metric = task_metric_name(*t.task);
      if (o.layers) {
        const LayerProfile p = layer_profile(evaluator, o.split);
        m.layer_loss[v].resize(p.loss.size());
        for (size_t l = 0; l < p.loss.size(); ++l) m.layer_loss[v][l].push_back(p.loss[l]);
        m.monotone[v] += is_monotone(p.loss) ? 1 : 0;
      }
      for (size_t k = 0; k < kinds.size(); ++k) {
        TAPIR_CHECK(!(kinds[k] == NoiseKind::discrete && t.task->is_regression()),
                    "discrete noise replaces tokens; task ", t.config.task,
                    " reads real-valued frames (use --robust gaussian,uniform)");
        const std::vector<RobustPoint> curve =
            robustness_curve(evaluator, o.split, kinds[k], o.gammas, o.repeats, 0);
        for (size_t g = 0; g < o.gammas.size(); ++g) m.noisy[k][v][g].push_back(curve[g].metric);
      }
    }
  }
  return m;
}

// The per-layer loss table and monotone counts.
void report_layers(const std::vector<VariantResult>& results, const ProbeOptions& o,
                   ProbeMeasures& m, ProbeReport& report) {
  std::string& md = report.markdown;
  size_t layers = 0;
  for (const auto& per_variant : m.layer_loss) layers = std::max(layers, per_variant.size());
  std::vector<std::string> labels;
  for (size_t l = 0; l < layers; ++l) labels.push_back("layer " + std::to_string(l));
  for (auto& per_variant : m.layer_loss) per_variant.resize(layers);
  md += "\nPer-layer " + o.split + " loss (layer 0 = the embeddings), mean +- std over seeds:\n\n" +
        table("layer", labels, results, m.layer_loss);
  md += "\nMonotone runs (every f_l < f_{l-1}):";
  Json j = Json::object();
  const std::vector<std::string> names = variant_labels(results);
  for (size_t v = 0; v < results.size(); ++v) {
    md += " " + names[v] + " " + std::to_string(m.monotone[v]) + "/" +
          std::to_string(results[v].runs.size()) + (v + 1 < results.size() ? "," : "\n");
    Json rows = Json::array();
    for (const auto& seeds : m.layer_loss[v]) rows.push_back(mean_std_json(seeds));
    j.set(results[v].variant.name, Json::object().set("loss", rows).set("monotone", m.monotone[v]));
  }
  report.json.set("layers", j);
}

// One table per noise kind: the metric by gamma.
void report_noise(const std::vector<VariantResult>& results, const ProbeOptions& o,
                  const ProbeMeasures& m, ProbeReport& report) {
  Json noise_json = Json::object();
  for (size_t k = 0; k < m.noisy.size(); ++k) {
    std::vector<std::string> labels;
    for (double g : o.gammas) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", g);
      labels.push_back(buf);
    }
    report.markdown += "\n" + m.metric + " on " + o.split + " under " + o.noise[k] +
                       " noise of strength gamma (" + std::to_string(o.repeats) +
                       " noise seeds per run), mean +- std over seeds:\n\n" +
                       table("gamma", labels, results, m.noisy[k]);
    Json j = Json::object();
    for (size_t v = 0; v < results.size(); ++v) {
      Json rows = Json::array();
      for (size_t g = 0; g < o.gammas.size(); ++g)
        rows.push_back(mean_std_json(m.noisy[k][v][g]).set("gamma", o.gammas[g]));
      j.set(results[v].variant.name, rows);
    }
    noise_json.set(o.noise[k], j);
  }
  if (!m.noisy.empty()) report.json.set("robust", noise_json.set("metric", m.metric));
}

}  // namespace

ProbeReport probe_compare(const std::vector<VariantResult>& results, const ProbeOptions& o) {
  ProbeReport report;
  report.json = Json::object();
  if (!o.layers && o.noise.empty()) return report;
  std::vector<NoiseKind> kinds;
  for (const std::string& name : o.noise) kinds.push_back(parse_noise_kind(name));
  set_num_threads(o.threads);
  ProbeMeasures m = measure_probes(results, o, kinds);
  if (o.layers) report_layers(results, o, m, report);
  report_noise(results, o, m, report);
  return report;
}

}  // namespace tapir
