// Claim records: reading, writing, the status rule and the checks
// (lab/claims.h). The rule is written out in claims/README.md.
#include "lab/claims.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "base/error.h"
#include "base/file_io.h"

namespace tapir {

namespace {

const char* const kNotTestable = "not testable here";
const char* const kNotMeasured = "not measured";
const int kMaxCellWords = 40;

// Throws naming the first key of `j` that `known` does not list.
void check_keys(const Json& j, const char* what, std::initializer_list<const char*> known) {
  for (const auto& [key, value] : j.as_object()) {
    (void)value;
    bool found = false;
    std::string names;
    for (const char* k : known) {
      found = found || key == k;
      names += (names.empty() ? "" : ", ") + std::string(k);
    }
    if (!found) fail(what, ": unknown key ", tapir::quoted(key), " (known: ", names, ")");
  }
}

std::string text_of(const Json& j, const char* key, const char* what) {
  const Json* v = j.find(key);
  if (v == nullptr) fail(what, ": missing key ", tapir::quoted(key));
  if (v->is_null()) return "";
  if (!v->is_string()) fail(what, ": key ", tapir::quoted(key), ": expected a string");
  return v->as_string();
}

std::string optional_text(const Json& j, const char* key) {
  const Json* v = j.find(key);
  return v == nullptr || v->is_null() ? "" : v->as_string();
}

std::optional<double> number_of(const Json& j, const char* key) {
  const Json* v = j.find(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return v->as_double();
}

Json number_json(const std::optional<double>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json text_json(const std::string& text) {
  return text.empty() ? Json(nullptr) : Json(text);
}

ClaimMeasure measure_from_json(const Json& j) {
  check_keys(j, "measure",
             {"statistic", "better", "null", "size", "rule", "format", "decimals", "experiment",
              "against", "versus", "field", "variant", "split", "metric"});
  ClaimMeasure m;
  m.statistic = text_of(j, "statistic", "measure");
  const std::string better = text_of(j, "better", "measure");
  TAPIR_CHECK(better == "lower" || better == "higher",
              "measure: better must be lower or higher, not ", tapir::quoted(better));
  m.higher_better = better == "higher";
  m.null_value = j.at("null").as_double();
  m.size = number_of(j, "size");
  m.rule = text_of(j, "rule", "measure");
  TAPIR_CHECK(m.rule == "effect" || m.rule == "bound" || m.rule == "judged",
              "measure: rule must be effect, bound or judged, not ", tapir::quoted(m.rule));
  TAPIR_CHECK(m.rule != "bound" || m.size, "measure: rule bound needs the paper's bound as size");
  m.format = text_of(j, "format", "measure");
  TAPIR_CHECK(m.format == "ratio" || m.format == "difference" || m.format == "value",
              "measure: format must be ratio, difference or value, not ", tapir::quoted(m.format));
  m.decimals = static_cast<int>(j.at("decimals").as_int());
  TAPIR_CHECK(m.decimals >= 0 && m.decimals <= 6, "measure: decimals must be 0 to 6");
  m.experiment = optional_text(j, "experiment");
  m.against = optional_text(j, "against");
  m.versus = optional_text(j, "versus");
  TAPIR_CHECK(m.experiment.empty() || m.rule != "judged",
              "measure: a claim the runner measures is read by rule effect or bound, not judged");
  m.field = optional_text(j, "field");
  m.variant = optional_text(j, "variant");
  m.split = optional_text(j, "split");
  m.metric = optional_text(j, "metric");
  const bool between = m.field == "between" || m.field == "gain_between";
  TAPIR_CHECK(m.against.empty() != between,
              "measure: fields between and gain_between need the experiment they are measured "
              "against, and only they take one");
  return m;
}

Json measure_to_json(const ClaimMeasure& m) {
  Json j = Json::object();
  j.set("statistic", m.statistic);
  j.set("better", m.higher_better ? "higher" : "lower");
  j.set("null", m.null_value);
  j.set("size", number_json(m.size));
  j.set("rule", m.rule);
  j.set("format", m.format);
  j.set("decimals", m.decimals);
  if (!m.experiment.empty()) {
    j.set("experiment", m.experiment);
    if (!m.against.empty()) j.set("against", m.against);
    if (!m.versus.empty()) j.set("versus", m.versus);
    j.set("field", m.field);
    j.set("variant", m.variant);
    j.set("split", m.split);
    if (!m.metric.empty()) j.set("metric", m.metric);
  }
  return j;
}

ClaimResult result_from_json(const Json& j) {
  check_keys(j, "result",
             {"value", "lo", "hi", "interval", "searches", "seeds", "status", "detail", "budget",
              "wall_s", "commit", "date", "source", "tuned", "compute"});
  ClaimResult r;
  r.value = number_of(j, "value");
  r.lo = number_of(j, "lo");
  r.hi = number_of(j, "hi");
  r.interval = optional_text(j, "interval");
  r.searches = static_cast<int>(j.at("searches").as_int());
  r.seeds = static_cast<int>(j.at("seeds").as_int());
  r.status = text_of(j, "status", "result");
  r.detail = optional_text(j, "detail");
  r.budget = text_of(j, "budget", "result");
  TAPIR_CHECK(r.budget == "full" || r.budget == "quick", "result: budget must be full or quick");
  r.wall_s = number_of(j, "wall_s");
  r.commit = optional_text(j, "commit");
  r.date = optional_text(j, "date");
  r.source = optional_text(j, "source");
  r.tuned = optional_text(j, "tuned");
  r.compute = optional_text(j, "compute");
  return r;
}

Json result_to_json(const ClaimResult& r) {
  Json j = Json::object();
  j.set("value", number_json(r.value));
  j.set("lo", number_json(r.lo));
  j.set("hi", number_json(r.hi));
  j.set("interval", text_json(r.interval));
  j.set("searches", r.searches);
  j.set("seeds", r.seeds);
  j.set("status", r.status);
  j.set("detail", r.detail);
  j.set("budget", r.budget);
  j.set("wall_s", number_json(r.wall_s));
  j.set("commit", text_json(r.commit));
  j.set("date", text_json(r.date));
  j.set("source", text_json(r.source));
  if (!r.tuned.empty()) j.set("tuned", r.tuned);
  if (!r.compute.empty()) j.set("compute", r.compute);
  return j;
}

size_t word_count(const std::string& text) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string word; in >> word;) ++n;
  return n;
}

std::string fixed(double v, int decimals) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << v;
  return out.str();
}

}  // namespace

