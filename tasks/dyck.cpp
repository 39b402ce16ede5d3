// Dyck-(k, m): balanced strings over k bracket types with nesting depth at
// most m, drawn with the sampler of Hewitt et al. 2020 ("RNNs can generate
// bounded hierarchical languages with optimal memory"): with an empty stack,
// end with probability 1/2, else open one of the k types (1/(2k) each); below
// depth m, close the top with probability 1/2, else open (1/(2k) each); at
// depth m, close.
//
// Lengths. A split keeps the strings whose length lies in its range:
// [min-len, max-len] for train, arch and test, (max-len, test-max-len] for
// test_long. Rather than drawing and rejecting until the length fits, the
// sampler is conditioned on the range exactly: W(d, e), the chance that the
// process at depth d after e tokens ends inside the range, is tabulated
// backwards, and each step takes its move with probability
// p(move) W(next) / W(here). That is the same distribution as rejection
// sampling, and it stays fast when the range is improbable (long strings with
// a shallow depth bound would otherwise take millions of draws).
//
// Modes. lm: the sequence is `<bos> s $` read as next-token prediction, every
// position counts for the loss, and score() applies the Hewitt et al. metric
// (below). accept: `<bos> s ?` with the target `yes` or `no` at `?`; half the
// examples are sampled strings, half are corruptions of a sampled string of
// the same length, by one of (uniformly): giving one bracket another type (k
// >= 2), swapping two positions, or dropping a suffix of 1..n brackets and
// appending as many uniformly random brackets. A corruption still in
// Dyck-(k, m) is thrown away and drawn again; one that is balanced but deeper
// than m is a valid negative.
//
// Splits: train, arch and test by a hash of the bracket string
// (tasks/generated.h); test_long is disjoint by length. group = string length.
#include "tasks/dyck.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

bool dyck_is_balanced(const std::vector<int>& brackets, int types, int max_depth) {
  std::vector<int> stack;
  for (int x : brackets) {
    if (x >= 0 && x < types) {
      stack.push_back(x);
      if (static_cast<int>(stack.size()) > max_depth) return false;
    } else if (x >= types && x < 2 * types) {
      if (stack.empty() || stack.back() != x - types) return false;
      stack.pop_back();
    } else {
      return false;
    }
  }
  return stack.empty();
}

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
const double kLogHalf = std::log(0.5);

double log_add(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double hi = std::max(a, b);
  return hi + std::log1p(std::exp(std::min(a, b) - hi));
}

// The Hewitt et al. process conditioned on its length lying in [lo, hi].
class LengthConditionedSampler {
 public:
  LengthConditionedSampler(int types, int depth, int lo, int hi)
      // Depth above hi / 2 cannot return to 0 within hi tokens, so a deeper
      // bound changes nothing.
      : types_(types), depth_(std::min(depth, hi / 2 + 1)), lo_(lo), hi_(hi) {
    log_w_.assign(static_cast<size_t>(hi_ + 2) * (depth_ + 1), kNegInf);
    for (int e = hi_; e >= 0; --e) {
      log_w_[at(0, e)] =
          log_add(kLogHalf + (e >= lo_ ? 0.0 : kNegInf), kLogHalf + log_w_[at(1, e + 1)]);
      for (int d = 1; d < depth_; ++d)
        log_w_[at(d, e)] =
            log_add(kLogHalf + log_w_[at(d - 1, e + 1)], kLogHalf + log_w_[at(d + 1, e + 1)]);
      log_w_[at(depth_, e)] = log_w_[at(depth_ - 1, e + 1)];
    }
  }

  bool feasible() const { return log_w_[at(0, 0)] > kNegInf; }

  std::vector<int> sample(Rng& rng) const {
    std::vector<int> out, stack;
    for (int e = 0;; ++e) {
      const int d = static_cast<int>(stack.size());
      const double here = log_w_[at(d, e)];
      bool open;
      if (d == 0) {
        const double p_end = std::exp(kLogHalf + (e >= lo_ ? 0.0 : kNegInf) - here);
        if (rng.uniform_f64() < p_end) return out;
        open = true;
      } else if (d == depth_) {
        open = false;
      } else {
        open = rng.uniform_f64() >= std::exp(kLogHalf + log_w_[at(d - 1, e + 1)] - here);
      }
      if (open) {
        stack.push_back(static_cast<int>(rng.randint(types_)));
        out.push_back(stack.back());
      } else {
        out.push_back(types_ + stack.back());
        stack.pop_back();
      }
    }
  }

 private:
  size_t at(int d, int e) const { return static_cast<size_t>(e) * (depth_ + 1) + d; }

