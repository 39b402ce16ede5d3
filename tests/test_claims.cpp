// Claim records (lab/claims.h): the status rule on every side of its
// bounds, the strict reading of a record, the checks that refuse a record
// whose status the numbers do not give or whose cell is too long, the number
// read from a comparison's compare.json, and the renderer's table and tally.
#include <doctest/doctest.h>

#include <filesystem>

#include "base/error.h"
#include "base/file_io.h"
#include "lab/claims.h"
#include "report/claims_pages.h"
#include "tests/test_support.h"

using namespace tapir;

namespace {

// A steps ratio claimed 2x faster (lower is better, no effect at 1).
ClaimMeasure steps_measure() {
  ClaimMeasure m;
  m.statistic = "median steps to 90%, splines over GeLU";
  m.higher_better = false;
  m.null_value = 1;
  m.size = 0.5;
  m.format = "ratio";
  return m;
}

ClaimResult result(double value, double lo, double hi, std::string status = "") {
  ClaimResult r;
  r.value = value;
  r.lo = lo;
  r.hi = hi;
  r.searches = 3;
  r.seeds = 3;
  r.status = std::move(status);
  return r;
}

ClaimRecord record_with(const ClaimMeasure& m, const ClaimResult& r) {
  ClaimRecord record;
  record.id = "T1-test";
  record.order = 1;
  record.paper = "Teney et al. 2026";
  record.paper_source = "paper";
  record.claim = "splines converge faster";
  record.paper_figure = "2-3x fewer steps";
  record.setting = "small";
  record.protocol = "authors";
  record.command = "tapir claims run T1-test";
  record.measure = m;
  record.result = r;
  record.result->status = status_by_rule(m, r);
  return record;
}

}  // namespace

TEST_CASE("the effect rule: decided, at the paper's figure, short of it, the other way") {
  const ClaimMeasure m = steps_measure();
  CHECK(status_by_rule(m, result(0.45, 0.30, 0.60)) == "reproduced");
  // Faster, but the point estimate short of 2x even where the interval
  // reaches it.
  CHECK(status_by_rule(m, result(0.58, 0.46, 0.67)) == "in direction only");
  CHECK(status_by_rule(m, result(1.67, 1.50, 2.14)) == "reversed");
  // Undecided, and the whole interval short of 2x.
  CHECK(status_by_rule(m, result(1.18, 1.00, 1.33)) == "not reproduced");
  // Undecided, the interval holding both no effect and 2x.
  CHECK(status_by_rule(m, result(1.00, 0.50, 1.00)) == "inconclusive");
  ClaimResult none;
  none.searches = 1;
  none.seeds = 2;
  CHECK(status_by_rule(m, none) == "inconclusive");

  ClaimMeasure higher;  // a difference of accuracy, no figure in the paper
  higher.higher_better = true;
  higher.null_value = 0;
  higher.format = "difference";
  CHECK(status_by_rule(higher, result(0.318, 0.278, 0.402)) == "reproduced");
  CHECK(status_by_rule(higher, result(-0.1, -0.2, -0.01)) == "reversed");
  CHECK(status_by_rule(higher, result(0.01, -0.02, 0.05)) == "inconclusive");
}

TEST_CASE("the bound rule: within the paper's bound, beyond it, or undecided") {
  ClaimMeasure m;
  m.higher_better = true;
  m.null_value = 0;
  m.size = -0.003;  // at most 0.3 points lost
  m.rule = "bound";
  m.format = "difference";
  CHECK(status_by_rule(m, result(0.003, -0.002, 0.025)) == "reproduced");
  CHECK(status_by_rule(m, result(-0.017, -0.036, -0.005)) == "not reproduced");
  CHECK(status_by_rule(m, result(-0.017, -0.036, -0.002)) == "inconclusive");
  // "judged" keeps what the record says.
  m.rule = "judged";
  CHECK(status_by_rule(m, result(1, 1, 1, "reversed")) == "reversed");
}

