#include "tasks/task.h"

#include <algorithm>
#include <numbers>

#include "base/error.h"
#include "base/json.h"
#include "base/parse.h"

namespace tapir {

double Tally::bits_per_byte() const {
  return bytes ? loss_sum / std::numbers::ln2 / double(bytes) : 0.0;
}

int32_t Vocab::id(std::string_view name) const {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int32_t>(i);
  fail("token '", name, "' is not in the vocabulary");
}

std::string Vocab::decode(const int32_t* ids, int64_t n, std::string_view sep) const {
  std::string out;
  for (int64_t i = 0; i < n; ++i) {
    if (i) out += sep;
    if (ids[i] >= 0 && ids[i] < size()) {
      out += names[static_cast<size_t>(ids[i])];
    } else {
      // Built piecewise: GCC 12 warns (-Wrestrict) on the chained operator+.
      out += '<';
      out += std::to_string(ids[i]);
      out += '>';
    }
  }
  return out;
}

void Batch::reset(int64_t batch, int64_t length, int32_t pad) {
  B = batch;
  T = length;
  tokens.assign(B * T, pad);
  targets.assign(B * T, pad);
  mask.assign(B * T, 0.0f);
  group.assign(B, -1);
  n = 0;
  inputs.clear();
  values.clear();
}

void Batch::reset_frames(int64_t batch, int64_t length, int64_t frame_dim) {
  reset(batch, length, 0);
  n = frame_dim;
  inputs.assign(B * T * n, 0.0f);
  values.assign(B * T * n, 0.0f);
}

void Batch::shuffle_labels(Rng& rng) {
  const std::vector<int32_t> from = rng.permutation(B);
  const std::vector<int32_t> old_targets = targets;
  const std::vector<float> old_mask = mask, old_values = values;
  const int64_t frame = T * n;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t src = from[static_cast<size_t>(b)];
    std::copy_n(old_targets.begin() + src * T, T, targets.begin() + b * T);
    std::copy_n(old_mask.begin() + src * T, T, mask.begin() + b * T);
    if (n > 0) std::copy_n(old_values.begin() + src * frame, frame, values.begin() + b * frame);
  }
}

void EvalTally::add(const Tally& one, int32_t group) {
  all.add(one);
  if (group >= 0) by_group[group].add(one);
  if (keep_units) units.push_back({one, group});
}

void Task::score(const Batch& batch, const float* logits, const float* losses,
                 EvalTally& tally) const {
  const int64_t V = vocab().size();
  for (int64_t b = 0; b < batch.B; ++b) {
    Tally one;
    one.examples = 1;
    bool all_right = true;
    for (int64_t t = 0; t < batch.T; ++t) {
      const int64_t i = batch.at(b, t);
      if (batch.mask[i] == 0.0f) continue;
      const float* row = logits + i * V;
      const int64_t best = std::max_element(row, row + V) - row;
      const bool right = best == batch.targets[i];
      all_right = all_right && right;
      one.tokens += 1;
      one.tokens_correct += right;
      one.loss_tokens += 1;
      one.loss_sum += losses[i];
    }
    one.correct = all_right;
    tally.add(one, batch.group[b]);
  }
}

// --- options -------------------------------------------------------------------

int64_t TaskOptions::get_int(const std::string& name, int64_t fallback, int64_t lo,
                             int64_t hi) const {
  used_.insert(name);
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const int64_t v = parse_int64(it->second, "option " + name);
  TAPIR_CHECK(v >= lo && v <= hi, "option ", name, " = ", v, " is outside the allowed range [", lo,
              ", ", hi, "]");
  return v;
}

double TaskOptions::get_double(const std::string& name, double fallback, double lo,
                               double hi) const {
  used_.insert(name);
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  const double v = parse_double(s, "option " + name);
  TAPIR_CHECK(v >= lo && v <= hi, "option ", name, " = ", s, " is outside the allowed range [", lo,
              ", ", hi, "]");
  return v;
}

std::vector<double> TaskOptions::get_double_list(const std::string& name,
                                                 const std::string& fallback, double lo,
                                                 double hi) const {
  std::vector<double> out = parse_double_list(get_string(name, fallback), "option " + name);
  for (double v : out)
    TAPIR_CHECK(v >= lo && v <= hi, "option ", name, ": ", v, " is outside the allowed range [", lo,
                ", ", hi, "]");
  return out;
}

std::vector<double> parse_double_list(std::string_view text, const std::string& what) {
  std::vector<double> out;
  size_t begin = 0;
  while (begin <= text.size()) {
    const size_t end = std::min(text.find(',', begin), text.size());
    try {
      out.push_back(parse_double(text.substr(begin, end - begin), what));
    } catch (const Error&) {
      fail(what, ": expected a comma-separated list of numbers, got ", tapir::quoted(text));
    }
    begin = end + 1;
  }
  return out;
}

std::string TaskOptions::get_string(const std::string& name, const std::string& fallback) const {
  used_.insert(name);
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

bool TaskOptions::get_bool(const std::string& name, bool fallback) const {
  used_.insert(name);
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& s = it->second;
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  fail("option ", name, ": expected true or false, got '", s, "'");
}

void TaskOptions::check_all_used(const std::string& task) const {
  for (const auto& [name, value] : values_) {
    if (used_.count(name)) continue;
    std::string known;
    for (const std::string& u : used_) known += (known.empty() ? "" : ", ") + u;
    fail("task ", task, " has no option '", name, "' (its options: ", known, ")");
  }
}

// --- registry ------------------------------------------------------------------

namespace {
std::vector<TaskSpec>& registry_storage() {
  static std::vector<TaskSpec> specs;
  return specs;
}
}  // namespace

TaskRegistrar::TaskRegistrar(TaskSpec spec) {
  registry_storage().push_back(std::move(spec));
}

std::vector<TaskSpec> task_registry() {
  std::vector<TaskSpec> specs = registry_storage();
  std::sort(specs.begin(), specs.end(),
            [](const TaskSpec& a, const TaskSpec& b) { return a.name < b.name; });
  return specs;
}

const TaskSpec& task_spec(const std::string& name) {
  for (const TaskSpec& spec : registry_storage())
    if (spec.name == name) return spec;
  std::string known;
  for (const TaskSpec& spec : task_registry()) known += (known.empty() ? "" : ", ") + spec.name;
  fail("unknown task '", name, "' (known: ", known, ")");
}

std::unique_ptr<Task> make_task(const std::string& name, const TaskOptions& options) {
  std::unique_ptr<Task> task = task_spec(name).make(options);
  options.check_all_used(name);
  return task;
}

}  // namespace tapir
