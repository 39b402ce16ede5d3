// The papers' claims as records: one JSON file per row of the claims table
// (claims/records/ID.json), each holding the claim, the paper's figure, how
// the setting here differs, the protocol, the command that measures it and
// the result (the statistic, its interval, n, the status, the wall time and
// the build). `tapir claims` reads them (lab/claims_run.h):
//   - a status is never typed: status_by_rule() derives it from the numbers,
//     and check_claim() refuses a record whose stored status differs;
//   - the table (docs/claims.md), the page with a forest plot per claim
//     (docs/claims.html) and the README's tally are written from the
//     records alone (report/claims_pages.h);
//   - the runner measures a claim from its experiment (claims/experiments.json:
//     a Stage I search and a Stage II comparison) and writes the result read
//     from compare.json (result_from_compare).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"

namespace tapir {

// How a record's number is read against the paper's claim.
struct ClaimMeasure {
  std::string statistic;         // what the number is, in words
  bool higher_better = false;    // "better": the direction the paper claims
  double null_value = 1;         // "null": the value of no effect
  std::optional<double> size;    // the paper's figure in the statistic's unit
  std::string rule = "effect";   // effect | bound | judged
  std::string format = "ratio";  // ratio (1.18x) | difference (+0.318) | value (0.438)
  int decimals = 2;
  // Where the runner reads the number, for a claim it can measure: the
  // experiment of claims/experiments.json, the field of compare.json
  // (steps_ratio, spread_ratio or difference), the variant ("arch" for the
  // searches pooled), the split and, for a difference, the metric.
  std::string experiment;
  // field "between": the difference of a final metric between this
  // experiment's searches and those of `against` (another experiment);
  // "gain_between": the same of the searches' gains over each experiment's
  // own baseline (each run minus the baseline's run of its seed).
  std::string against;
  // "versus": the difference of a final metric between the variant and
  // another of the same comparison (a control, lab/arch_controls.h), its
  // runs paired by search and seed (result_versus).
  std::string versus;
  std::string field;
  std::string variant;
  std::string split;
  std::string metric;
};

struct ClaimResult {
  std::optional<double> value, lo, hi;
  std::string interval = "95% CI";  // or "min-max of 9 pairs", ...
  int searches = 0;                 // n = searches x seeds
  int seeds = 0;
  std::string status;
  std::string detail;
  std::string budget = "full";  // full | quick
  std::optional<double> wall_s;
  std::string commit;  // "" when not known
  std::string date;
  std::string source;  // where the full table is
  // What the arms were tuned against (`tapir compare --tune`, lab/tune.h;
  // "" when neither was: one setting for both) and what each cost in model
  // FLOPs (lab/arm_cost.h; "" when not recorded).
  std::string tuned;
  std::string compute;
};

struct ClaimRecord {
  std::string id;
  int order = 0;
  std::string paper;
  std::string paper_source;  // paper | review | summary | method
  std::string claim;
  std::string paper_figure;
  std::string setting;
  std::string protocol;
  std::string command;
  std::optional<ClaimMeasure> measure;
  std::optional<ClaimResult> result;  // none: not measured yet
  std::string reason;                 // for "not testable here"
};

// The statuses, in the order the tally lists them.
const std::vector<std::string>& claim_statuses();

// Strict: an unknown key, a missing one or a wrong kind is an error naming it.
ClaimRecord claim_from_json(const Json& j);
Json claim_to_json(const ClaimRecord& record);

// The status the numbers give under the measure's rule (claims/README.md):
// "effect" reads whether the interval leaves the null value on the claimed
// side and whether it reaches the paper's size; "bound" whether it stays
// within the paper's bound; "judged" keeps the record's own status.
std::string status_by_rule(const ClaimMeasure& measure, const ClaimResult& result);

// What is wrong with a record, one line each: a status the rule does not
// give, a table cell of more than 40 words, a missing field.
std::vector<std::string> claim_problems(const ClaimRecord& record);

// Every claims/records/*.json in `dir`, sorted by order then id; each must
// be named for its id and free of problems (the first problem is thrown,
// naming the file).
std::vector<ClaimRecord> read_claims(const std::string& dir);
// The record written to dir/ID.json (atomically).
void write_claim(const std::string& dir, const ClaimRecord& record);

// The status shown: the result's, "not testable here", or "not measured".
std::string shown_status(const ClaimRecord& record);
// "1.18x [1.00, 1.33]" (ratio), "+0.318 [+0.278, +0.402]" (difference).
std::string format_claim_figure(const ClaimMeasure& measure, const ClaimResult& result);

// Multiple comparisons. A row's two-sided p-value against no effect, from
// its 95% interval read as a normal one (on the log scale for a ratio):
// se = (hi - lo) / (2 x 1.96), z = (point - null) / se. An approximation of
// what the bootstrap would give; none without a finite point and interval
// or for another kind of interval.
std::optional<double> interval_p_value(const ClaimMeasure& measure, const ClaimResult& result);
// Holm's step-down adjustment of m p-values (each times the number of
// p-values not smaller, made monotone, capped at 1), in the input's order.
std::vector<double> holm_adjust(const std::vector<double>& p);
// A claim's family: the rows sharing its number (the id up to the first
// "-": T5, K1), of which a conclusion about the claim picks one.
std::string claim_family(const ClaimRecord& record);
// Per record (in order): the number of rows of its family with a p-value,
// and its Holm-adjusted p over them (none without a p-value).
struct FamilyAdjusted {
  int rows = 0;
  std::optional<double> p, holm_p;
};
std::vector<FamilyAdjusted> adjust_by_family(const std::vector<ClaimRecord>& records);

// The claim's experiment (claims/experiments.json): flags shared by the
// search and the comparison, the protocol, steps, threshold, and what each
// budget changes.
struct ClaimBudget {
  int searches = 1;
  int seeds = 2;
  int steps = 0;  // 0: the experiment's

  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.optional("searches", c.searches);
    f.optional("seeds", c.seeds);
    f.optional("steps", c.steps);
  }
};
struct ClaimExperiment {
  std::string id;  // its key in the file
  std::string about;
  // "compare": a search (when the experiment has "search") then `tapir
  // compare`; "robust-compare": ERM against a constrained arm, no search.
  std::string command = "compare";
  std::string arm = "descent";    // robust-compare's constrained arm
  std::vector<std::string> task;  // flags of both stages
  std::string protocol = "tapir";
  int steps = 0;
  int search_steps = 0;  // Stage I's steps where they differ from Stage II's
  std::string threshold;
  bool search = true;  // Stage I before the comparison: the file has "search"
  std::vector<std::string> search_flags;
  std::vector<std::string> compare_flags;
  // The searches of another experiment to use instead of running its own
  // ("": its own), and the controls of each search's functions to compare
  // beside them (lab/arch_controls.h: gelu, scaled-gelu, rough), each
  // kind's runs over the searches pooled as one row "control-KIND".
  std::string searches_from;
  std::vector<std::string> controls;
  ClaimBudget full, quick;