TEST_CASE("a record whose status the numbers do not give, or with a long cell, is refused") {
  ClaimRecord r = record_with(steps_measure(), result(1.18, 1.00, 1.33));
  CHECK(claim_problems(r).empty());
  r.result->status = "reproduced";
  REQUIRE(claim_problems(r).size() == 1);
  CHECK(claim_problems(r)[0] ==
        "status 'reproduced' is not what rule effect gives for 1.18x [1.00, 1.33]: not "
        "reproduced");
  r.result->status = "not reproduced";
  r.setting = std::string(200, 'a');
  CHECK(claim_problems(r).empty());  // one long word
  r.setting.clear();
  for (int i = 0; i < 41; ++i) r.setting += "word ";
  REQUIRE(claim_problems(r).size() == 1);
  CHECK(claim_problems(r)[0] == "setting has 41 words (at most 40)");

  ClaimRecord untestable;
  untestable.id = "K6-llama";
  untestable.paper = "Porras-Valenzuela et al. 2026";
  untestable.claim = "a large model";
  untestable.paper_figure = "69.93%";
  untestable.setting = "none";
  CHECK(shown_status(untestable) == "not measured");
  CHECK(claim_problems(untestable) ==
        std::vector<std::string>{"a claim testable here needs its measure"});
  untestable.reason = "no such model offline";
  CHECK(shown_status(untestable) == "not testable here");
  CHECK(claim_problems(untestable).empty());
}

TEST_CASE("a record reads back as written, and an unknown key is named") {
  const ClaimRecord r = record_with(steps_measure(), result(1.18, 1.00, 1.33));
  const Json j = claim_to_json(r);
  CHECK(claim_to_json(claim_from_json(j)) == j);
  Json typo = j;
  typo.set("setings", "x");
  CHECK_THROWS_WITH(claim_from_json(typo),
                    doctest::Contains("record: unknown key 'setings' (known: id, order"));
  Json bad_rule = j;
  Json m = j.at("measure");
  m.set("rule", "vibes");
  bad_rule.set("measure", m);
  CHECK_THROWS_WITH(claim_from_json(bad_rule),
                    "measure: rule must be effect, bound or judged, not 'vibes'");
  // A measure against another experiment is a "between" one, and only it.
  Json against = j;
  Json m2 = j.at("measure");
  m2.set("experiment", "one");
  m2.set("against", "other");
  m2.set("field", "between");
  against.set("measure", m2);
  CHECK(claim_from_json(against).measure->against == "other");
  m2.set("field", "difference");
  against.set("measure", m2);
  CHECK_THROWS_WITH(
      claim_from_json(against),
      doctest::Contains("measure: fields between and gain_between need the experiment they are "
                        "measured against, and only they take one"));
}

TEST_CASE("read_claims: sorted by order, named for their ids, free of problems") {
  const test_support::TempDir tmp;
  const std::string dir = tmp.folder("records");
  ClaimRecord a = record_with(steps_measure(), result(1.18, 1.00, 1.33));
  a.id = "T1-b";
  a.order = 2;
  ClaimRecord b = a;
  b.id = "T1-a";
  b.order = 1;
  write_claim(dir, a);
  write_claim(dir, b);
  const std::vector<ClaimRecord> records = read_claims(dir);
  REQUIRE(records.size() == 2);
  CHECK(records[0].id == "T1-a");
  write_file_atomic(dir + "/T1-c.json", to_json(claim_to_json(a)));
  CHECK_THROWS_WITH(read_claims(dir),
                    doctest::Contains("T1-c.json: id 'T1-b' is not the file's name"));
  std::filesystem::remove(dir + "/T1-c.json");
  a.result->status = "reproduced";
  write_claim(dir, a);
  CHECK_THROWS_WITH(read_claims(dir), doctest::Contains("T1-b.json: status 'reproduced' is not"));
}

