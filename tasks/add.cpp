// Decimal addition: the sequence `a + b =` followed by the digits of a + b and
// the end token `$`, one token per digit, e.g. `1 2 + 9 = 2 1 $`. The loss and
// the metric cover the answer digits and `$` (the targets of the positions
// from `=` on). With reverse the answer is written least significant digit
// first, which lets a causal model emit each digit after the carry into it.
//
// Operand lengths are drawn uniformly in 1..digits, each independently, then
// their digits (no leading zero unless the number is 0), so every length
// shows up as often as every other whatever the digit count. The training
// distribution is split into train, arch and test by a hash of the unordered
// pair {a, b} (tasks/generated.h): a + b and b + a always land in the same
// split. "test_long" has both operands of digits+1 .. digits+extra-digits
// digits, lengths training never sees. group = the longer operand's length.
#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

namespace {

constexpr int32_t kPlus = 10, kEquals = 11, kEnd = 12, kPad = 13;

enum Split { kTrain, kArch, kTest, kTestLong };

class Add final : public GeneratedTask {
 public:
  explicit Add(const TaskOptions& o)
      : digits_(static_cast<int>(o.get_int("digits", 5, 1, 20))),
        extra_digits_(static_cast<int>(o.get_int("extra-digits", 2, 1, 20))),
        reverse_(o.get_bool("reverse", false)),
        common_(o) {
    for (int d = 0; d < 10; ++d) vocab_.names.push_back(std::to_string(d));
    for (const char* name : {"+", "=", "$", "<pad>"}) vocab_.names.push_back(name);
    check_splits_have_examples(*this, common_.holdout);
  }

  std::string name() const override { return "add"; }
  std::string describe() const override {
    return "add digits=" + std::to_string(digits_) +
           " extra-digits=" + std::to_string(extra_digits_) +
           " reverse=" + (reverse_ ? "true " : "false ") + common_.describe();
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return kPad; }
  int64_t max_length() const override { return length_of(kTestLong); }
  std::vector<std::string> eval_splits() const override { return {"test", "test_long"}; }
  std::string group_name() const override { return "digits"; }

 protected:
  int64_t eval_set_size() const override { return common_.eval_size; }
  uint64_t data_seed() const override { return common_.data_seed; }
  int64_t row_length(int split) const override { return length_of(Split(split)); }
  void write_row(int split, int64_t /*index*/, Rng& rng, int64_t b, Batch& out) const override {
    write_example(draw(Split(split), rng), b, out);
  }

 private:
  int max_operand(Split s) const { return s == kTestLong ? digits_ + extra_digits_ : digits_; }

  // `a + b = c $` with |a| = |b| = n and |c| = n + 1, less the last token.
  int64_t length_of(Split s) const { return 3 * int64_t{max_operand(s)} + 3; }

  // A number of `len` digits, most significant first.
  static std::vector<int32_t> random_number(int len, Rng& rng) {
    std::vector<int32_t> number(static_cast<size_t>(len));
    for (int i = 0; i < len; ++i)
      number[i] = static_cast<int32_t>(i == 0 && len > 1 ? 1 + rng.randint(9) : rng.randint(10));
    return number;
  }

  // The unordered pair as tokens: the smaller number first.
  static std::vector<int32_t> pair_key(const std::vector<int32_t>& a,
                                       const std::vector<int32_t>& b) {
    const bool a_first = a.size() != b.size() ? a.size() < b.size() : a <= b;
    const std::vector<int32_t>& lo = a_first ? a : b;
    const std::vector<int32_t>& hi = a_first ? b : a;
    std::vector<int32_t> key(lo);
    key.push_back(kPlus);
    key.insert(key.end(), hi.begin(), hi.end());
    return key;
  }

  Example draw(Split s, Rng& rng) const {
    const int lo = s == kTestLong ? digits_ + 1 : 1, hi = max_operand(s);
    std::vector<int32_t> a, b;
    auto draw_pair = [&](Rng& r) {
      a = random_number(static_cast<int>(lo + r.randint(hi - lo + 1)), r);
      b = random_number(static_cast<int>(lo + r.randint(hi - lo + 1)), r);
    };
    if (s == kTestLong) {
      draw_pair(rng);  // longer than any training operand: disjoint by length
    } else {
      const Part want = s == kTrain ? Part::train : s == kArch ? Part::arch : Part::test;
      std::vector<int32_t> key;
      common_.holdout.redraw_until(want, rng, *this, [&](Rng& r) {
        draw_pair(r);
        key = pair_key(a, b);
        return std::span<const int32_t>(key);
      });
    }
    return make_example(a, b);
  }

  Example make_example(const std::vector<int32_t>& a, const std::vector<int32_t>& b) const {
    // Column sums from the least significant digit up.
    std::vector<int32_t> sum;
    int32_t carry = 0;
    for (size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
      int32_t column = carry;
      if (i < a.size()) column += a[a.size() - 1 - i];
      if (i < b.size()) column += b[b.size() - 1 - i];
      sum.push_back(column % 10);
      carry = column / 10;
    }
    if (!reverse_) std::reverse(sum.begin(), sum.end());
    Example ex;
    ex.seq = a;
    ex.seq.push_back(kPlus);
    ex.seq.insert(ex.seq.end(), b.begin(), b.end());
    ex.mask_from = static_cast<int64_t>(ex.seq.size());  // the position of `=`
    ex.seq.push_back(kEquals);
    ex.seq.insert(ex.seq.end(), sum.begin(), sum.end());
    ex.seq.push_back(kEnd);
    ex.group = static_cast<int32_t>(std::max(a.size(), b.size()));
    return ex;
  }

  int digits_, extra_digits_;
  bool reverse_;
  GeneratedOptions common_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kAddTask, "add", "decimal addition a + b = c of up to `digits` digits",
                    make_task_of<Add>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