  // The keys of its object in claims/experiments.json (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("about", c.about);
    f.optional("command", c.command);
    f.optional("arm", c.arm);
    f.required("task", c.task);
    f.optional("protocol", c.protocol);
    f.required("steps", c.steps);
    f.optional("search_steps", c.search_steps);
    f.optional("threshold", c.threshold);
    f.optional("search", c.search_flags);
    f.optional("compare", c.compare_flags);
    f.optional("searches_from", c.searches_from);
    f.optional("controls", c.controls);
    f.required("full", c.full);
    f.required("quick", c.quick);
  }
};
std::map<std::string, ClaimExperiment> read_claim_experiments(const std::string& path);

// The result of `measure` read from a comparison's compare.json (its JSON
// value): the interval, n and the verdict's words, with the status by rule.
ClaimResult result_from_compare(const ClaimMeasure& measure, const Json& compare);
// The result of a "between" measure: the searches' runs of `compare`
// against those of `against` (each a compare.json), the median difference of
// the final `metric` on `split`, paired by seed, drawn over searches then
// seeds. With field "gain_between" each run is first made its gain over the
// baseline's run of the same seed in its own comparison.
ClaimResult result_between(const ClaimMeasure& measure, const Json& compare, const Json& against);
// The result of `measure` read from a robust-compare summary_ARM.json: its
// field is a dotted path ("monotone.difference", "splits.test.difference",
// "noise.gaussian.3.difference") to a paired difference's mean and interval.
ClaimResult result_from_robust_summary(const ClaimMeasure& measure, const Json& summary);
// The difference of medians of the final `metric` on `split` between the
// measured variant ("arch": the searches pooled) and measure.versus (a
// pool, e.g. "control-gelu": its row "control-gelu: 3 pooled"), each grouped by its parts
// (searches) and paired by seed: the interval of lab/intervals.h's median_difference.
ClaimResult result_versus(const ClaimMeasure& measure, const Json& compare);
// compare.json's entry of the variant named `name`, or null.
const Json* variant_entry(const Json& compare, const std::string& name);

// The table's "here" cell: the statistic, its figure and interval, n and
// the detail; the reason where the claim is not testable here.
std::string claim_here_text(const ClaimRecord& record);
// The table's "tuned against; cost" cell: what the arms were tuned against
// (or "untuned: one setting for both arms") and their compute ("cost not
// recorded" for rows measured before it was); "-" without a result.
std::string claim_tuning_text(const ClaimRecord& record);
// One line for a terminal: "ID | claim | paper | here | status".
std::string claim_line(const ClaimRecord& record);

}  // namespace tapir