const std::vector<std::string>& claim_statuses() {
  static const std::vector<std::string> statuses = {
      "reproduced",   "in direction only", "not reproduced", "reversed",
      "inconclusive", kNotTestable,        kNotMeasured};
  return statuses;
}

ClaimRecord claim_from_json(const Json& j) {
  TAPIR_CHECK(j.is_object(), "a claim record is a JSON object");
  check_keys(j, "record",
             {"id", "order", "paper", "paper_source", "claim", "paper_figure", "setting",
              "protocol", "command", "measure", "result", "reason"});
  ClaimRecord r;
  r.id = text_of(j, "id", "record");
  r.order = static_cast<int>(j.at("order").as_int());
  r.paper = text_of(j, "paper", "record");
  r.paper_source = text_of(j, "paper_source", "record");
  r.claim = text_of(j, "claim", "record");
  r.paper_figure = text_of(j, "paper_figure", "record");
  r.setting = text_of(j, "setting", "record");
  r.protocol = text_of(j, "protocol", "record");
  r.command = text_of(j, "command", "record");
  if (const Json* m = j.find("measure"); m != nullptr && !m->is_null())
    r.measure = measure_from_json(*m);
  if (const Json* res = j.find("result"); res != nullptr && !res->is_null())
    r.result = result_from_json(*res);
  r.reason = optional_text(j, "reason");
  return r;
}

Json claim_to_json(const ClaimRecord& r) {
  Json j = Json::object();
  j.set("id", r.id);
  j.set("order", r.order);
  j.set("paper", r.paper);
  j.set("paper_source", r.paper_source);
  j.set("claim", r.claim);
  j.set("paper_figure", r.paper_figure);
  j.set("setting", r.setting);
  j.set("protocol", r.protocol);
  j.set("command", r.command);
  j.set("measure", r.measure ? measure_to_json(*r.measure) : Json(nullptr));
  j.set("result", r.result ? result_to_json(*r.result) : Json(nullptr));
  if (!r.reason.empty()) j.set("reason", r.reason);
  return j;
}

std::string status_by_rule(const ClaimMeasure& m, const ClaimResult& r) {
  if (r.status == kNotTestable) return kNotTestable;
  if (m.rule == "judged") return r.status;
  if (!r.lo || !r.hi) return "inconclusive";
  // Read on the claim's side: flip a lower-is-better statistic so that
  // "better" always means larger.
  const double sign = m.higher_better ? 1 : -1;
  double lo = sign * *r.lo, hi = sign * *r.hi;
  if (lo > hi) std::swap(lo, hi);
  const double null_value = sign * m.null_value;
  const bool has_size = m.size.has_value();
  const double size = has_size ? sign * m.size.value() : 0.0;
  if (m.rule == "bound") {
    if (lo >= size) return "reproduced";
    if (hi < size) return "not reproduced";
    return "inconclusive";
  }
  // Reproduced needs the point estimate at the paper's figure or beyond, not
  // just an interval that reaches it: 1.7x [1.5, 2.2] against "2-3x" is
  // faster, in direction only.
  const double value = r.value ? sign * r.value.value() : hi;
  const bool reaches = !has_size || value >= size;
  if (lo > null_value) return reaches ? "reproduced" : "in direction only";
  if (hi < null_value) return "reversed";
  if (has_size && hi < size) return "not reproduced";
  return "inconclusive";
}

std::string shown_status(const ClaimRecord& record) {
  if (!record.result) return record.reason.empty() ? kNotMeasured : kNotTestable;
  return record.result->status;
}

