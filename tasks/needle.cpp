// Recall tasks: multi-query associative recall and needle in a haystack.
//
// mode=mqar (Zoology MQAR, Arora et al. 2023). Keys and values come from
// disjoint token ranges. A sequence of `context` tokens starts with `pairs`
// key-value pairs `k1 v1 k2 v2 ...` (distinct keys, distinct values, as in
// Zoology); the rest is the query region, filled with the filler `_`. Its
// even offsets are query slots; `queries` of the pairs (a random subset, in
// the order they were written) are asked, the j-th at a slot drawn without
// replacement with weight g^(power-a - 1) for slot g = 1, 2, ... (Zoology's
// power law: with power-a = 0.01 most queries sit near the start of the
// region, so key and query are about 2 * pairs apart). The target at a query
// position is the value paired with that key; only those positions count.
// With queries = pairs this is Zoology's multiquery_ar with filler in place
// of random non-query tokens. Group key: the number of pairs; "test" uses
// the training setting and "test_long" test-pairs pairs in test-context.
//
// mode=haystack. One key-value needle `k v` sits at position p inside
// `context - 2` filler tokens drawn from their own range; the sequence ends
// with `? k` and the target at the last position is v. Training draws p
// uniformly; the evaluation sets put example i at depth 10 * (i mod 11)
// percent of the haystack. Group key: the depth in percent rounded to a
// multiple of 10, so an evaluation reports accuracy by depth.
//
// Both modes hold out examples by a hash of their tokens (tasks/generated.h);
// test_long draws from the test part too, since test-context may equal
// context.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

namespace {

constexpr int64_t kDepthBuckets = 11;  // 0, 10, ..., 100 percent

// "k12": built by appending, since GCC 12 warns (-Wrestrict) on "k" + string.
std::string numbered(char prefix, int64_t i) {
  std::string name(1, prefix);
  name += std::to_string(i);
  return name;
}

struct Setting {
  int64_t context = 0, pairs = 0, queries = 0;  // pairs/queries: mqar only
  std::vector<double> slot_weights;             // mqar: power law over query slots
};

// A recall example: its targets are not the next tokens but the values
// asked for, at the query positions.
struct Recall {
  std::vector<int32_t> tokens;                       // (T)
  std::vector<std::pair<int64_t, int32_t>> answers;  // (position, value)
  int32_t group = -1;
};

enum Split { kTrain, kArch, kTest, kTestLong };

class Needle final : public GeneratedTask {
 public:
  explicit Needle(const TaskOptions& o) : common_(o) {
    const std::string mode = o.get_string("mode", "mqar");
    TAPIR_CHECK(mode == "mqar" || mode == "haystack", "needle: option mode = '", mode,
                "' is not one of mqar, haystack");
    mqar_ = mode == "mqar";
    keys_ = o.get_int("keys", 64, 1, 100000);
    values_ = o.get_int("values", 64, 1, 100000);
    if (mqar_) {
      read_mqar_options(o);
    } else {
      fillers_ = o.get_int("fillers", 16, 1, 100000);
      train_.context = o.get_int("context", 64, 8, 1 << 16);
      long_.context = o.get_int("test-context", 2 * train_.context, train_.context, 1 << 16);
    }

    for (int64_t i = 0; i < keys_; ++i) vocab_.names.push_back(numbered('k', i));
    for (int64_t i = 0; i < values_; ++i) vocab_.names.push_back(numbered('v', i));
    if (mqar_) {
      vocab_.names.push_back("_");
    } else {
      for (int64_t i = 0; i < fillers_; ++i) vocab_.names.push_back(numbered('f', i));
      vocab_.names.push_back("?");
    }
    vocab_.names.push_back("<pad>");
    check_splits_have_examples(*this, common_.holdout);
  }

