// Hand-written run folders for the tests of `tapir compare` (lab/compare.h):
// metrics.jsonl lines as the trainer writes them, and two variants read
// back from such folders and summarised.
#pragma once
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/json.h"
#include "lab/compare.h"
#include "tests/test_support.h"

namespace compare_runs {

using namespace tapir;  // the engine's names, inside this namespace only
using test_support::TempDir;
namespace fs = std::filesystem;

// One metrics.jsonl line as the trainer writes it (the fields the comparison
// reads, and a few it does not); groups as {"key": accuracy}.
inline std::string metrics_line(const std::string& split, int step, double accuracy, double loss,
                                double wall_s,
                                const std::vector<std::pair<std::string, double>>& groups) {
  Json line = Json::object();
  line.set("step", step);
  line.set("split", split);
  line.set("loss", loss);
  line.set("accuracy", accuracy);
  line.set("token_accuracy", accuracy);
  line.set("wall_s", wall_s);
  if (!groups.empty()) {
    Json g = Json::object();
    for (const auto& [key, acc] : groups)
      g.set(key, Json::object()
                     .set("examples", 8)
                     .set("accuracy", acc)
                     .set("token_accuracy", acc)
                     .set("loss", 1.0 - acc));
    line.set("group_by", "length");
    line.set("groups", g);
  }
  return to_json(line) + "\n";
}

// Accuracy and loss of one split at steps 100, 200, 300, ...
struct Logged {
  std::vector<double> accuracy, loss;
  std::vector<std::pair<std::string, double>> final_groups;  // at the last step
};

// A run folder whose test and test_long splits were evaluated every 100
// steps (wall time step / 100 + offset seconds). Groups before the last
// evaluation read 0.125, so that only the last one's can give the medians.
inline std::string write_run(const TempDir& tmp, const std::string& name, const Logged& test,
                             const Logged& test_long, double offset) {
  const std::string dir = tmp.folder(name);
  std::string text;
  for (size_t i = 0; i < test.accuracy.size(); ++i) {
    const int step = 100 * static_cast<int>(i + 1);
    const bool last = i + 1 == test.accuracy.size();
    for (const auto* logged : {&test, &test_long}) {
      std::vector<std::pair<std::string, double>> groups = logged->final_groups;
      if (!last)
        for (auto& g : groups) g.second = 0.125;
      text += metrics_line(logged == &test ? "test" : "test_long", step, logged->accuracy[i],
                           logged->loss[i], step / 100.0 + offset, groups);
    }
  }
  write_file_atomic((fs::path(dir) / "metrics.jsonl").string(), text);
  return dir;
}

// Variant A: three seeds; variant B: one seed, without length 10 on test_long.
inline std::vector<VariantResult> summarised(const TempDir& tmp,
                                             const std::vector<double>& thresholds) {
  std::vector<SeedRun> a;
  a.push_back(read_run(
      write_run(tmp, "a0", {{0.2, 0.6, 0.95}, {0.8, 0.4, 0.05}, {{"1", 1.0}, {"2", 0.9}}},
                {{0.1, 0.3, 0.55}, {2.0, 1.5, 1.6}, {{"3", 1.0}, {"4", 0.5}, {"10", 0.0}}}, 0),
      thresholds));
  a.push_back(read_run(
      write_run(tmp, "a1", {{0.5, 0.8, 0.85}, {0.5, 0.2, 0.15}, {{"1", 1.0}, {"2", 0.7}}},
                {{0.0, 0.2, 0.4}, {2.5, 2.0, 1.8}, {{"3", 0.5}, {"4", 0.5}, {"10", 0.25}}}, 1),
      thresholds));
  a.push_back(read_run(
      write_run(tmp, "a2", {{0.3, 0.9, 0.99}, {0.7, 0.1, 0.01}, {{"1", 1.0}, {"2", 0.98}}},
                {{0.1, 0.45, 0.92}, {2.2, 1.2, 0.3}, {{"3", 0.75}, {"4", 1.0}, {"10", 0.5}}}, 2),
      thresholds));
  std::vector<SeedRun> b;
  b.push_back(read_run(write_run(tmp, "b0", {{0.9, 1.0}, {0.1, 0.0}, {{"1", 1.0}, {"2", 1.0}}},
                                 {{0.2, 0.6}, {1.0, 0.9}, {{"3", 0.75}, {"4", 0.5}}}, 0),
                       thresholds));
  return {summarise_variant(Variant{"A", {}, {}}, a, thresholds),
          summarise_variant(Variant{"B", {}, {}}, b, thresholds)};
}

}  // namespace compare_runs