std::string format_claim_figure(const ClaimMeasure& m, const ClaimResult& r) {
  auto one = [&](const std::optional<double>& v) -> std::string {
    if (!v || !std::isfinite(*v)) return m.format == "ratio" && v ? "inf" : "none";
    std::string text = fixed(*v, m.decimals);
    if (m.format == "difference" && *v >= 0) text = "+" + text;
    return text;
  };
  if (!r.value) return "none";
  std::string text = one(r.value) + (m.format == "ratio" ? "x" : "");
  if (r.lo || r.hi) text += " [" + one(r.lo) + ", " + one(r.hi) + "]";
  return text;
}

std::vector<std::string> claim_problems(const ClaimRecord& r) {
  std::vector<std::string> problems;
  auto words = [&](const char* cell, const std::string& text) {
    if (word_count(text) > kMaxCellWords)
      problems.push_back(std::string(cell) + " has " + std::to_string(word_count(text)) +
                         " words (at most " + std::to_string(kMaxCellWords) + ")");
  };
  for (const auto& [name, text] : {std::pair<const char*, const std::string&>{"claim", r.claim},
                                   {"paper_figure", r.paper_figure},
                                   {"setting", r.setting},
                                   {"paper", r.paper}}) {
    if (text.empty()) problems.push_back(std::string(name) + " is empty");
    words(name, text);
  }
  const std::string status = shown_status(r);
  if (std::find(claim_statuses().begin(), claim_statuses().end(), status) == claim_statuses().end())
    problems.push_back("status " + tapir::quoted(status) + " is none of the statuses");
  if (status == kNotTestable) {
    if (r.reason.empty()) problems.push_back("a claim not testable here needs its reason");
    words("reason", r.reason);
    return problems;
  }
  if (!r.measure) {
    problems.push_back("a claim testable here needs its measure");
    return problems;
  }
  if (r.result) {
    const std::string by_rule = status_by_rule(*r.measure, *r.result);
    if (by_rule != r.result->status)
      problems.push_back("status " + tapir::quoted(r.result->status) + " is not what rule " +
                         r.measure->rule + " gives for " +
                         format_claim_figure(*r.measure, *r.result) + ": " + by_rule);
    words("the here cell", claim_here_text(r));
    if (r.result->searches < 0 || r.result->seeds < 1)
      problems.push_back("n needs seeds >= 1 and searches >= 0");
  }
  return problems;
}

std::vector<ClaimRecord> read_claims(const std::string& dir) {
  namespace fs = std::filesystem;
  TAPIR_CHECK(fs::is_directory(dir), dir, ": no such folder of claim records");
  std::vector<std::string> paths;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<ClaimRecord> records;
  std::set<std::string> ids;
  for (const std::string& path : paths) {
    ClaimRecord record = read_json_file(path, claim_from_json);
    const std::string stem = fs::path(path).stem().string();
    TAPIR_CHECK(record.id == stem, path, ": id ", tapir::quoted(record.id),
                " is not the file's name");
    TAPIR_CHECK(ids.insert(record.id).second, path, ": id ", tapir::quoted(record.id), " twice");
    const std::vector<std::string> problems = claim_problems(record);
    TAPIR_CHECK(problems.empty(), path, ": ", problems.empty() ? "" : problems.front());
    records.push_back(std::move(record));
  }
  TAPIR_CHECK(!records.empty(), dir, ": no claim records (*.json)");
  std::stable_sort(records.begin(), records.end(),
                   [](const ClaimRecord& a, const ClaimRecord& b) { return a.order < b.order; });
  return records;
}

void write_claim(const std::string& dir, const ClaimRecord& record) {
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/" + record.id + ".json", to_json(claim_to_json(record), 2) + "\n");
}

namespace {

std::string n_text(const ClaimResult& r) {
  std::string n = r.searches > 0 ? std::to_string(r.searches) + " x " + std::to_string(r.seeds)
                                 : std::to_string(r.seeds) + (r.seeds == 1 ? " seed" : " seeds");
  if (r.budget == "quick") n += ", quick budget";
  return n;
}

}  // namespace

std::string claim_here_text(const ClaimRecord& r) {
  if (!r.result) return r.reason.empty() ? "not measured yet" : r.reason;
  const ClaimResult& res = *r.result;
  std::string text = r.measure->statistic + ": " + format_claim_figure(*r.measure, res);
  if (!res.interval.empty() && res.interval != "95% CI") text += " (" + res.interval + ")";
  text += ", n " + n_text(res);
  if (!res.detail.empty()) text += "; " + res.detail;
  return text;
}

std::string claim_tuning_text(const ClaimRecord& r) {
  if (!r.result) return "-";
  const ClaimResult& res = *r.result;
  return (res.tuned.empty() ? "untuned: one setting for both arms" : res.tuned) + "; " +
         (res.compute.empty() ? "cost not recorded" : res.compute);
}

std::string claim_line(const ClaimRecord& r) {
  std::string status = shown_status(r);
  if (r.measure && r.measure->rule == "judged") status += " (judged)";
  return r.id + " | " + r.claim + " | " + r.paper_figure + " | " + claim_here_text(r) + " | " +
         status;
}

}  // namespace tapir