  std::string name() const override { return "needle"; }
  std::string describe() const override {
    if (mqar_)
      return "needle mode=mqar keys=" + std::to_string(keys_) +
             " values=" + std::to_string(values_) + " pairs=" + std::to_string(train_.pairs) +
             " queries=" + std::to_string(train_.queries) +
             " context=" + std::to_string(train_.context) +
             " (test_long: " + std::to_string(long_.pairs) + " pairs in " +
             std::to_string(long_.context) + ") " + common_.describe();
    return "needle mode=haystack keys=" + std::to_string(keys_) +
           " values=" + std::to_string(values_) + " fillers=" + std::to_string(fillers_) +
           " context=" + std::to_string(train_.context) + " (test_long " +
           std::to_string(long_.context) + ") " + common_.describe();
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return static_cast<int32_t>(vocab_.size() - 1); }
  int64_t max_length() const override { return std::max(train_.context, long_.context); }
  std::vector<std::string> eval_splits() const override { return {"test", "test_long"}; }
  std::string group_name() const override { return mqar_ ? "pairs" : "depth"; }

 protected:
  int64_t eval_set_size() const override { return common_.eval_size; }
  uint64_t data_seed() const override { return common_.data_seed; }
  int64_t row_length(int split) const override { return setting_of(split).context; }
  // A haystack evaluation example sits at depth 10 * (index mod 11) percent;
  // a training draw, or an mqar example, draws its positions.
  void write_row(int split, int64_t index, Rng& rng, int64_t b, Batch& out) const override {
    const Setting& setting = setting_of(split);
    int64_t depth = -1;
    if (index >= 0 && !mqar_) depth = ((index % kDepthBuckets) * (setting.context - 4) + 5) / 10;
    Recall ex;
    draw(setting, part_of(split), depth, rng, ex);
    write(ex, b, out);
  }

 private:
  void read_mqar_options(const TaskOptions& o) {
    const int64_t most_pairs = std::min(keys_, values_);
    auto read_pairs = [&](const std::string& option, int64_t fallback) {
      const int64_t pairs = o.get_int(option, fallback, 1, 1 << 20);
      TAPIR_CHECK(pairs <= most_pairs, "needle: option ", option, " = ", pairs,
                  " needs that many distinct keys and values, but keys = ", keys_,
                  " and values = ", values_, " (allowed range [1, ", most_pairs, "])");
      return pairs;
    };
    train_.pairs = read_pairs("pairs", std::min<int64_t>(8, most_pairs));
    train_.queries = o.get_int("queries", train_.pairs, 1, train_.pairs);
    train_.context = o.get_int("context", 64, 4, 1 << 16);
    long_.pairs = read_pairs("test-pairs", std::min(2 * train_.pairs, most_pairs));
    long_.queries = o.get_int("test-queries", long_.pairs, 1, long_.pairs);
    long_.context =
        o.get_int("test-context", std::max(2 * train_.context, 2 * (long_.pairs + long_.queries)),
                  4, 1 << 16);
    const double power_a = o.get_double("power-a", 0.01, 1e-6, 1.0);
    for (auto [setting, option] : {std::pair{&train_, "context"}, {&long_, "test-context"}}) {
      const int64_t needed = 2 * (setting->pairs + setting->queries);
      TAPIR_CHECK(setting->context >= needed, "needle: option ", option, " = ", setting->context,
                  " is too short for ", setting->pairs, " pairs and ", setting->queries,
                  " queries: it needs at least 2 * (pairs + queries) = ", needed, " tokens");
      const int64_t slots = (setting->context - 2 * setting->pairs) / 2;
      for (int64_t g = 1; g <= slots; ++g)
        setting->slot_weights.push_back(std::pow(double(g), power_a - 1.0));
    }
  }

  const Setting& setting_of(int split) const { return split == kTestLong ? long_ : train_; }
  // test_long draws from the test part too.
  static Part part_of(int split) {
    return split == kTrain ? Part::train : split == kArch ? Part::arch : Part::test;
  }

  int32_t key(int64_t i) const { return static_cast<int32_t>(i); }
  int32_t value(int64_t i) const { return static_cast<int32_t>(keys_ + i); }
  int32_t filler(int64_t i) const { return static_cast<int32_t>(keys_ + values_ + i); }
  int32_t query_token() const { return filler(fillers_); }  // haystack only

  // Draws an example of `part`; depth >= 0 fixes the needle's position
  // (haystack evaluation), -1 draws it.
  void draw(const Setting& setting, Part part, int64_t depth, Rng& rng, Recall& ex) const {
    common_.holdout.redraw_until(part, rng, *this, [&](Rng& r) {
      if (mqar_) {
        draw_mqar(setting, r, ex);
      } else {
        draw_haystack(setting.context, depth, r, ex);
      }
      return std::span<const int32_t>(ex.tokens);
    });
  }

