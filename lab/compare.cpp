// Training, reusing and summarising the runs of a comparison (lab/compare.h).
#include "lab/compare.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "engine/file_io.h"
#include "engine/json.h"
#include "lab/progress.h"
#include "lab/report_text.h"
#include "optim/trainer.h"

namespace tapir {

namespace fs = std::filesystem;

SeedRun read_run(const std::string& dir, double threshold) {
  SeedRun r;
  r.dir = dir;
  const std::string path = (fs::path(dir) / "metrics.jsonl").string();
  std::istringstream in(read_file(path));
  std::string line, first_split;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const Json j = parse_json(line);
    const std::string split = j.at("split").as_string();
    if (first_split.empty()) first_split = split;
    if (split != first_split) continue;
    const int64_t step = j.at("step").as_int();
    const double seconds = j.at("wall_s").as_double();
    r.accuracy.push_back({step, j.at("accuracy").as_double(), seconds});
    r.loss.push_back({step, j.at("loss").as_double(), seconds});
  }
  TAPIR_CHECK(!r.accuracy.empty(), path, ": no evaluations logged");
  r.steps_to = steps_to_threshold(r.accuracy, threshold);
  r.seconds_to = seconds_to_threshold(r.accuracy, threshold);
  r.final_accuracy = r.accuracy.back().value;
  r.best_loss = r.loss.front().value;
  for (const CurvePoint& p : r.loss) r.best_loss = std::min(r.best_loss, p.value);
  return r;
}

namespace {

std::string slug(const std::string& name) {
  std::string s;
  for (char c : name) s += std::isalnum(static_cast<unsigned char>(c)) || c == '.' ? c : '_';
  return s.size() > 80 ? s.substr(s.size() - 80) : s;
}

}  // namespace

void train_or_reuse(const TrainConfig& config, const std::string& dir, Progress& progress,
                    const std::string& label) {
  const fs::path marker = fs::path(dir) / "finished";
  if (fs::exists(marker)) {
    progress.skip_run(label, "finished earlier: " + dir);
    return;
  }
  std::unique_ptr<Trainer> trainer;
  if (fs::exists(fs::path(dir) / "resume.safetensors")) {
    trainer = Trainer::resume(dir);
  } else {
    trainer = make_trainer(config, dir);  // constrained variants get their trainer
    trainer->start_fresh(/*force=*/true);
  }
  progress.start_run(label, trainer->step(), trainer->config().steps);
  std::vector<EvalResult> last;
  TrainEvents events = progress.train_events();
  events.on_eval = [&last, inner = events.on_eval](int64_t step,
                                                   const std::vector<EvalResult>& results) {
    last = results;
    if (inner) inner(step, results);
  };
  trainer->run(events);
  write_file_atomic(marker.string(), std::to_string(trainer->step()) + "\n");
  std::string summary = std::to_string(trainer->step()) + " steps";
  if (!last.empty()) summary += ", " + format_eval({last.front()});
  progress.finish_run(summary);
}

VariantResult run_variant(const TrainConfig& config, const Variant& variant, int seeds,
                          double threshold, const std::string& dir, Progress& progress) {
  TAPIR_CHECK(seeds >= 1, "seeds must be at least 1, got ", seeds);
  VariantResult vr;
  vr.variant = variant;
  std::vector<double> steps, seconds, finals, losses;
  for (int s = 0; s < seeds; ++s) {
    TrainConfig seeded = config;
    seeded.seed = config.seed + static_cast<uint64_t>(s);
    const std::string run_dir = (fs::path(dir) / ("seed-" + std::to_string(seeded.seed))).string();
    train_or_reuse(seeded, run_dir, progress,
                   variant.name + " seed " + std::to_string(seeded.seed));
    SeedRun run = read_run(run_dir, threshold);
    run.seed = seeded.seed;
    steps.push_back(run.steps_to);
    seconds.push_back(run.seconds_to);
    finals.push_back(run.final_accuracy);
    losses.push_back(run.best_loss);
    vr.runs.push_back(std::move(run));
  }
  vr.steps = spread(steps);
  vr.seconds = spread(seconds);
  vr.final_accuracy = spread(finals);
  vr.best_loss = spread(losses);
  return vr;
}

