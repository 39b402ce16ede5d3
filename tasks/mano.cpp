// Modular arithmetic in prefix notation, after Allen-Zhu's "Physics of
// Language Models" Part 4.1 (Mano): a random expression with L operations
// from {+, -, *} modulo a prime, each leaf a value in [0, mod), one token per
// value, then `=` and the answer, e.g. `+ * 3 5 - 7 2 = 20` (mod 23). Only the
// answer counts: it is the target at the position of `=`.
//
// L is uniform in [1, max-ops]. The tree is drawn top down: a node with n
// operations gets a uniform operator and gives its left subtree a uniform
// 0..n-1 of the remaining n-1 operations, the right subtree the rest; a node
// with none is a leaf with a uniform value. This reaches every tree shape,
// from left and right chains to balanced trees.
//
// max-ops defaults to 8: the prompt is 2L + 1 tokens, so L = 8 is 17 tokens,
// small enough for the 2-4 layer models of the algorithmic experiments while
// still needing several steps of composition; longer expressions are an
// option away.
//
// The distribution is split into train, arch and test by a hash of the
// expression (tasks/generated.h). group = L.
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

namespace {

enum Split { kTrain, kArch, kTest };

bool is_prime(int64_t n) {
  if (n < 2) return false;
  for (int64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

class Mano final : public GeneratedTask {
 public:
  explicit Mano(const TaskOptions& o)
      : max_ops_(o.get_int("max-ops", 8, 1, 64)), mod_(o.get_int("mod", 23, 2, 1000)), common_(o) {
    TAPIR_CHECK(is_prime(mod_), "option mod = ", mod_, " is not a prime (mano works in the field ",
                "of integers modulo a prime)");
    for (int64_t v = 0; v < mod_; ++v) vocab_.names.push_back(std::to_string(v));
    for (const char* name : {"+", "-", "*", "=", "<pad>"}) vocab_.names.push_back(name);
    check_splits_have_examples(*this, common_.holdout);
  }

  std::string name() const override { return "mano"; }
  std::string describe() const override {
    return "mano max-ops=" + std::to_string(max_ops_) + " mod=" + std::to_string(mod_) + " " +
           common_.describe();
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return token(4); }
  // The prompt of 2L + 1 tokens and `=`; the answer is only a target.
  int64_t max_length() const override { return 2 * max_ops_ + 2; }
  std::vector<std::string> eval_splits() const override { return {"test"}; }
  std::string group_name() const override { return "L"; }

 protected:
  int64_t eval_set_size() const override { return common_.eval_size; }
  uint64_t data_seed() const override { return common_.data_seed; }
  int64_t row_length(int /*split*/) const override { return max_length(); }
  void write_row(int split, int64_t /*index*/, Rng& rng, int64_t b, Batch& out) const override {
    write_example(draw(Split(split), rng), b, out);
  }

 private:
  // Token ids after the mod values: 0 `+`, 1 `-`, 2 `*`, 3 `=`, 4 pad.
  int32_t token(int64_t i) const { return static_cast<int32_t>(mod_ + i); }

  // Appends a random expression with `ops` operations in prefix order and
  // returns its value.
  int64_t grow(int64_t ops, Rng& rng, std::vector<int32_t>& out) const {
    if (ops == 0) {
      const int64_t leaf = rng.randint(mod_);
      out.push_back(static_cast<int32_t>(leaf));
      return leaf;
    }
    const int64_t op = rng.randint(3);
    out.push_back(token(op));
    const int64_t left_ops = rng.randint(ops);
    const int64_t a = grow(left_ops, rng, out);
    const int64_t b = grow(ops - 1 - left_ops, rng, out);
    if (op == 0) return (a + b) % mod_;
    if (op == 1) return (a - b + mod_) % mod_;
    return a * b % mod_;
  }

  Example draw(Split s, Rng& rng) const {
    const Part want = s == kTrain ? Part::train : s == kArch ? Part::arch : Part::test;
    Example ex;
    int64_t ops = 0, answer = 0;
    common_.holdout.redraw_until(want, rng, *this, [&](Rng& r) {
      ops = 1 + r.randint(max_ops_);
      ex.seq.clear();
      answer = grow(ops, r, ex.seq);
      return std::span<const int32_t>(ex.seq);
    });
    ex.mask_from = static_cast<int64_t>(ex.seq.size());  // the position of `=`
    ex.seq.push_back(token(3));
    ex.seq.push_back(static_cast<int32_t>(answer));
    ex.group = static_cast<int32_t>(ops);
    return ex;
  }

  int64_t max_ops_, mod_;
  GeneratedOptions common_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kManoTask, "mano",
                    "modular arithmetic in prefix notation with up to max-ops operations (Mano)",
                    make_task_of<Mano>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