  // The first n entries of a random permutation of 0..size-1 (partial
  // Fisher-Yates): n distinct draws.
  static void distinct(int64_t n, int64_t size, Rng& rng, std::vector<int32_t>& out) {
    out.resize(static_cast<size_t>(size));
    std::iota(out.begin(), out.end(), 0);
    for (int64_t i = 0; i < n; ++i)
      std::swap(out[static_cast<size_t>(i)], out[static_cast<size_t>(i + rng.randint(size - i))]);
    out.resize(static_cast<size_t>(n));
  }

  void draw_mqar(const Setting& s, Rng& rng, Recall& ex) const {
    std::vector<int32_t> keys, values, asked;
    distinct(s.pairs, keys_, rng, keys);
    distinct(s.pairs, values_, rng, values);
    distinct(s.queries, s.pairs, rng, asked);
    std::sort(asked.begin(), asked.end());
    ex.tokens.assign(static_cast<size_t>(s.context), filler(0));
    ex.answers.clear();
    for (int64_t j = 0; j < s.pairs; ++j) {
      ex.tokens[static_cast<size_t>(2 * j)] = key(keys[static_cast<size_t>(j)]);
      ex.tokens[static_cast<size_t>(2 * j + 1)] = value(values[static_cast<size_t>(j)]);
    }
    std::vector<double> weights = s.slot_weights;
    double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    for (int32_t j : asked) {
      // Slot drawn with probability proportional to its weight among the
      // slots still free; the last free slot catches rounding.
      const double u = rng.uniform_f64() * total;
      size_t slot = 0, last_free = 0;
      double run = 0.0;
      for (; slot < weights.size(); ++slot) {
        if (weights[slot] == 0.0) continue;
        last_free = slot;
        run += weights[slot];
        if (u < run) break;
      }
      if (slot == weights.size()) slot = last_free;
      total -= weights[slot];
      weights[slot] = 0.0;
      const int64_t pos = 2 * s.pairs + 2 * static_cast<int64_t>(slot);
      ex.tokens[static_cast<size_t>(pos)] = key(keys[static_cast<size_t>(j)]);
      ex.answers.emplace_back(pos, value(values[static_cast<size_t>(j)]));
    }
    ex.group = static_cast<int32_t>(s.pairs);
  }

  void draw_haystack(int64_t context, int64_t depth, Rng& rng, Recall& ex) const {
    const int64_t last_start = context - 4;  // the needle fits in [0, context - 2)
    const int64_t p = depth >= 0 ? depth : rng.randint(last_start + 1);
    const int32_t k = key(rng.randint(keys_)), v = value(rng.randint(values_));
    ex.tokens.resize(static_cast<size_t>(context));
    for (int64_t t = 0; t < context - 2; ++t)
      ex.tokens[static_cast<size_t>(t)] = filler(rng.randint(fillers_));
    ex.tokens[static_cast<size_t>(p)] = k;
    ex.tokens[static_cast<size_t>(p + 1)] = v;
    ex.tokens[static_cast<size_t>(context - 2)] = query_token();
    ex.tokens[static_cast<size_t>(context - 1)] = k;
    ex.answers.assign(1, {context - 1, v});
    // Depth in percent of the possible positions, rounded to a multiple of 10.
    ex.group = static_cast<int32_t>(10 * ((10 * p + last_start / 2) / last_start));
  }

  static void write(const Recall& ex, int64_t b, Batch& out) {
    for (size_t t = 0; t < ex.tokens.size(); ++t)
      out.tokens[out.at(b, static_cast<int64_t>(t))] = ex.tokens[t];
    for (const auto& [pos, target] : ex.answers) {
      out.targets[out.at(b, pos)] = target;
      out.mask[out.at(b, pos)] = 1.0f;
    }
    out.group[b] = ex.group;
  }

  bool mqar_ = true;
  int64_t keys_ = 0, values_ = 0, fillers_ = 1;
  Setting train_, long_;
  GeneratedOptions common_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kNeedleTask, "needle",
                    "associative recall: multi-query (mqar) or needle in a haystack",
                    make_task_of<Needle>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
