// Sorted: is a sequence of symbols in non-decreasing order? A sequence
// classification task for the per-layer descent method
// (docs/constraints.md), laid out like dyck's accept mode:
// `<bos> x_1 .. x_n ? label` with the label `yes` or `no` the target at `?`,
// the only scored position.
//
// Half the examples are sorted: n symbols drawn uniformly from 0..k-1, then
// sorted. The other half are hard negatives: a sorted sequence drawn the same
// way with two unequal symbols swapped, so the sequence holds the same
// multiset as a sorted one and differs from it in two places. Deciding takes
// every adjacent pair (x_{t-1} <= x_t) and an "all of them" over positions.
//
// Lengths n are uniform in [min-len, max-len] for train, arch and test, and
// in (max-len, test-max-len] for test_long. Train, arch and test are disjoint
// by a hash of the symbols (tasks/generated.h). group = n.
#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

namespace {

enum Split { kTrain, kArch, kTest, kTestLong };

class Sorted final : public GeneratedTask {
 public:
  explicit Sorted(const TaskOptions& o)
      : symbols_(static_cast<int>(o.get_int("symbols", 10, 2, 1000))),
        min_len_(o.get_int("min-len", 2, 2, 4096)),
        max_len_(o.get_int("max-len", 16, 2, 4096)),
        test_max_len_(o.get_int("test-max-len", 24, 3, 4096)),
        common_(o) {
    TAPIR_CHECK(min_len_ <= max_len_, "option min-len = ", min_len_,
                " is above max-len = ", max_len_);
    TAPIR_CHECK(max_len_ < test_max_len_, "option test-max-len = ", test_max_len_,
                " must be above max-len = ", max_len_, " (test_long holds the longer sequences)");
    for (int s = 0; s < symbols_; ++s) vocab_.names.push_back(std::to_string(s));
    for (const char* name : {"<bos>", "?", "yes", "no", "<pad>"}) vocab_.names.push_back(name);
  }

  std::string name() const override { return "sorted"; }
  std::string describe() const override {
    return "sorted symbols=" + std::to_string(symbols_) + " min-len=" + std::to_string(min_len_) +
           " max-len=" + std::to_string(max_len_) +
           " test-max-len=" + std::to_string(test_max_len_) +
           " test-frac=" + std::to_string(common_.holdout.test_frac()) +
           " arch-frac=" + std::to_string(common_.holdout.arch_frac()) +
           " eval-size=" + std::to_string(common_.eval_size) +
           " data-seed=" + std::to_string(common_.data_seed);
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return special(4); }
  int64_t max_length() const override { return test_max_len_ + 2; }
  std::vector<std::string> eval_splits() const override { return {"test", "test_long"}; }
  std::string group_name() const override { return "length"; }

 protected:
  int64_t eval_set_size() const override { return common_.eval_size; }
  uint64_t data_seed() const override { return common_.data_seed; }
  int64_t row_length(int split) const override { return length_of(Split(split)); }
  // A training draw is unsorted with probability 1/2; in an evaluation set
  // the even-numbered examples are sorted and the odd-numbered ones are not.
  void write_row(int split, int64_t index, Rng& rng, int64_t b, Batch& out) const override {
    const bool negative = index < 0 ? rng.randint(2) == 0 : index % 2 == 1;
    write_example(draw(Split(split), negative, rng), b, out);
  }

 private:
  // Ids after the symbols: 0 <bos>, 1 ?, 2 yes, 3 no, 4 pad.
  int32_t special(int i) const { return symbols_ + i; }
  // `<bos> x ? label` less the label.
  int64_t length_of(Split s) const { return (s == kTestLong ? test_max_len_ : max_len_) + 2; }

  Example draw(Split s, bool negative, Rng& rng) const {
    const int64_t lo = s == kTestLong ? max_len_ + 1 : min_len_;
    const int64_t hi = s == kTestLong ? test_max_len_ : max_len_;
    const Part want = s == kTrain ? Part::train : s == kArch ? Part::arch : Part::test;
    std::vector<int32_t> x;
    for (int64_t tries = 0; tries < Holdout::kMaxDraws; ++tries) {
      const int64_t n = lo + rng.randint(hi - lo + 1);
      x.resize(static_cast<size_t>(n));
      for (int32_t& v : x) v = static_cast<int32_t>(rng.randint(symbols_));
      std::sort(x.begin(), x.end());
      if (negative && !swap_unequal(x, rng)) continue;
      if (s != kTestLong && common_.holdout.part_of(x) != want) continue;
      Example ex;
      ex.group = static_cast<int32_t>(n);
      ex.seq.push_back(special(0));
      ex.seq.insert(ex.seq.end(), x.begin(), x.end());
      ex.mask_from = static_cast<int64_t>(ex.seq.size());  // the position of `?`
      ex.seq.push_back(special(1));
      ex.seq.push_back(negative ? special(3) : special(2));
      return ex;
    }
    fail("sorted: no example of split ",
         s == kTrain  ? "train"
         : s == kArch ? "arch"
                      : "test",
         " in ", Holdout::kMaxDraws, " draws (too few sequences for test-frac and arch-frac)");
  }

  // Swaps two positions i < j of a sorted x with x_i < x_j, which leaves x
  // unsorted; false if every symbol is the same.
  static bool swap_unequal(std::vector<int32_t>& x, Rng& rng) {
    if (x.front() == x.back()) return false;
    const auto n = static_cast<int64_t>(x.size());
    for (;;) {
      const int64_t i = rng.randint(n), j = rng.randint(n);
      if (i < j && x[static_cast<size_t>(i)] < x[static_cast<size_t>(j)]) {
        std::swap(x[static_cast<size_t>(i)], x[static_cast<size_t>(j)]);
        return true;
      }
    }
  }

  int symbols_;
  int64_t min_len_, max_len_, test_max_len_;
  GeneratedOptions common_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kSortedTask, "sorted",
                    "is a sequence of symbols sorted? (classification, label at the last position)",
                    make_task_of<Sorted>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
