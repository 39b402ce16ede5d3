// compare.md's sections on tuning and compute (lab/tune.h).
#include <cmath>
#include <cstdio>

#include "lab/tune.h"

namespace tapir {

namespace {

std::string seconds_text(double s) {
  if (!std::isfinite(s)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, s < 100 ? "%.1f s" : "%.0f s", s);
  return text;
}

std::string work_text(const WorkCost& w) {
  if (w.count == 0) return "-";
  return std::to_string(w.count) + ": " + flops_text(w.flops) + ", " + seconds_text(w.wall_s);
}

std::string score_text(const Json& score) {
  if (score.is_string()) return score.as_string();
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", score.as_double());
  return text;
}

}  // namespace

std::string tuning_markdown(const std::vector<VariantResult>& results) {
  std::string out;
  const std::vector<std::string> labels = variant_labels(results);
  for (size_t k = 0; k < results.size(); ++k) {
    const Json& t = results[k].tuning;
    if (t.is_null()) continue;
    if (out.empty()) {
      std::string seeds;
      for (const Json& seed : t.at("seeds").as_array())
        seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed.as_int());
      out =
          "\nTuning: each variant's settings chosen on the arch split (held out of its "
          "training data: " +
          t.at("arch_held_out").as_string() + "), never on test, over seeds " + seeds + ", by " +
          t.at("score").as_string() + " (* chosen):\n";
    }
    out += "\n" + labels[k] + ":\n\n| setting | score | final accuracy |\n|---|---|---|\n";
    const std::string chosen = t.at("chosen_text").as_string();
    for (const Json& p : t.at("points").as_array()) {
      std::string setting;
      for (const auto& [key, value] : p.at("settings").as_object())
        setting += (setting.empty() ? "" : " ") + key + "=" + value.as_string();
      char acc[32];
      std::snprintf(acc, sizeof acc, "%.4f", p.at("final_accuracy").as_double());
      out += "| " + setting + (setting == chosen ? " *" : "") + " | " + score_text(p.at("score")) +
             " | " + acc + " |\n";
    }
  }
  return out;
}

std::string compute_markdown(const std::vector<VariantResult>& results) {
  const std::vector<std::string> labels = variant_labels(results);
  const VariantResult* base = find_baseline(results);
  std::string out =
      "\nCompute (model FLOPs of training, optim/compute.h; count: FLOPs, wall):\n\n"
      "| variant | runs | searches | tuning | total FLOPs | total wall | FLOPs / baseline's |\n"
      "|---|---|---|---|---|---|---|\n";
  for (size_t k = 0; k < results.size(); ++k) {
    const ArmCost& c = results[k].compute;
    char ratio[32] = "-";
    if (base != nullptr && base->compute.flops() > 0)
      std::snprintf(ratio, sizeof ratio, "%.2fx", c.flops() / base->compute.flops());
    out += "| " + labels[k] + " | " + work_text(c.runs) + " | " + work_text(c.searches) + " | " +
           work_text(c.tuning) + " | " + flops_text(c.flops()) + " | " + seconds_text(c.wall_s()) +
           " | " + ratio + " |\n";
  }
  return out;
}

}  // namespace tapir