TEST_CASE("result_from_compare reads the pooled searches' interval, n and detail") {
  const Json compare = parse_json(R"json({
    "verdicts": [
      "verdict: arch: 3 searches is faster than baseline: steps to 0.90 on test at 0.64x [0.45, 0.82] baseline (median 700 against 1100; paired by seed, 3 searches x 3 seeds; never: 0 of 9 against 0 of 3)"],
    "against_baseline": [
      {"variant": "arch:x/search-0/arch.safetensors", "split": "test", "seeds": 3,
       "steps_ratio": {"ratio": 0.7, "lo": 0.3, "hi": 0.8}, "spread_ratio": {"ratio": null, "lo": null, "hi": null}},
      {"variant": "arch: 3 searches", "split": "test", "seeds": 3, "searches": 3,
       "steps_ratio": {"ratio": 0.6363, "lo": 0.4545, "hi": 0.8181},
       "spread_ratio": {"ratio": 37.6, "lo": 10.9, "hi": 166.5}, "spread_p": 0.0075}],
    "on_metric": [
      {"variant": "arch: 3 searches", "metric": "accuracy", "split": "test_long", "seeds": 3,
       "searches": 3, "difference": {"difference": 0.318, "lo": 0.278, "hi": 0.402}}]})json");
  ClaimMeasure m = steps_measure();
  m.experiment = "copy";
  m.field = "steps_ratio";
  m.variant = "arch";
  m.split = "test";
  ClaimResult r = result_from_compare(m, compare);
  CHECK(r.value.value() == doctest::Approx(0.6363));
  CHECK(r.searches == 3);
  CHECK(r.seeds == 3);
  CHECK(r.status == "in direction only");
  // The verdict's "3 searches x 3 seeds" is left to the row's n.
  CHECK(r.detail == "median 700 against 1100; paired by seed; never: 0 of 9 against 0 of 3");
  m.field = "spread_ratio";
  m.size = 0.25;
  r = result_from_compare(m, compare);
  CHECK(r.status == "reversed");
  CHECK(r.detail == "variance of log steps, permutation p = 0.007");
  m.field = "difference";
  m.split = "test_long";
  m.metric = "accuracy";
  m.higher_better = true;
  m.null_value = 0;
  m.size.reset();
  r = result_from_compare(m, compare);
  CHECK(r.status == "reproduced");
  m.decimals = 3;
  m.format = "difference";
  CHECK(format_claim_figure(m, r) == "+0.318 [+0.278, +0.402]");
  m.split = "test";
  CHECK_THROWS_WITH(
      result_from_compare(m, compare),
      "compare.json: no on_metric entry for variant 'arch' on split 'test' (metric accuracy)");
}

TEST_CASE("result_from_compare counts the pooled row's searches that help on their own") {
  // Steps to the threshold, lower is better: search 0's interval is below 1,
  // search 1's estimate only, search 2 is slower. A control's row is no
  // search of the pool.
  const Json compare = parse_json(R"json({
    "verdicts": [],
    "against_baseline": [
      {"variant": "arch:x/search-0/arch.safetensors", "split": "test", "seeds": 3,
       "steps_ratio": {"ratio": 0.7, "lo": 0.3, "hi": 0.8}},
      {"variant": "arch:x/search-1/arch.safetensors", "split": "test", "seeds": 3,
       "steps_ratio": {"ratio": 0.9, "lo": 0.6, "hi": 1.2}},
      {"variant": "arch:x/search-2/arch.safetensors", "split": "test", "seeds": 3,
       "steps_ratio": {"ratio": 1.1, "lo": 0.8, "hi": 1.5}},
      {"variant": "arch:x/controls/search-0-gelu.safetensors,pool=control-gelu", "split": "test",
       "seeds": 3, "steps_ratio": {"ratio": 0.5, "lo": 0.4, "hi": 0.6}},
      {"variant": "arch: 3 searches", "split": "test", "seeds": 3, "searches": 3,
       "steps_ratio": {"ratio": 0.9, "lo": 0.7, "hi": 1.1}}]})json");
  ClaimMeasure m = steps_measure();
  m.experiment = "copy";
  m.field = "steps_ratio";
  m.variant = "arch";
  m.split = "test";
  const ClaimResult r = result_from_compare(m, compare);
  CHECK(r.detail.ends_with("; 1/3 searches help alone (2/3 in direction)"));
  m.higher_better = true;  // read the other way: search 2 alone helps in direction
  CHECK(result_from_compare(m, compare)
            .detail.ends_with("; 0/3 searches help alone (1/3 in direction)"));
}

