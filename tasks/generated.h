// Helpers shared by the tasks whose examples are generated rather than read
// or enumerated (add, mano, dyck, sorted, copy, needle, denoise): the options
// they take, the hash holdout that keeps the train, arch and test parts
// disjoint, the random stream behind each fixed evaluation example, the
// next-token layout of an example in a Batch, the start-up check that every
// split can be drawn, and GeneratedTask, the base that holds the batch loops
// of sample() and eval_batch(). Sits in tasks/, next to task.h.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/rng.h"
#include "tasks/task.h"

namespace tapir {

// The three disjoint parts of a task's examples.
enum class Part { train, arch, test };
const char* part_name(Part part);

// Assigns an example to a part by a hash of its content (token ids) and the
// data seed: u = hash(seed, content) in [0, 1);
//   u < test_frac                                -> test
//   u < test_frac + (1 - test_frac) * arch_frac  -> arch
//   otherwise                                    -> train
// The part is a function of the content and the seed alone, so an example
// that can be drawn for one part can never be drawn for another, however
// often the generator repeats itself; the parts of a finite space are a fixed
// partition. A split is sampled by drawing from the whole distribution and
// redrawing until the content lands in its part (redraw_until), which keeps
// each part's distribution that of the whole up to the hash's selection.
class Holdout {
 public:
  Holdout(uint64_t data_seed, double test_frac, double arch_frac);
  Part part_of(std::span<const int32_t> content) const;
  double test_frac() const { return test_frac_; }
  double arch_frac() const { return arch_frac_; }

  // Calls draw(rng), which draws one example into storage of its own and
  // returns the content to hash, until the content lands in `want`. Fails
  // naming the task's options when kMaxDraws draws all land elsewhere (an
  // option space too small to give every part an example).
  static constexpr int64_t kMaxDraws = 1 << 16;
  template <typename Draw>
  void redraw_until(Part want, Rng& rng, const Task& task, Draw&& draw) const {
    TAPIR_CHECK(want != Part::arch || arch_frac_ > 0, task.name(),
                ": the arch split is empty because arch-frac is 0");
    for (int64_t i = 0; i < kMaxDraws; ++i)
      if (part_of(draw(rng)) == want) return;
    fail(task.name(), ": no example out of ", kMaxDraws, " draws landed in the ", part_name(want),
         " part: the options (", task.describe(),
         ") leave too few distinct examples to hold out test-frac and arch-frac");
  }

 private:
  uint64_t key_;
  double test_frac_, arch_frac_;
};

// The options every generated task reads, with one set of names, defaults
// and ranges:
//   eval-size  2000  1 .. 10^7     examples in each fixed evaluation set
//   data-seed  0     >= 0          seed of the holdout and the evaluation sets
//   test-frac  0.1   0.01 .. 0.5   share of the examples held out as test
//   arch-frac  0.2   0 .. 0.9      share of the rest held out as arch
struct GeneratedOptions {
  explicit GeneratedOptions(const TaskOptions& o);
  // "test-frac=0.1 arch-frac=0.2 eval-size=2000 data-seed=0"
  std::string describe() const;

  int64_t eval_size;
  uint64_t data_seed;
  Holdout holdout;
};

// The random stream of example `index` of the evaluation set of split number
// `split`: the same for the same data seed whatever else was drawn, so
// eval_batch can produce any slice of the set on its own.
Rng eval_example_rng(uint64_t data_seed, int split, int64_t index);

// One example as its full token sequence: the model reads seq[0 .. n-2] and
// predicts seq[1 .. n-1], so position t has target seq[t + 1]; positions
// t >= mask_from count for the loss and the metric.
struct Example {
  std::vector<int32_t> seq;
  int64_t mask_from = 0;
  int32_t group = -1;
};

// Writes ex into row b of a batch already reset to its size and pad token.
void write_example(const Example& ex, int64_t b, Batch& out);

// Fails unless begin and count select examples inside an evaluation set of
// `size` examples.
void check_eval_range(const Task& task, const std::string& split, int64_t begin, int64_t count,
                      int64_t size);

// Refuses options under which a split has no example, at construction rather
// than mid-training: samples a row of train (and of arch unless arch-frac is
// 0) and builds the first examples of every evaluation split. Call it at the
// end of a task's constructor.
void check_splits_have_examples(const Task& task, const Holdout& holdout);

// The base of the generated tasks: split names and numbers, eval_size(), and
// the batch loops of sample() and eval_batch(), so that a task only says how
// long its rows are and how one example is made.
//
// Splits are numbered train 0, arch 1, then eval_splits() from 2 on (test 2,
// test_long 3, ...). An evaluation example comes from its own random stream,
// eval_example_rng(data_seed(), eval_stream(split), index), so any slice of
// an evaluation set can be built on its own.
class GeneratedTask : public Task {
 public:
  void sample(const std::string& split, int64_t batch_size, Rng& rng, Batch& out) const override;
  int64_t eval_size(const std::string& split) const override;
  void eval_batch(const std::string& split, int64_t begin, int64_t count,
                  Batch& out) const override;

 protected:
  static constexpr int kTrainSplit = 0, kArchSplit = 1, kTestSplit = 2;

  // The number of a split; fails naming every split the task has.
  int split_number(const std::string& split) const;

  // Examples in each evaluation set, and the seed of their streams.
  virtual int64_t eval_set_size() const = 0;
  virtual uint64_t data_seed() const = 0;
  // The stream number of a split's evaluation examples: its split number
  // unless a task shares one set of examples between splits.
  virtual int eval_stream(int split) const { return split; }
  // Positions per row of a batch of `split`; each position holds
  // frame_dim() values when the task is a regression task.
  virtual int64_t row_length(int split) const = 0;
  // Writes one example of `split` into row b of `out` (already reset): a
  // training draw from `rng` when index is -1, else example `index` of the
  // evaluation set, drawn from its own stream `rng`.
  virtual void write_row(int split, int64_t index, Rng& rng, int64_t b, Batch& out) const = 0;

 private:
  void reset_rows(int split, int64_t rows, Batch& out) const;
};

}  // namespace tapir