  int types_, depth_, lo_, hi_;
  std::vector<double> log_w_;  // (hi + 2, depth + 1): log W(d, e)
};

enum Split { kTrain, kArch, kTest, kTestLong };

class Dyck final : public GeneratedTask {
 public:
  explicit Dyck(const TaskOptions& o)
      : types_(static_cast<int>(o.get_int("types", 2, 1, 64))),
        depth_(static_cast<int>(o.get_int("depth", 4, 1, 1024))),
        min_len_(static_cast<int>(o.get_int("min-len", 2, 1, 4096))),
        max_len_(static_cast<int>(o.get_int("max-len", 40, 1, 4096))),
        test_max_len_(static_cast<int>(o.get_int("test-max-len", 80, 2, 4096))),
        accept_(parse_mode(o.get_string("mode", "lm"))),
        common_(o),
        short_(types_, depth_, min_len_, max_len_),
        long_(types_, depth_, max_len_ + 1, test_max_len_) {
    TAPIR_CHECK(min_len_ <= max_len_, "option min-len = ", min_len_,
                " is above max-len = ", max_len_);
    TAPIR_CHECK(max_len_ < test_max_len_, "option test-max-len = ", test_max_len_,
                " must be above max-len = ", max_len_, " (test_long holds the longer strings)");
    TAPIR_CHECK(short_.feasible(), "options min-len = ", min_len_, " and max-len = ", max_len_,
                " admit no even length (every Dyck string has an even length)");
    TAPIR_CHECK(long_.feasible(), "option test-max-len = ", test_max_len_,
                " leaves no even length above max-len = ", max_len_);
    static const char* const kPairs[4][2] = {{"(", ")"}, {"[", "]"}, {"{", "}"}, {"<", ">"}};
    for (int side = 0; side < 2; ++side) {
      for (int t = 0; t < types_; ++t) {
        std::string bracket = t < 4 ? kPairs[t][side] : side ? "c" : "o";
        if (t >= 4) bracket += std::to_string(t);  // o4 c4, o5 c5, ...
        vocab_.names.push_back(bracket);
      }
    }
    for (const char* name : {"<bos>", "$", "?", "yes", "no", "<pad>"}) vocab_.names.push_back(name);
    check_splits_have_examples(*this, common_.holdout);
  }

  std::string name() const override { return "dyck"; }
  std::string describe() const override {
    return "dyck types=" + std::to_string(types_) + " depth=" + std::to_string(depth_) +
           " min-len=" + std::to_string(min_len_) + " max-len=" + std::to_string(max_len_) +
           " test-max-len=" + std::to_string(test_max_len_) +
           " mode=" + (accept_ ? "accept " : "lm ") + common_.describe();
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return special(5); }
  int64_t max_length() const override { return length_of(kTestLong); }
  std::vector<std::string> eval_splits() const override { return {"test", "test_long"}; }
  std::string group_name() const override { return "length"; }

  void score(const Batch& batch, const float* logits, const float* losses,
             EvalTally& tally) const override;

 protected:
  int64_t eval_set_size() const override { return common_.eval_size; }
  uint64_t data_seed() const override { return common_.data_seed; }
  int64_t row_length(int split) const override { return length_of(Split(split)); }
  // In accept mode a training draw is a negative with probability 1/2; in an
  // evaluation set the even-numbered examples are positives and the odd ones
  // negatives, so the set is balanced to within one example.
  void write_row(int split, int64_t index, Rng& rng, int64_t b, Batch& out) const override {
    const bool negative = accept_ && (index < 0 ? rng.randint(2) == 0 : index % 2 == 1);
    write_example(draw(Split(split), negative, rng), b, out);
  }

 private:
  static bool parse_mode(const std::string& mode) {
    if (mode == "lm") return false;
    if (mode == "accept") return true;
    fail("option mode: expected lm or accept, got '", mode, "'");
  }

  // Ids after the 2k brackets: 0 <bos>, 1 $, 2 ?, 3 yes, 4 no, 5 pad.
  int32_t special(int i) const { return 2 * types_ + i; }

  // lm: `<bos> s $` less the last token; accept: `<bos> s ? label` less the label.
  int64_t length_of(Split s) const {
    return (s == kTestLong ? test_max_len_ : max_len_) + (accept_ ? 2 : 1);
  }

