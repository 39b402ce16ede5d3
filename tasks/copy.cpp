// Copy (Jelassi et al. 2024, "Repeat After Me"): the sequence `$ s | s .`
// over an alphabet of V symbols. The model reads `$ s |` and must reproduce s
// and the closing `.`; loss and metric count only those positions, and an
// example is right when all of them are (string-level exact match).
//
// Lengths: train draws |s| uniformly from min-len..max-len; arch from the
// wider min-len..arch-max-len (as Teney et al. do for Stage I); "test" from
// the training range and "test_long" from max-len+1..test-max-len. The group
// key is |s|, so an evaluation prints accuracy by length. Strings are split
// between train, arch and test by a hash of their symbols and the data seed
// (tasks/generated.h), so a short string the model trains on never shows up
// in arch or in an evaluation set; test_long draws from the test part too,
// since its lengths overlap those of arch.
#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

namespace {

enum Split { kTrain, kArch, kTest, kTestLong };

struct LengthRange {
  int64_t lo, hi;
  Part part;
  Split split;
};

class Copy final : public Task {
 public:
  explicit Copy(const TaskOptions& o)
      : alphabet_(o.get_int("alphabet", 10, 2, 1000)),
        min_len_(o.get_int("min-len", 2, 1, 4095)),
        max_len_(o.get_int("max-len", 10, min_len_, 4095)),
        arch_max_len_(o.get_int("arch-max-len", 15, max_len_, 4096)),
        test_max_len_(o.get_int("test-max-len", 30, max_len_ + 1, 4096)),
        common_(o) {
    for (int64_t i = 0; i < alphabet_; ++i) vocab_.names.push_back(std::to_string(i));
    for (const char* name : {"$", "|", ".", "<pad>"}) vocab_.names.push_back(name);
    check_every_length_has_strings();
    check_splits_have_examples(*this, common_.holdout);
  }

  std::string name() const override { return "copy"; }
  std::string describe() const override {
    return "copy alphabet=" + std::to_string(alphabet_) + " lengths " + std::to_string(min_len_) +
           ".." + std::to_string(max_len_) + " (arch .." + std::to_string(arch_max_len_) +
           ", test_long " + std::to_string(max_len_ + 1) + ".." + std::to_string(test_max_len_) +
           ") " + common_.describe();
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return symbol(3); }
  int64_t max_length() const override {
    return row_length(std::max({max_len_, arch_max_len_, test_max_len_}));
  }
  std::vector<std::string> eval_splits() const override { return {"test", "test_long"}; }
  std::string group_name() const override { return "length"; }

  void sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const override {
    const LengthRange range = lengths(split);
    std::vector<int64_t> lens(static_cast<size_t>(batch_size));
    for (int64_t& len : lens) len = range.lo + rng.randint(range.hi - range.lo + 1);
    const int64_t longest = batch_size ? *std::max_element(lens.begin(), lens.end()) : 0;
    out.reset(batch_size, row_length(longest), pad_token());
    for (int64_t b = 0; b < batch_size; ++b)
      write_example(draw(range.part, lens[static_cast<size_t>(b)], rng), b, out);
  }

  int64_t eval_size(const std::string& split) const override {
    lengths(split);  // rejects an unknown split
    return common_.eval_size;
  }

  // Example i of a split has length lo + i mod (hi - lo + 1), so every length
  // gets the same share, and its string comes from its own random stream.
  void eval_batch(const std::string& split, int64_t begin, int64_t count,
                  Batch& out) const override {
    const LengthRange range = lengths(split);
    check_eval_range(*this, split, begin, count, common_.eval_size);
    const int64_t span = range.hi - range.lo + 1;
    int64_t longest = 0;
    for (int64_t b = 0; b < count; ++b) longest = std::max(longest, range.lo + (begin + b) % span);
    out.reset(count, row_length(longest), pad_token());
    for (int64_t b = 0; b < count; ++b) {
      Rng rng = eval_example_rng(common_.data_seed, range.split, begin + b);
      write_example(draw(range.part, range.lo + (begin + b) % span, rng), b, out);
    }
  }

 private:
  int32_t symbol(int64_t k) const { return static_cast<int32_t>(alphabet_ + k); }  // $ | . pad
  // `$ s | s .` has 2L + 3 tokens; the model reads all but the last.
  static int64_t row_length(int64_t len) { return 2 * len + 2; }

  LengthRange lengths(const std::string& split) const {
    if (split == "train") return {min_len_, max_len_, Part::train, kTrain};
    if (split == "arch") return {min_len_, arch_max_len_, Part::arch, kArch};
    if (split == "test") return {min_len_, max_len_, Part::test, kTest};
    if (split == "test_long") return {max_len_ + 1, test_max_len_, Part::test, kTestLong};
    fail("copy has no split '", split, "' (splits: train, arch, test, test_long)");
  }

  // `$ s | s .`: the model reads `$ s |` and must write s and `.`.
  Example draw(Part part, int64_t len, Rng& rng) const {
    std::vector<int32_t> s(static_cast<size_t>(len));
    common_.holdout.redraw_until(part, rng, *this, [&](Rng& r) {
      for (int32_t& c : s) c = static_cast<int32_t>(r.randint(alphabet_));
      return std::span<const int32_t>(s);
    });
    Example ex;
    ex.seq.reserve(static_cast<size_t>(2 * len + 3));
    ex.seq.push_back(symbol(0));
    ex.seq.insert(ex.seq.end(), s.begin(), s.end());
    ex.seq.push_back(symbol(1));
    ex.seq.insert(ex.seq.end(), s.begin(), s.end());
    ex.seq.push_back(symbol(2));
    ex.mask_from = len + 1;  // the position of `|`: its target is the first copied symbol
    ex.group = static_cast<int32_t>(len);
    return ex;
  }

  // Short lengths over a small alphabet have few strings; when there are at
  // most 2^16 of them, check that each length of each split has at least one
  // string in its part, so sampling can never run dry mid-training. Longer
  // lengths have enough strings that an empty part has chance below 1e-300.
  void check_every_length_has_strings() const {
    const LengthRange ranges[] = {lengths("train"), lengths("arch"), lengths("test"),
                                  lengths("test_long")};
    for (const LengthRange& range : ranges) {
      if (range.part == Part::arch && common_.holdout.arch_frac() == 0) continue;
      for (int64_t len = range.lo; len <= range.hi; ++len) {
        int64_t strings = 1;
        for (int64_t i = 0; i < len && strings <= (1 << 16); ++i) strings *= alphabet_;
        if (strings > (1 << 16)) break;
        std::vector<int32_t> s(static_cast<size_t>(len), 0);
        bool found = false;
        for (int64_t k = 0; k < strings && !found; ++k) {
          for (int64_t i = 0, rest = k; i < len; ++i, rest /= alphabet_)
            s[static_cast<size_t>(i)] = static_cast<int32_t>(rest % alphabet_);
          found = common_.holdout.part_of(s) == range.part;
        }
        TAPIR_CHECK(found, "copy: none of the ", strings, " strings of length ", len,
                    " over alphabet = ", alphabet_, " falls in the ", part_name(range.part),
                    " part with data-seed = ", common_.data_seed,
                    "; raise min-len or alphabet (or change test-frac / arch-frac)");
      }
    }
  }

  int64_t alphabet_, min_len_, max_len_, arch_max_len_, test_max_len_;
  GeneratedOptions common_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kCopyTask, "copy", "copy `$ s | s .` with length generalisation",
                    make_task_of<Copy>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
