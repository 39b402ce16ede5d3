// `tapir compare`'s verdicts against the baseline (lab/compare.h): the steps
// ratio read from its interval, over pooled searches, and the verdicts on a
// final metric of a split named with --verdict METRIC[:SPLIT], on run
// folders with hand-written metrics.jsonl files (tests/compare_runs.h).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "base/json.h"
#include "lab/compare.h"
#include "tests/compare_runs.h"
#include "tests/test_support.h"
#include "tools/commands.h"

using namespace tapir;
namespace fs = std::filesystem;
using compare_runs::summarised;
using test_support::TempDir;

TEST_CASE("the verdict against the baseline is read from the interval of the steps ratio") {
  TempDir tmp;
  std::vector<VariantResult> results = summarised(tmp, {0.9});
  CHECK(compare_against_baseline(results).empty());  // no variant is the baseline
  CHECK(parse_json(compare_json(results, {0.9})).find("verdicts") == nullptr);
  results[1].variant.name = "baseline";  // B reaches 0.9 at step 100; A's median is 300
  const std::vector<BaselineVerdict> verdicts = compare_against_baseline(results);
  REQUIRE(verdicts.size() == 1);
  // A: 300, never, 200 over seeds 0-2 (never counted at the budget, 300);
  // the baseline: 100 on seed 0 only, so the seeds differ: unpaired.
  const BaselineVerdict& v = verdicts[0];
  CHECK_FALSE(v.steps.paired);
  CHECK(v.steps.ratio.point == 3);
  CHECK(v.steps.verdict == RatioVerdict::slower);
  const std::string line = verdict_line(v);
  CHECK(line ==
        "verdict: A is slower than baseline: steps to 0.90 on test at 3.00x [2.00, 3.00] baseline "
        "(median 300 against 100; unpaired, 3 seeds against 1; never: 1 of 3 against 0 of 1)");
  // One baseline seed has no spread to compare with.
  const std::string spread = spread_line(v);
  CHECK(spread ==
        "spread: A is inconclusive against baseline: variance of log steps to 0.90 on test needs 2 "
        "seeds a side that reach it (unpaired, 3 seeds against 1)");
  CHECK(compare_table_markdown(results, {0.9}).find(line + "\n" + spread + "\n") !=
        std::string::npos);
  const Json json = parse_json(compare_json(results, {0.9}));
  CHECK(json.at("verdicts").as_array()[0].as_string() == line);
  const Json& against = json.at("against_baseline").as_array()[0];
  CHECK(against.at("verdict").as_string() == "slower");
  CHECK(against.at("steps_ratio").at("ratio").as_double() == 3);
  CHECK(against.at("paired").as_bool() == false);
  CHECK(against.at("spread_ratio").at("ratio").is_null());
  CHECK(against.at("spread_verdict").as_string() == "inconclusive");
  CHECK(against.at("spread_p").is_null());
}

TEST_CASE("pooled variants: every run once, intervals and verdicts over parts, then seeds") {
  TempDir tmp;
  std::vector<VariantResult> results = summarised(tmp, {0.9});
  VariantResult second = results[0];  // the same three runs, as a second search's
  second.variant.name = "arch:s1";
  results[0].variant.name = "arch:s0";
  results.push_back(second);
  const VariantResult pooled = pool_arch_files(results, {"s0", "s1"});
  CHECK(pooled.variant.name == "arch: 2 searches");
  CHECK(pooled.runs.size() == 6);
  CHECK(pooled.pooled == std::vector<std::string>{"arch:s0", "arch:s1"});
  CHECK(pooled.part_of_run == std::vector<int>{0, 0, 0, 1, 1, 1});
  // A's test steps to 0.9 are 300, never, 200 in each part.
  CHECK(pooled.first().steps.front().median == 300);
  CHECK(pooled.first().steps_interval.front().lo == 200);
  CHECK(std::isinf(pooled.first().steps_interval.front().hi));
  CHECK_THROWS_WITH_AS(pool_arch_files(results, {"s0", "s9"}), "no variant arch:s9 to pool", Error);
  CHECK_THROWS_AS(pool_variants("one", {&results[0]}), Error);

  // Against a baseline that ran the same seeds: paired, over 2 searches x 3 seeds.
  results[1] = results[0];
  results[1].variant.name = "baseline";
  results.push_back(pooled);
  const std::vector<BaselineVerdict> verdicts = compare_against_baseline(results);
  REQUIRE(verdicts.size() == 3);
  const BaselineVerdict& v = verdicts.back();
  CHECK(v.steps.paired);
  CHECK(v.steps.groups == 2);
  CHECK(v.steps.ratio.point == 1);
  CHECK(verdict_line(v).find("at 2 searches x 3 seeds") != std::string::npos);
  // The same runs on both sides: the same spread, and every permutation ties.
  CHECK(
      spread_line(v) ==
      "spread: 2 searches pooled is inconclusive against baseline at 2 searches x 3 seeds: "
      "variance of log steps to 0.90 on test at 1.00x [1.00, 1.00] baseline's (permutation p = 1; "
      "paired by seed, 2 searches x 3 seeds)");
  const Json pooled_json = parse_json(compare_json(results, {0.9}));
  const Json& spread = pooled_json.at("against_baseline").as_array()[2];
  CHECK(spread.at("spread_ratio").at("ratio").as_double() == 1);
  CHECK(spread.at("spread_p").as_double() == 1);
  BaselineVerdict wider = v;  // as if the pooled ratio were 0.8 [0.5, 1.3]
  wider.steps.ratio = {0.8, 0.5, 1.3};
  wider.steps.seeds_to_decide = 7;
  CHECK(verdict_line(wider).find("; about 7 seeds per search would decide it") !=
        std::string::npos);
  CHECK(parse_json(compare_json(results, {0.9})).at("variants").as_array()[3].at("pooled").size() ==
        2);
}