  // A string of the split's lengths and, for train/arch/test, of its hash
  // part; a negative (accept mode) when `negative`.
  Example draw(Split s, bool negative, Rng& rng) const {
    const LengthConditionedSampler& sampler = s == kTestLong ? long_ : short_;
    std::vector<int32_t> str;
    auto draw_string = [&](Rng& r) {
      std::vector<int> brackets = sampler.sample(r);
      // A corruption still in the language is no negative: corrupt another
      // string. Every string has a corruption outside it (a swap or a random
      // suffix), so this ends.
      while (negative) {
        corrupt(brackets, r);
        if (!dyck_is_balanced(brackets, types_, depth_)) break;
        brackets = sampler.sample(r);
      }
      str.assign(brackets.begin(), brackets.end());
      return std::span<const int32_t>(str);
    };
    if (s == kTestLong) {
      draw_string(rng);  // longer than any training string: disjoint by length
    } else {
      const Part want = s == kTrain ? Part::train : s == kArch ? Part::arch : Part::test;
      common_.holdout.redraw_until(want, rng, *this, draw_string);
    }
    Example ex;
    ex.group = static_cast<int32_t>(str.size());
    ex.seq.push_back(special(0));
    ex.seq.insert(ex.seq.end(), str.begin(), str.end());
    if (accept_) {
      ex.mask_from = static_cast<int64_t>(ex.seq.size());  // the position of `?`
      ex.seq.push_back(special(2));
      ex.seq.push_back(negative ? special(4) : special(3));
    } else {
      ex.seq.push_back(special(1));
    }
    return ex;
  }

  // One length-preserving corruption of a string of length >= 1.
  void corrupt(std::vector<int>& str, Rng& rng) const {
    const auto n = static_cast<int64_t>(str.size());
    const int64_t kind = types_ >= 2 ? rng.randint(3) : 1 + rng.randint(2);
    if (kind == 0) {  // another type for one bracket
      const auto i = static_cast<size_t>(rng.randint(n));
      const int closing = str[i] >= types_ ? types_ : 0;
      const int type = str[i] - closing;
      str[i] = closing + (type + 1 + static_cast<int>(rng.randint(types_ - 1))) % types_;
    } else if (kind == 1) {  // swap two positions
      if (n < 2) return;
      const int64_t i = rng.randint(n);
      int64_t j = rng.randint(n - 1);
      if (j >= i) ++j;
      std::swap(str[static_cast<size_t>(i)], str[static_cast<size_t>(j)]);
    } else {  // replace a suffix by random brackets
      const int64_t keep = n - 1 - rng.randint(n);
      for (int64_t i = keep; i < n; ++i)
        str[static_cast<size_t>(i)] = static_cast<int>(rng.randint(2 * types_));
    }
  }

  int types_, depth_, min_len_, max_len_, test_max_len_;
  bool accept_;
  GeneratedOptions common_;
  LengthConditionedSampler short_, long_;
  Vocab vocab_;
};

// The metric of Hewitt et al. 2020 for lm mode: at every position whose
// prefix leaves the stack non-empty, the model's probability of the bracket
// that closes the top, as a share of its probability on all closing brackets,
// must exceed 0.8. tokens counts those positions and an example is correct
// when all of its positions pass; the loss covers every masked position
// (loss_tokens), so loss() is the mean next-token loss.
void Dyck::score(const Batch& batch, const float* logits, const float* losses,
                 EvalTally& tally) const {
  if (accept_) return Task::score(batch, logits, losses, tally);
  const int64_t V = vocab().size();
  std::vector<int> stack;
  for (int64_t b = 0; b < batch.B; ++b) {
    Tally one;
    one.examples = 1;
    bool all_right = true;
    stack.clear();
    for (int64_t t = 0; t < batch.T; ++t) {
      const int64_t i = batch.at(b, t);
      if (batch.mask[i] == 0.0f) continue;
      one.loss_tokens += 1;
      one.loss_sum += losses[i];
      const int32_t token = batch.tokens[i];
      if (token < types_) stack.push_back(token);
      if (token >= types_ && token < 2 * types_ && !stack.empty()) stack.pop_back();
      if (stack.empty()) continue;
      // Softmax over the closing brackets alone: the full row's normaliser
      // cancels in the share.
      const float* close = logits + i * V + types_;
      const float top = *std::max_element(close, close + types_);
      double mass = 0;
      for (int c = 0; c < types_; ++c) mass += std::exp(double(close[c]) - double(top));
      const double share = std::exp(double(close[stack.back()]) - double(top)) / mass;
      const bool right = share > 0.8;
      one.tokens += 1;
      one.tokens_correct += right;
      all_right = all_right && right;
    }
    one.correct = all_right;
    tally.add(one, batch.group[b]);
  }
}

}  // namespace

TAPIR_REGISTER_TASK(kDyckTask, "dyck",
                    "Dyck-(k, m) bracket strings: next-token prediction or accept/reject",
                    make_task_of<Dyck>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