TEST_CASE("result_from_compare says what each arm was tuned against and what it cost") {
  // The baseline and two searches, each tuned (lab/tune.h), and the pooled
  // row, whose compute is its parts' sum (lab/arm_cost.h).
  const auto tuning = [](const char* chosen) {
    return std::string(R"({"grid": {"lr": ["1e-3", "3e-3"]}, "seeds": [500000, 500001],
      "chosen_text": ")") +
           chosen + "\"}";
  };
  const auto compute = [](double flops, double searches, double tune) {
    return R"({"flops": )" + std::to_string(flops) + R"(, "runs": {"count": 3, "flops": 1},
      "searches": {"count": )" +
           (searches > 0 ? "1" : "0") + R"(, "flops": )" + std::to_string(searches) +
           R"(}, "tuning": {"count": 4, "flops": )" + std::to_string(tune) + "}}";
  };
  const Json compare = parse_json(
      R"({"variants": [
      {"variant": "baseline", "label": "baseline", "tuning": )" +
      tuning("lr=3e-3") + R"(, "compute": )" + compute(2e12, 0, 1.5e12) + R"(},
      {"variant": "arch:s0/arch.safetensors", "label": "s0", "tuning": )" +
      tuning("lr=1e-3") + R"(, "compute": )" + compute(3e12, 1e12, 1.5e12) + R"(},
      {"variant": "arch:s1/arch.safetensors", "label": "s1", "tuning": )" +
      tuning("lr=3e-3") + R"(, "compute": )" + compute(3e12, 1e12, 1.5e12) + R"(},
      {"variant": "arch: 2 searches", "label": "arch: 2 searches",
       "pooled": ["arch:s0/arch.safetensors", "arch:s1/arch.safetensors"],
       "compute": )" +
      compute(6e12, 2e12, 3e12) + R"(}],
    "against_baseline": [
      {"variant": "arch: 2 searches", "split": "test", "seeds": 3, "searches": 2,
       "steps_ratio": {"ratio": 0.9, "lo": 0.5, "hi": 1.2}}]})");
  ClaimMeasure m = steps_measure();
  m.experiment = "add";
  m.field = "steps_ratio";
  m.variant = "arch";
  m.split = "test";
  const ClaimResult r = result_from_compare(m, compare);
  CHECK(r.tuned ==
        "both tuned on arch (lr 1e-3/3e-3; 2 seeds): baseline lr=3e-3; arch: 2 searches lr=1e-3, "
        "lr=3e-3");
  CHECK(r.compute ==
        "FLOPs arch: 2 searches 6e+12 (searches 2e+12, tuning 3e+12), baseline 2e+12 (tuning "
        "1.5e+12): 3.00x");
  // Both survive a record's round trip, and the table shows them.
  ClaimRecord record = record_with(m, r);
  const ClaimRecord back = claim_from_json(claim_to_json(record));
  CHECK(back.result->tuned == r.tuned);
  CHECK(back.result->compute == r.compute);
  CHECK(claim_tuning_text(back) == r.tuned + "; " + r.compute);
}

