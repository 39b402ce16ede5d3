// `tapir compare`. Variants (tools/variant_options.h): specs become train
// options applied over the base configuration, flags included, and a bad spec
// fails with a message naming it. Summaries (lab/compare.h): run folders with
// hand-written metrics.jsonl files, read split by split, threshold by
// threshold and group by group, and written as compare.md and compare.json.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "base/error.h"
#include "base/file_io.h"
#include "base/json.h"
#include "lab/compare.h"
#include "tests/test_support.h"
#include "tools/commands.h"
#include "tools/variant_options.h"

using namespace tapir;
namespace fs = std::filesystem;

TEST_CASE("a variant's items are train options over the base configuration") {
  TrainConfig base;
  base.model.width = 48;
  base.schedule.base_lr = 3e-3;
  // Not a count any machine defaults to: --threads's default (the usable
  // cores) must not replace the base's.
  base.threads = 7;

  const TrainConfig same = apply_variant(base, parse_variant("baseline"));
  CHECK(same.model.width == 48);
  CHECK(same.threads == 7);
  CHECK(same.model.pos == base.model.pos);
  CHECK_FALSE(same.constraint.enabled());

  const TrainConfig v = apply_variant(base, parse_variant("pos=alibi,arch:some/file.safetensors"));
  CHECK(v.model.pos == Positions::alibi);
  CHECK(v.arch_file == "some/file.safetensors");
  CHECK(v.model.width == 48);  // untouched options keep the base's values
  CHECK(v.schedule.base_lr == doctest::Approx(3e-3));

  const TrainConfig c = apply_variant(
      base, parse_variant("constraint=descent,alpha=0.25,dual-lr=0.05,detach-previous"));
  CHECK(c.constraint.enabled());
  REQUIRE(c.constraint.alpha.size() == 1);
  CHECK(c.constraint.alpha[0] == doctest::Approx(0.25));
  CHECK(c.constraint.dual_lr == doctest::Approx(0.05));
  CHECK(c.constraint.detach_previous);
  CHECK_FALSE(apply_variant(base, parse_variant("constraint=descent,detach-previous=false"))
                  .constraint.detach_previous);

  // Items that are not train options are the task's.
  const TrainConfig t = apply_variant(base, parse_variant("p=53,width=32"));
  CHECK(t.task_options.get_string("p", "") == "53");
  CHECK(t.model.width == 32);
}

TEST_CASE("a bad variant fails naming the variant") {
  TrainConfig base;
  CHECK_THROWS_WITH_AS(parse_variant("pos=alibi,,width=3"),
                       doctest::Contains("variant 'pos=alibi,,width=3'"), Error);
  CHECK_THROWS_WITH_AS(apply_variant(base, parse_variant("no-such-option=1")),
                       doctest::Contains("variant 'no-such-option=1'"), Error);
  CHECK_THROWS_WITH_AS(apply_variant(base, parse_variant("width=wide")),
                       doctest::Contains("variant 'width=wide'"), Error);
}