std::vector<VariantResult> run_compare(const CompareOptions& options,
                                       const ApplyVariant& apply_variant) {
  TAPIR_CHECK(!options.variants.empty(), "compare needs at least one variant");
  std::vector<TrainConfig> configs;  // all parsed first: a bad variant fails before training
  for (const Variant& variant : options.variants)
    configs.push_back(apply_variant(options.base, variant));
  Progress silent(Progress::Style::quiet);
  Progress& progress = options.progress ? *options.progress : silent;
  progress.plan(static_cast<int>(configs.size()) * options.seeds);
  std::vector<VariantResult> results;
  for (size_t k = 0; k < configs.size(); ++k)
    results.push_back(run_variant(
        configs[k], options.variants[k], options.seeds, options.threshold,
        (fs::path(options.out_dir) / slug(options.variants[k].name)).string(), progress));
  return results;
}

std::string compare_table_markdown(const std::vector<VariantResult>& results, double threshold) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "| variant | seeds | steps to %.2f: median [IQR] | seconds to %.2f: median | never "
                "reached | final test acc: median [min, max] | best test loss: median |\n"
                "|---|---|---|---|---|---|---|\n",
                threshold, threshold);
  std::string out = buf;
  for (const VariantResult& r : results) {
    const std::string steps = format_steps(r.steps.median) + " [" + format_steps(r.steps.q1) +
                              ", " + format_steps(r.steps.q3) + "]";
    std::string secs = "never";
    if (!std::isinf(r.seconds.median)) {
      std::snprintf(buf, sizeof buf, "%.1f", r.seconds.median);
      secs = buf;
    }
    std::snprintf(buf, sizeof buf, "| %s | %d | %s | %s | %d of %d | %.4f [%.4f, %.4f] | %.4f |\n",
                  r.variant.name.c_str(), r.steps.count, steps.c_str(), secs.c_str(), r.steps.never,
                  r.steps.count, r.final_accuracy.median, r.final_accuracy.min,
                  r.final_accuracy.max, r.best_loss.median);
    out += buf;
  }
  return out;
}

std::string compare_json(const std::vector<VariantResult>& results, double threshold) {
  auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  auto spread_json = [&](const Spread& s) {
    Json j = Json::object();
    j.set("median", number(s.median));
    j.set("q1", number(s.q1));
    j.set("q3", number(s.q3));
    j.set("min", number(s.min));
    j.set("max", number(s.max));
    j.set("count", s.count);
    j.set("never", s.never);
    return j;
  };
  Json root = Json::object();
  root.set("threshold", threshold);
  Json variants = Json::array();
  for (const VariantResult& r : results) {
    Json v = Json::object();
    v.set("variant", r.variant.name);
    v.set("steps_to_threshold", spread_json(r.steps));
    v.set("seconds_to_threshold", spread_json(r.seconds));
    v.set("final_accuracy", spread_json(r.final_accuracy));
    v.set("best_loss", spread_json(r.best_loss));
    Json runs = Json::array();
    for (const SeedRun& run : r.runs) {
      Json j = Json::object();
      j.set("seed", static_cast<int64_t>(run.seed));
      j.set("dir", run.dir);
      j.set("steps_to_threshold", number(run.steps_to));
      j.set("final_accuracy", run.final_accuracy);
      j.set("best_loss", run.best_loss);
      runs.push_back(j);
    }
    v.set("runs", runs);
    variants.push_back(v);
  }
  root.set("variants", variants);
  return to_json(root, 2) + "\n";
}

}  // namespace tapir