TEST_CASE("result_versus: the searches' functions against their controls, paired by seed") {
  // Two searches x 2 seeds, and the gelu control of each search pooled.
  const auto runs = [](double a, double b) {
    return R"("runs": [{"dir": "r0", "splits": {"test_long": {"final_accuracy": )" +
           std::to_string(a) + R"(}}}, {"dir": "r1", "splits": {"test_long": {"final_accuracy": )" +
           std::to_string(b) + "}}}]";
  };
  const Json compare =
      parse_json(R"({"variants": [{"variant": "baseline", )" + runs(0.1, 0.1) + R"(},
      {"variant": "arch:s0/arch.safetensors", )" +
                 runs(0.5, 0.6) + R"(},
      {"variant": "arch:s1/arch.safetensors", )" +
                 runs(0.4, 0.5) + R"(},
      {"variant": "arch:c/s0-gelu.safetensors,pool=control-gelu", )" +
                 runs(0.2, 0.2) + R"(},
      {"variant": "arch:c/s1-gelu.safetensors,pool=control-gelu", )" +
                 runs(0.1, 0.3) + R"(},
      {"variant": "arch: 2 searches", "pooled": ["arch:s0/arch.safetensors",
       "arch:s1/arch.safetensors"], )" +
                 runs(0, 0) + R"(},
      {"variant": "control-gelu: 2 pooled", "pooled": ["arch:c/s0-gelu.safetensors,pool=control-gelu",
       "arch:c/s1-gelu.safetensors,pool=control-gelu"], )" +
                 runs(0, 0) + "}]}");
  ClaimMeasure m;
  m.statistic = "final accuracy beyond training lengths, learned minus control";
  m.higher_better = true;
  m.null_value = 0;
  m.format = "difference";
  m.experiment = "copy";
  m.field = "difference";
  m.variant = "arch";
  m.versus = "control-gelu";
  m.split = "test_long";
  m.metric = "accuracy";
  const ClaimResult r = result_versus(m, compare);
  // Medians over the 4 runs: 0.5 (0.4, 0.5, 0.5, 0.6) against 0.2.
  CHECK(r.value.value() == doctest::Approx(0.3));
  CHECK(r.searches == 2);
  CHECK(r.seeds == 2);
  CHECK(r.detail == "median 0.500 against 0.200 (control-gelu); paired by search and seed");
  m.versus = "control-rough";
  CHECK_THROWS_WITH_AS(result_versus(m, compare), doctest::Contains("no variant 'control-rough'"),
                       Error);
}

TEST_CASE("result_from_robust_summary follows a dotted path to a paired difference") {
  const Json summary = parse_json(R"json({"split": "test_long", "seeds": 10,
    "monotone": {"erm": 2, "descent": 10,
                 "difference": {"mean": 0.8, "std": 0.42, "lo": 0.5, "hi": 1.0}},
    "noise": {"gaussian": [{"gamma": 1, "difference": {"mean": -0.01, "lo": -0.03, "hi": 0.01}}]}})json");
  ClaimMeasure m;
  m.higher_better = true;
  m.null_value = 0;
  m.format = "difference";
  m.field = "monotone.difference";
  ClaimResult r = result_from_robust_summary(m, summary);
  CHECK(r.value.value() == doctest::Approx(0.8));
  CHECK(r.seeds == 10);
  CHECK(r.searches == 0);
  CHECK(r.status == "reproduced");
  CHECK(r.detail == "erm 2 of 10, descent 10 of 10; paired by seed, on test_long");
  m.field = "noise.gaussian.0.difference";
  CHECK(result_from_robust_summary(m, summary).status == "inconclusive");
  m.field = "noise.gaussian.1.difference";
  CHECK_THROWS(result_from_robust_summary(m, summary));
  m.field = "monotone.erm";
  CHECK_THROWS_WITH(result_from_robust_summary(m, summary),
                    "summary: field 'monotone.erm' holds no paired difference (mean, lo, hi)");
}

TEST_CASE("result_between: one experiment's searches against another's, paired by seed") {
  // Two searches of two seeds each side; the pooled row and the baseline
  // are left out.
  auto compare = [](double a, double b, double c, double d) {
    auto run = [](int seed, double accuracy) {
      return "{\"seed\": " + std::to_string(seed) +
             ", \"dir\": \"r\", \"splits\": {\"test_long\": " + "{\"final_accuracy\": " +
             std::to_string(accuracy) + "}}}";
    };
    return parse_json("{\"variants\": [{\"variant\": \"baseline\", \"runs\": []}, " +
                      std::string("{\"variant\": \"arch:s0\", \"runs\": [") + run(0, a) + ", " +
                      run(1, b) + "]}, {\"variant\": \"arch:s1\", \"runs\": [" + run(0, c) + ", " +
                      run(1, d) + "]}, {\"variant\": \"arch: 2 searches\", \"runs\": []}]}");
  };
  ClaimMeasure m;
  m.higher_better = false;  // one model gains less
  m.null_value = 0;
  m.format = "difference";
  m.field = "between";
  m.split = "test_long";
  m.metric = "accuracy";
  const ClaimResult r =
      result_between(m, compare(0.20, 0.22, 0.24, 0.26), compare(0.40, 0.42, 0.44, 0.46));
  CHECK(r.value.value() == doctest::Approx(-0.20));
  CHECK(r.hi.value() < 0);
  CHECK(r.searches == 2);
  CHECK(r.seeds == 2);
  CHECK(r.status == "reproduced");
  CHECK(r.detail == "median 0.230 against 0.430; paired by seed");
  // Where one side ran more searches, its first ones pair with the other's.
  Json one_search = compare(0.40, 0.42, 0.44, 0.46);
  one_search.as_object()[0].second.as_array().erase(
      one_search.as_object()[0].second.as_array().begin() + 2);
  const ClaimResult first = result_between(m, compare(0.20, 0.22, 0.24, 0.26), one_search);
  CHECK(first.searches == 1);
  CHECK(first.value.value() == doctest::Approx(-0.20));
  CHECK(first.detail == "median 0.210 against 0.410; paired by seed; its first 1 of 2 searches");
  CHECK_THROWS_WITH(
      result_between(m, compare(0.2, 0.2, 0.2, 0.2), parse_json("{\"variants\": []}")),
      "compare.json: no search's runs (arch:FILE variants)");
}

