// Helpers shared by the tasks whose examples are generated rather than
// enumerated (add, mano, dyck): the hash holdout that keeps the train, arch
// and test parts of one distribution disjoint, the random stream behind each
// fixed evaluation example, and the next-token layout of an example in a
// Batch. Sits in tasks/, next to task.h.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/rng.h"
#include "tasks/task.h"

namespace tapir {

// The three disjoint parts of a task's in-distribution examples.
enum class Part { train, arch, test };

// Assigns an example to a part by a hash of its content and the data seed:
// u = hash(data seed, content) in [0, 1); u < test_frac is test, and the rest
// (the training distribution) splits into arch (the first arch_frac of it) and
// train. The part is a function of the content alone, so an example that can
// be generated for one part can never be drawn for another, however often the
// generator repeats itself; the parts of a finite space are a fixed partition.
// A split is sampled by drawing from the whole distribution and keeping the
// draws of its part, which keeps each part's distribution the same as the
// whole one up to the hash's selection.
class HashHoldout {
 public:
  HashHoldout(uint64_t data_seed, double test_frac, double arch_frac);
  Part part_of(const int32_t* content, size_t n) const;
  Part part_of(const std::vector<int32_t>& content) const {
    return part_of(content.data(), content.size());
  }
  double test_frac() const { return test_frac_; }
  double arch_frac() const { return arch_frac_; }

 private:
  uint64_t key_;
  double test_frac_, arch_frac_;
};

// Draws a rejection sampler may spend on one example before it concludes that
// its split holds no example at all (a tiny space, all of it hashed
// elsewhere).
constexpr int64_t kMaxDrawsPerExample = 1'000'000;

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
void check_eval_range(const std::string& task, const std::string& split, int64_t begin,
                      int64_t count, int64_t size);

}  // namespace tapir