namespace {

using test_support::TempDir;

// One metrics.jsonl line as the trainer writes it (the fields the comparison
// reads, and a few it does not); groups as {"key": accuracy}.
std::string metrics_line(const std::string& split, int step, double accuracy, double loss,
                         double wall_s, const std::vector<std::pair<std::string, double>>& groups) {
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
std::string write_run(const TempDir& tmp, const std::string& name, const Logged& test,
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
std::vector<VariantResult> summarised(const TempDir& tmp, const std::vector<double>& thresholds) {
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

void check_spread(const Spread& s, double median, double q1, double q3, int never, int count) {
  CHECK(s.median == median);
  CHECK(s.q1 == q1);
  CHECK(s.q3 == q3);
  CHECK(s.never == never);
  CHECK(s.count == count);
}

}  // namespace

TEST_CASE("a comparison summarises every split, threshold by threshold and group by group") {
  TempDir tmp;
  const std::vector<VariantResult> results = summarised(tmp, {0.5, 0.9});
  const VariantResult& a = results[0];
  CHECK(a.group_by == "length");
  CHECK(a.thresholds == std::vector<double>{0.5, 0.9});
  REQUIRE(a.splits.size() == 2);
  CHECK(a.first().split == "test");
  CHECK(a.splits[1].split == "test_long");

  // One run's own numbers: steps and seconds per threshold, last groups.
  const SplitRun& run = a.runs[1].splits[1];  // seed 1, test_long
  CHECK(run.steps_to == std::vector<double>{kNever, kNever});
  CHECK(run.final_accuracy == 0.4);
  CHECK(run.best_loss == 1.8);
  REQUIRE(run.final_groups.size() == 3);
  CHECK(run.final_groups[2].key == "10");
  CHECK(run.final_groups[2].accuracy == 0.25);
  CHECK(a.runs[2].first().steps_to == std::vector<double>{200, 200});
  CHECK(a.runs[2].first().seconds_to == std::vector<double>{4, 4});

  // test: reached 0.5 at 200, 100, 200; 0.9 at 300, never, 200.
  const SplitSummary& test = a.splits[0];
  check_spread(test.steps[0], 200, 150, 200, 0, 3);
  check_spread(test.seconds[0], 2, 2, 3, 0, 3);
  check_spread(test.steps[1], 300, 250, kNever, 1, 3);
  check_spread(test.seconds[1], 4, 3.5, kNever, 1, 3);
  CHECK(test.final_accuracy.median == 0.95);
  CHECK(test.final_accuracy.min == 0.85);
  CHECK(test.final_accuracy.max == 0.99);
  CHECK(test.best_loss.median == 0.05);
  REQUIRE(test.groups.size() == 2);
  CHECK(test.groups[1].key == "2");
  CHECK(test.groups[1].accuracy.median == 0.9);

  // test_long: 0.5 at 300, never, 300; 0.9 only by seed 2, at 300.
  const SplitSummary& long_split = a.splits[1];
  check_spread(long_split.steps[0], 300, 300, kNever, 1, 3);
  check_spread(long_split.seconds[0], 5, 4, kNever, 1, 3);
  check_spread(long_split.steps[1], kNever, kNever, kNever, 2, 3);
  CHECK(long_split.steps[1].min == 300);
  CHECK(long_split.final_accuracy.median == 0.55);
  CHECK(long_split.best_loss.median == 1.5);
  // Groups in the order logged (not as sorted text), medians of the last evaluation.
  REQUIRE(long_split.groups.size() == 3);
  CHECK(long_split.groups[0].key == "3");
  CHECK(long_split.groups[1].key == "4");
  CHECK(long_split.groups[2].key == "10");
  CHECK(long_split.groups[0].accuracy.median == 0.75);
  CHECK(long_split.groups[1].accuracy.median == 0.5);
  CHECK(long_split.groups[2].accuracy.median == 0.25);
  CHECK(long_split.groups[2].accuracy.min == 0.0);
  CHECK(long_split.groups[2].accuracy.max == 0.5);

  const VariantResult& b = results[1];
  check_spread(b.splits[1].steps[0], 200, 200, 200, 0, 1);
  check_spread(b.splits[1].steps[1], kNever, kNever, kNever, 1, 1);
  CHECK(b.splits[1].groups.size() == 2);
}

TEST_CASE("compare.md has a table per split with columns per threshold, and group tables") {
  TempDir tmp;
  const std::string md = compare_table_markdown(summarised(tmp, {0.5, 0.9}), {0.5, 0.9});
  const std::string test_table =
      "Split test (the first evaluation split):\n\n"
      "| variant | seeds | steps to 0.50: median [95% CI] | never reached 0.50 | steps to 0.90: "
      "median [95% CI] | never reached 0.90 | final test acc: median [95% CI] | best test loss: "
      "median [95% CI] |\n"
      "|---|---|---|---|---|---|---|---|\n"
      "| A | 3 | 200 [100, 200] | 0 of 3 | 300 [200, never] | 1 of 3 | 0.9500 "
      "[0.8500, 0.9900] | 0.0500 [0.0100, 0.1500] |\n"
      "| B | 1 | 100 [100, 100] | 0 of 1 | 100 [100, 100] | 0 of 1 | 1.0000 "
      "[1.0000, 1.0000] | 0.0000 [0.0000, 0.0000] |\n";
  CHECK(md.rfind(test_table, 0) == 0);
  CHECK(md.find("\nSplit test_long:\n\n") != std::string::npos);
  // Three seeds: a bootstrap interval of the median spans the smallest to
  // the largest value (each is the median of a quarter of the resamples).
  CHECK(md.find("| A | 3 | 300 [300, never] | 1 of 3 | never [300, never] | 2 of 3 "
                "| 0.5500 [0.4000, 0.9200] | 1.5000 [0.3000, 1.8000] |\n") != std::string::npos);
  CHECK(md.find("| B | 1 | 200 [200, 200] | 0 of 1 | never [never, never] | 1 of 1 "
                "| 0.6000 [0.6000, 0.6000] | 0.9000 [0.9000, 0.9000] |\n") != std::string::npos);
  CHECK(md.find("\nSplit test_long, final accuracy by length (median over seeds):\n\n"
                "| length | A | B |\n|---|---|---|\n"
                "| 3 | 0.7500 | 0.7500 |\n| 4 | 0.5000 | 0.5000 |\n| 10 | 0.2500 | - |\n") !=
        std::string::npos);
  CHECK(md.find("| 2 | 0.9000 | 1.0000 |\n") != std::string::npos);  // test by length
  // The split tables come in the task's order.
  CHECK(md.find("Split test_long:") < md.find("Split test_long, final accuracy"));
}

TEST_CASE("compare.json carries every split, threshold and group, and the per-run values") {
  TempDir tmp;
  const Json j = parse_json(compare_json(summarised(tmp, {0.5, 0.9}), {0.5, 0.9}));
  CHECK(j.at("threshold").as_double() == 0.5);
  CHECK(j.at("thresholds") == parse_json("[0.5, 0.9]"));
  CHECK(j.at("splits") == parse_json(R"(["test", "test_long"])"));
  CHECK(j.at("group_by").as_string() == "length");
  const Json& a = j.at("variants").as_array()[0];
  CHECK(a.at("variant").as_string() == "A");
  // The first split at the first threshold, where one-threshold readers look.
  CHECK(a.at("steps_to_threshold").at("median").as_double() == 200);
  CHECK(a.at("final_accuracy").at("median").as_double() == 0.95);
  const Json& test = a.at("splits").at("test");
  CHECK(test.at("thresholds").as_array()[1].at("threshold").as_double() == 0.9);
  const Json& steps_09 = test.at("thresholds").as_array()[1].at("steps_to_threshold");
  CHECK(steps_09.at("median").as_double() == 300);
  CHECK(steps_09.at("q3").is_null());  // never reached: +infinity, written as null
  CHECK(steps_09.at("never").as_int() == 1);
  CHECK(test.at("thresholds").as_array()[0].at("seconds_to_threshold").at("q3").as_double() == 3);
  const Json& long_split = a.at("splits").at("test_long");
  CHECK(long_split.at("thresholds").as_array()[1].at("steps_to_threshold").at("never").as_int() ==
        2);
  CHECK(long_split.at("final_accuracy").at("median").as_double() == 0.55);
  const Json& groups = long_split.at("groups");
  REQUIRE(groups.size() == 3);
  CHECK(groups.as_object()[2].first == "10");
  CHECK(groups.at("10").at("median").as_double() == 0.25);
  CHECK(groups.at("3").at("count").as_int() == 3);

  const Json& runs = a.at("runs");
  REQUIRE(runs.size() == 3);
  const Json& run1 = runs.as_array()[1];
  CHECK(run1.at("steps_to_threshold").as_double() == 100);
  CHECK(run1.at("final_accuracy").as_double() == 0.85);
  const Json& run1_steps = run1.at("splits").at("test").at("steps_to_threshold");
  REQUIRE(run1_steps.size() == 2);
  CHECK(run1_steps.as_array()[0].as_double() == 100);
  CHECK(run1_steps.as_array()[1].is_null());
  CHECK(run1.at("splits").at("test_long").at("groups").at("10").as_double() == 0.25);
  CHECK(run1.at("splits").at("test_long").at("seconds_to_threshold") == parse_json("[null, null]"));
  CHECK(j.at("variants").as_array()[1].at("splits").at("test_long").at("groups").find("10") ==
        nullptr);
}

TEST_CASE("one threshold gives the first split's numbers of the several-threshold comparison") {
  TempDir tmp;
  const std::vector<VariantResult> one = summarised(tmp, {0.9});
  const std::vector<VariantResult> two = summarised(tmp, {0.5, 0.9});
  for (size_t v = 0; v < one.size(); ++v)
    for (size_t k = 0; k < one[v].splits.size(); ++k) {
      CHECK(one[v].splits[k].steps[0].median == two[v].splits[k].steps[1].median);
      CHECK(one[v].splits[k].seconds[0].q1 == two[v].splits[k].seconds[1].q1);
    }
  CHECK(parse_json(compare_json(one, {0.9})).at("thresholds") == parse_json("[0.9]"));
  CHECK(compare_table_markdown(one, {0.9}).find("| A | 3 | 300 [200, never] | 1 of 3 |") !=
        std::string::npos);
}

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

TEST_CASE("thresholds are a comma list of accuracies in (0, 1], none twice") {
  CHECK(parse_thresholds("0.99") == std::vector<double>{0.99});
  CHECK(parse_thresholds("0.9,0.99,1") == std::vector<double>{0.9, 0.99, 1.0});
  CHECK_THROWS_WITH_AS(parse_thresholds("0.9,1.5"), doctest::Contains("1.5 is not an accuracy"),
                       Error);
  CHECK_THROWS_WITH_AS(parse_thresholds("0"), doctest::Contains("0 is not an accuracy in (0, 1]"),
                       Error);
  CHECK_THROWS_AS(parse_thresholds("-0.5"), Error);
  CHECK_THROWS_WITH_AS(parse_thresholds("0.9,,0.99"),
                       doctest::Contains("comma-separated list of numbers"), Error);
  CHECK_THROWS_AS(parse_thresholds("high"), Error);
  CHECK_THROWS_AS(parse_thresholds(""), Error);
  CHECK_THROWS_WITH_AS(parse_thresholds("0.9,0.9"), doctest::Contains("0.9 is listed twice"),
                       Error);
}

TEST_CASE("tapir compare refuses a bad threshold list before it trains") {
  TempDir tmp;
  const std::string out = (tmp.path() / "cmp").string();
  CLI::App app;
  Command compare = add_compare_command(app);
  std::vector<std::string> args = {out,       "--out", "0.5,2",  "--threshold", "1",
                                   "--steps", "copy",  "--task", "compare"};  // reversed for CLI11
  app.parse(args);
  CHECK_THROWS_WITH_AS(compare.run(), doctest::Contains("--threshold: 2 is not an accuracy"),
                       Error);
  CHECK_FALSE(fs::exists(out));
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
      "spread: arch: 2 searches is inconclusive against baseline at 2 searches x 3 seeds: "
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

TEST_CASE("pool=NAME: not a train option; the variants of one name pooled as one more row") {
  const Variant a = parse_variant("mlp-poly=s0.json,pool=poly8");
  CHECK(a.pool == "poly8");
  CHECK(a.args == std::vector<std::string>{"--mlp-poly=s0.json"});
  CHECK(parse_variant("arch:s1.safetensors").pool.empty());
  CHECK_THROWS_WITH_AS(parse_variant("width=32,pool="),
                       doctest::Contains("pool=NAME names one pool"), Error);
  CHECK_THROWS_WITH_AS(parse_variant("pool=a,pool=b"),
                       doctest::Contains("pool=NAME names one pool"), Error);
  CHECK_THROWS_WITH_AS(check_pools({parse_variant("baseline"), a}),
                       "pool 'poly8' has one variant (mlp-poly=s0.json,pool=poly8); pooling needs "
                       "two or more with pool=poly8",
                       Error);
  CHECK_NOTHROW(check_pools({a, parse_variant("mlp-poly=s1.json,pool=poly8")}));

  TempDir tmp;
  std::vector<VariantResult> results = summarised(tmp, {0.9});
  results[0].variant = parse_variant("mlp-poly=s0.json,pool=poly8");
  VariantResult second = results[0];
  second.variant = parse_variant("mlp-poly=s1.json,pool=poly8");
  results.push_back(second);
  VariantResult other = results[1];
  other.variant = parse_variant("width=32,pool=wide");
  results.push_back(other);
  results.push_back(other);
  const std::vector<VariantResult> pools = pool_named(results);
  REQUIRE(pools.size() == 2);
  CHECK(pools[0].variant.name == "poly8: 2 pooled");
  CHECK(pools[0].pooled ==
        std::vector<std::string>{"mlp-poly=s0.json,pool=poly8", "mlp-poly=s1.json,pool=poly8"});
  CHECK(pools[0].runs.size() == 6);
  CHECK(pools[0].part_of_run == std::vector<int>{0, 0, 0, 1, 1, 1});
  CHECK(pools[1].variant.name == "wide: 2 pooled");
}

TEST_CASE("text runs: the last evaluation's bits per byte, summarised and tabled") {
  TempDir tmp;
  const std::vector<double> thresholds = {0.5};
  // Bits per byte logged at every evaluation; only the last counts.
  const auto text_run = [&](const std::string& name, double last_bits) {
    std::string text;
    for (int i = 1; i <= 3; ++i) {
      Json line = parse_json(metrics_line("test", 100 * i, 0.2 * i, 3.0 - i, i, {}));
      line.set("bits_per_byte", i == 3 ? last_bits : 9.0);
      text += to_json(line) + "\n";
    }
    const std::string dir = tmp.folder(name);
    write_file_atomic((fs::path(dir) / "metrics.jsonl").string(), text);
    return read_run(dir, thresholds);
  };
  std::vector<SeedRun> gelu = {text_run("g0", 2.0), text_run("g1", 2.2), text_run("g2", 2.1)};
  CHECK(gelu[1].first().final_bits_per_byte == 2.2);
  std::vector<VariantResult> results = {
      summarise_variant(Variant{"baseline", {}, {}}, gelu, thresholds),
      summarise_variant(Variant{"subwords", {}, {}},
                        {text_run("s0", 1.8), text_run("s1", 1.9), text_run("s2", 1.7)},
                        thresholds)};
  const SplitSummary& b = results[0].first();
  CHECK(b.final_bits_per_byte.count == 3);
  CHECK(b.final_bits_per_byte.median == 2.1);
  CHECK(b.final_bits_per_byte_interval.lo <= 2.1);
  CHECK(b.final_bits_per_byte_interval.hi >= 2.1);
  const std::string table = compare_table_markdown(results, thresholds);
  CHECK(table.find("final test bits per byte: median [95% CI]") != std::string::npos);
  CHECK(table.find("| 1.8000 [") != std::string::npos);
  const Json json = parse_json(compare_json(results, thresholds));
  const Json& split = json.at("variants").as_array()[1].at("splits").at("test");
  CHECK(split.at("final_bits_per_byte").at("median").as_double() == doctest::Approx(1.8));
  CHECK(json.at("variants")
            .as_array()[1]
            .at("runs")
            .as_array()[0]
            .at("splits")
            .at("test")
            .at("final_bits_per_byte")
            .as_double() == doctest::Approx(1.8));
  // Runs that log no bits (the algorithmic tasks): no column, no keys.
  const std::vector<VariantResult> plain = summarised(tmp, thresholds);
  CHECK(plain[0].first().final_bits_per_byte.count == 0);
  CHECK(compare_table_markdown(plain, thresholds).find("bits per byte") == std::string::npos);
  CHECK(parse_json(compare_json(plain, thresholds))
            .at("variants")
            .as_array()[0]
            .at("splits")
            .at("test")
            .find("final_bits_per_byte") == nullptr);
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