TEST_CASE("gain_between: the searches' gains over each comparison's own baseline, paired by seed") {
  // One search of two seeds each side. The wider model's splines score
  // lower (0.50, 0.52 against 0.60, 0.62) but its baseline lower still
  // (0.10, 0.12 against 0.50, 0.50): its gain is 0.40 against 0.11.
  auto compare = [](double base0, double base1, double a, double b) {
    auto run = [](int seed, double accuracy) {
      return "{\"seed\": " + std::to_string(seed) +
             ", \"dir\": \"r\", \"splits\": {\"test_long\": {\"final_accuracy\": " +
             std::to_string(accuracy) + "}}}";
    };
    return parse_json("{\"variants\": [{\"variant\": \"baseline\", \"runs\": [" + run(0, base0) +
                      ", " + run(1, base1) + "]}, {\"variant\": \"arch:s0\", \"runs\": [" +
                      run(0, a) + ", " + run(1, b) + "]}]}");
  };
  ClaimMeasure m;
  m.higher_better = true;  // the larger model gains more
  m.null_value = 0;
  m.format = "difference";
  m.field = "gain_between";
  m.split = "test_long";
  m.metric = "accuracy";
  const ClaimResult r =
      result_between(m, compare(0.10, 0.12, 0.50, 0.52), compare(0.50, 0.50, 0.60, 0.62));
  CHECK(r.value.value() == doctest::Approx(0.29));
  CHECK(r.detail == "median 0.400 against 0.110; gains, paired by seed");
  m.field = "between";  // the splines alone: the wider model's are worse
  CHECK(result_between(m, compare(0.10, 0.12, 0.50, 0.52), compare(0.50, 0.50, 0.60, 0.62))
            .value.value() == doctest::Approx(-0.10));
  m.field = "gain_between";
  CHECK_THROWS_WITH(
      result_between(m, compare(0.1, 0.1, 0.5, 0.5),
                     parse_json("{\"variants\": [{\"variant\": \"baseline\", "
                                "\"runs\": []}, {\"variant\": \"arch:s0\", "
                                "\"runs\": [{\"seed\": 0, \"dir\": \"r\", "
                                "\"splits\": {\"test_long\": "
                                "{\"final_accuracy\": 0.5}}}]}]}")),
      "compare.json: a search has 1 runs and the baseline 0; a gain pairs them by seed");
}