TEST_CASE("verdicts on a final metric: a difference of medians on the split named") {
  TempDir tmp;
  std::vector<VariantResult> results = summarised(tmp, {0.9});
  // Without --verdict: steps on the first split, and test_long's accuracy
  // where every variant has that split.
  CHECK(
      default_verdicts(results) ==
      std::vector<VerdictSpec>{{VerdictMetric::steps, ""}, {VerdictMetric::accuracy, "test_long"}});
  std::vector<VariantResult> test_only = results;
  for (VariantResult& r : test_only) r.splits.resize(1);
  CHECK(default_verdicts(test_only) == std::vector<VerdictSpec>{{VerdictMetric::steps, ""}});

  // The same runs as baseline and variant, the variant's test_long final
  // accuracies all 0.1 higher: paired, every draw differs by 0.1.
  results[1] = results[0];
  results[1].variant.name = "baseline";
  for (SeedRun& run : results[0].runs) run.splits[1].final_accuracy += 0.1;
  const VerdictSpec long_accuracy{VerdictMetric::accuracy, "test_long"};
  std::vector<MetricVerdict> verdicts = compare_on_metric(results, long_accuracy);
  REQUIRE(verdicts.size() == 1);
  const MetricVerdict& v = verdicts[0];
  CHECK(v.difference.paired);
  CHECK(v.difference.difference.point == doctest::Approx(0.1));
  CHECK(v.difference.difference.lo == doctest::Approx(0.1));
  CHECK(v.difference.verdict == DifferenceVerdict::higher);
  CHECK(v.baseline_median == 0.55);  // finals 0.55, 0.4, 0.92
  const std::string line = metric_verdict_line(v);
  CHECK(line ==
        "verdict: A is higher than baseline: final accuracy on test_long at +0.1000 [+0.1000, "
        "+0.1000] baseline (median 0.6500 against 0.5500; paired by seed, 3 seeds)");
  const Json json = parse_json(compare_json(results, {0.9}));
  const Json& on_metric = json.at("on_metric").as_array()[0];
  CHECK(on_metric.at("verdict").as_string() == "higher");
  CHECK(on_metric.at("split").as_string() == "test_long");
  CHECK(on_metric.at("metric").as_string() == "accuracy");
  CHECK(json.at("verdicts").as_array()[1].as_string() == line);
  CHECK(compare_table_markdown(results, {0.9}).find(line + "\n") != std::string::npos);

  // Named verdicts replace the defaults, in their order; steps on test_long
  // are a ratio on that split.
  const std::vector<VerdictSpec> named = {long_accuracy, {VerdictMetric::steps, "test_long"}};
  const std::vector<std::string> lines = verdict_lines(judge(results, named), /*spreads=*/false);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == line);
  CHECK(lines[1].find("steps to 0.90 on test_long") != std::string::npos);
  CHECK(parse_json(compare_json(results, {0.9}, named))
            .at("against_baseline")
            .as_array()[0]
            .at("split") == Json("test_long"));

  // The baseline lower on every seed: lower; one variant of unpaired seeds.
  for (SeedRun& run : results[0].runs) run.splits[1].final_accuracy -= 0.3;
  CHECK(compare_on_metric(results, long_accuracy)[0].difference.verdict ==
        DifferenceVerdict::lower);
  CHECK_THROWS_WITH_AS(compare_on_metric(results, {VerdictMetric::bits_per_byte, "test"}),
                       doctest::Contains("logged no bits per byte on test"), Error);
  CHECK_THROWS_WITH_AS(compare_on_metric(results, {VerdictMetric::accuracy, "test_short"}),
                       doctest::Contains("logged no split 'test_short'"), Error);
}

TEST_CASE("a verdict is METRIC or METRIC:SPLIT") {
  CHECK(parse_verdict_spec("steps") == VerdictSpec{VerdictMetric::steps, ""});
  CHECK(parse_verdict_spec("accuracy:test_long") ==
        VerdictSpec{VerdictMetric::accuracy, "test_long"});
  CHECK(parse_verdict_spec("bits-per-byte:test") ==
        VerdictSpec{VerdictMetric::bits_per_byte, "test"});
  CHECK(verdict_spec_text(parse_verdict_spec("steps")) == "steps on the first split");
  CHECK_THROWS_WITH_AS(parse_verdict_spec("speed"), doctest::Contains("verdict metric"), Error);
  CHECK_THROWS_WITH_AS(parse_verdict_spec("accuracy:"), doctest::Contains("METRIC:SPLIT"), Error);
}

TEST_CASE("tapir compare refuses a verdict on a split the task does not evaluate") {
  TempDir tmp;
  const std::string out = (tmp.path() / "cmp").string();
  CLI::App app;
  Command compare = add_compare_command(app);
  std::vector<std::string> args = {out,         "--out",  "accuracy:test_long",
                                   "--verdict", "1",      "--steps",
                                   "modadd",    "--task", "compare"};
  app.parse(args);
  CHECK_THROWS_WITH_AS(compare.run(),
                       doctest::Contains("task modadd evaluates no split 'test_long'"), Error);
  CHECK_FALSE(fs::exists(out));
}
