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
#include "tests/compare_runs.h"
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

using compare_runs::metrics_line;
using compare_runs::summarised;
using compare_runs::write_run;
using test_support::TempDir;

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

TEST_CASE("variant_labels: a variant is named by what it is, its path left to the legend") {
  auto labels = [](std::vector<std::string> names) {
    std::vector<tapir::VariantResult> results;
    for (const std::string& name : names) {
      tapir::VariantResult r;
      r.variant.name = name;
      results.push_back(r);
    }
    return tapir::variant_labels(results);
  };
  CHECK(
      labels({"baseline", "arch:runs/main/add/search/search-0/arch.safetensors",
              "arch:runs/main/add/search/search-12/arch.safetensors", "arch: 2 searches",
              "mlp-act=spline", "arch:found/gelu_like.safetensors", "arch:runs/x/arch.safetensors",
              "pos=alibi,arch:s/search-3/arch.safetensors", "fast: 2 pooled"}) ==
      std::vector<std::string>{"baseline", "search 0", "search 12", "2 searches pooled",
                               "mlp-act=spline", "gelu_like", "x", "pos=alibi,search 3",
                               "fast: 2 pooled"});
  // Two different names that would read the same keep their full names;
  // the others are still shortened.
  CHECK(labels({"arch:a/search-0/arch.safetensors", "arch:b/search-0/arch.safetensors",
                "arch:b/search-1/arch.safetensors"}) ==
        std::vector<std::string>{"arch:a/search-0/arch.safetensors",
                                 "arch:b/search-0/arch.safetensors", "search 1"});
  // A folder named search-something that is not a number is not a search's.
  CHECK(labels({"arch:s/search-x/arch.safetensors"}) == std::vector<std::string>{"search-x"});
}