TEST_CASE("multiple comparisons: p from an interval, Holm over a claim's rows") {
  // 0.005, 0.01, 0.03, 0.04 over 4: x4, x3, x2, x1, then made monotone.
  const std::vector<double> holm = holm_adjust({0.01, 0.04, 0.03, 0.005});
  REQUIRE(holm.size() == 4);
  CHECK(holm[3] == doctest::Approx(0.02));
  CHECK(holm[0] == doctest::Approx(0.03));
  CHECK(holm[2] == doctest::Approx(0.06));
  CHECK(holm[1] == doctest::Approx(0.06));
  CHECK(holm_adjust({0.5, 0.9}) == std::vector<double>{1.0, 1.0});
  // A difference of 0.3 with interval [0.1, 0.5]: se 0.102, z 2.94.
  ClaimMeasure d;
  d.format = "difference";
  d.null_value = 0;
  ClaimResult r = result(0.3, 0.1, 0.5);
  CHECK(interval_p_value(d, r).value() == doctest::Approx(0.00329).epsilon(0.01));
  // A ratio is read on the log scale: 0.5 [0.25, 1.0] sits on the edge of 1.
  CHECK(interval_p_value(steps_measure(), result(0.5, 0.25, 1.0)).value() ==
        doctest::Approx(0.05).epsilon(0.01));
  r.interval = "min-max of 9 pairs";
  CHECK_FALSE(interval_p_value(d, r).has_value());
  // Families by claim number.
  std::vector<ClaimRecord> rows = {record_with(steps_measure(), result(0.5, 0.25, 1.0)),
                                   record_with(steps_measure(), result(0.5, 0.25, 1.0))};
  rows[1].id = "T1-other";
  rows.push_back(record_with(steps_measure(), result(0.5, 0.25, 1.0)));
  rows[2].id = "T2-alone";
  const std::vector<FamilyAdjusted> a = adjust_by_family(rows);
  CHECK(a[0].rows == 2);
  CHECK(a[0].holm_p.value() == doctest::Approx(0.1).epsilon(0.01));
  CHECK(a[2].rows == 1);
  CHECK(a[2].holm_p.value() == doctest::Approx(0.05).epsilon(0.01));
}

TEST_CASE("the renderer: one row per record, a tally, the README's markers") {
  std::vector<ClaimRecord> records = {record_with(steps_measure(), result(1.18, 1.00, 1.33)),
                                      record_with(steps_measure(), result(0.45, 0.30, 0.60))};
  records[1].id = "T1-two";
  records[1].setting = "with a | bar";
  const std::string md = render_claims_markdown(records);
  CHECK(
      md.find("| [T1-test](../claims/records/T1-test.json) | splines converge faster | 2-3x "
              "fewer steps (paper) | median steps to 90%, splines over GeLU: 1.18x [1.00, "
              "1.33], n 3 x 3 | **not reproduced** | untuned: one setting for both arms; cost not "
              "recorded | small | authors |") != std::string::npos);
  CHECK(md.find("with a \\| bar") != std::string::npos);
  // A tuned row names its untuned row's figure, and whether the verdict changed.
  std::vector<ClaimRecord> pair = {records[0],
                                   record_with(steps_measure(), result(0.45, 0.3, 0.6))};
  pair[1].id = "T1-test-tuned";
  pair[1].result->tuned = "both tuned on arch (lr 1e-3/3e-3; 2 seeds)";
  CHECK(render_claims_markdown(pair).find(
            "both tuned on arch (lr 1e-3/3e-3; 2 seeds); cost not recorded; untuned (T1-test): "
            "1.18x [1.00, 1.33], not reproduced: the verdict changed under tuning") !=
        std::string::npos);
  const std::string tally = render_claims_tally(records);
  CHECK(tally ==
        "Of 2 rows (1 claim of the two papers, a row per setting and protocol): 1 reproduced, 1 "
        "not reproduced.\n");
  const std::string readme =
      "intro\n<!-- claims tally: written by `tapir claims render` -->\nold\n<!-- end of claims "
      "tally -->\nrest\n";
  CHECK(with_claims_tally(readme, tally) ==
        "intro\n<!-- claims tally: written by `tapir claims render` -->\nOf 2 rows (1 claim of "
        "the two papers, a row per setting and protocol): 1 reproduced, 1 not reproduced. Each "
        "row, with its interval, n and setting: [docs/claims.md](docs/claims.md).\n<!-- end of "
        "claims tally -->\nrest\n");
  CHECK_THROWS_WITH(with_claims_tally("no markers", tally),
                    doctest::Contains("no claims tally markers"));
  const std::string html = render_claims_html(records);
  // A forest plot per claim, with no element ids to collide between plots.
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find(" id=") == std::string::npos);
}
