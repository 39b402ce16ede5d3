// `tapir report` (report/page.h) on folders written by hand: a page for a run
// folder, and for broken files an error that names the file (and the line of
// a JSON Lines file) and what was wrong.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"
#include "optim/model_run.h"
#include "report/page.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

using test_support::TempDir;
using test_support::tiny_modadd;

std::string report_error(const fs::path& dir) {
  try {
    build_report(dir.string());
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("report: a run folder's metrics are read line by line, errors naming file and line") {
  TempDir dir;
  // Its config.json is read as a run reads it, every field checked.
  const std::string config = dir.write("config.json", "{}\n");
  dir.write("metrics.jsonl", R"({"step":10,"split":"test","accuracy":0.5,"loss":1.25})"
                             "\n");
  CHECK(report_error(dir.path()) == config + ": JSON: missing key 'task'");
  dir.write("config.json", to_json(resolved_config(tiny_modadd()).to_json(), 2) + "\n");
  const std::string good = R"({"step":10,"split":"test","accuracy":0.5,"loss":1.25})";
  const std::string metrics = dir.write("metrics.jsonl", good + "\n");
  CHECK(build_report(dir.path().string()).find("<h2>Learning curves</h2>") != std::string::npos);
  dir.write("metrics.jsonl", good + "\n" + good + "\n{\"step\":20,\n");
  CHECK(report_error(dir.path()) ==
        metrics + ": line 3: invalid JSON at byte 11: expected a string key");
  dir.write("metrics.jsonl", good + "\n" + R"({"step":20,"split":"test","loss":1.0})" + "\n");
  CHECK(report_error(dir.path()) == metrics + ": line 2: JSON: missing key 'accuracy'");
}

TEST_CASE("report: a search's and a comparison's JSON files are named in their errors") {
  TempDir search;
  search.write("search.json", "{}\n");
  search.write("search.jsonl", R"({"step":1,"mean_test_accuracy":0.5,"arch_loss":2.0})"
                               "\n");
  const std::string result = search.write(
      "search_result.json", R"({"steps":1,"untrained_mean_test_accuracy":0.1,)"
                            R"("final_mean_test_accuracy":0.5,"knot_abs_max":1.0,"near":false})");
  CHECK(report_error(search.path()) ==
        result +
            ": JSON: unknown key 'near' (known: steps, wall_s, untrained_mean_test_accuracy, "
            "final_mean_test_accuracy, knot_abs_max, model0_test_accuracy, near_chance)");
  fs::remove_all(search.path());

  TempDir compare;
  compare.write("compare.md", "");
  const std::string json = compare.write("compare.json", R"({"variants":3})");
  CHECK(report_error(compare.path()) == json + ": JSON: expected array, got integer");
  compare.write("compare.json", R"({"variants":[{"variant":"a","runs":[{"dir":")" +
                                    compare.path().string() + R"("}]}]})");
  // The variant's run (this folder too): its config.json is read as a run's config.
  compare.write("metrics.jsonl",
                R"({"step":10,"split":"test","accuracy":0.5,"loss":1.25,"wall_s":1.0})"
                "\n");
  const std::string config = compare.write("config.json", R"({"task":"modadd"})");
  CHECK(report_error(compare.path()) == config + ": JSON: missing key 'task_options'");
}

TEST_CASE("report: a comparison's ratios to the baseline, steps and spread, each in its panel") {
  TempDir compare;
  compare.write("compare.md", "");
  compare.write("config.json", to_json(resolved_config(tiny_modadd()).to_json(), 2) + "\n");
  compare.write("metrics.jsonl",
                R"({"step":10,"split":"test","accuracy":0.5,"loss":1.25,"wall_s":1.0})"
                "\n");
  // Two variants against the baseline; the second's spread has too few
  // seeds (null), and is left out of its panel rather than read as a number.
  const std::string against =
      R"("against_baseline":[)"
      R"({"variant":"a","split":"test","threshold":0.9,"verdict":"faster",)"
      R"("steps_ratio":{"ratio":0.5,"lo":0.4,"hi":0.6},)"
      R"("spread_ratio":{"ratio":0.25,"lo":0.1,"hi":0.7},"spread_verdict":"narrower"},)"
      R"({"variant":"b","split":"test","threshold":0.9,"verdict":"inconclusive",)"
      R"("steps_ratio":{"ratio":1.0,"lo":0.8,"hi":1.3},)"
      R"("spread_ratio":{"ratio":null,"lo":null,"hi":null},"spread_verdict":"inconclusive"}])";
  compare.write("compare.json", R"({"variants":[{"variant":"a","runs":[{"dir":")" +
                                    compare.path().string() + R"("}]}],)" + against + "}");
  const std::string html = build_report(compare.path().string());
  CHECK(html.find("<h2>Against the baseline</h2>") != std::string::npos);
  CHECK(html.find("variant steps / baseline steps (below 1: faster)") != std::string::npos);
  CHECK(html.find("variant spread / baseline spread (below 1: narrower)") != std::string::npos);
  CHECK(html.find("a: narrower") != std::string::npos);
  CHECK(html.find("b: inconclusive") != std::string::npos);  // its steps dot
  // A forest plot each: every variant's row labelled by its name, the
  // verdict beside it; b's spread row labelled but not drawn.
  size_t labels = 0;
  for (size_t at = html.find("class=\"forest-label\""); at != std::string::npos;
       at = html.find("class=\"forest-label\"", at + 1))
    ++labels;
  CHECK(labels == 4);
  CHECK(html.find(">narrower</text>") != std::string::npos);
  CHECK(html.find("data-colors=\"#D55E00 #009E73\"") != std::string::npos);  // steps: both drawn
  CHECK(html.find("data-colors=\"#D55E00\"") != std::string::npos);          // spread: a alone
}
