// Keeps the train, arch and test examples of a generated task disjoint.
//
// Each example's content (its token ids) is hashed together with the data
// seed to a number u in [0, 1):
//   u < test_frac                                -> test (and every other
//                                                   evaluation split)
//   u < test_frac + (1 - test_frac) * arch_frac  -> arch
//   otherwise                                    -> train
// A generator draws an example and redraws until it lands in the part its
// split asks for (rejection sampling). The part of an example is a pure
// function of its content and the seed, so no example can appear in two
// parts, however often short sequences repeat; within a part examples keep
// the generator's distribution. Used by copy and needle (tasks/*.cpp).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "engine/rng.h"

namespace tapir {

enum class Part { kTrain, kArch, kTest };
const char* part_name(Part part);

// splitmix64 chained over the ids (a bijection per step, so order and length
// both change the result), keyed by the seed.
uint64_t content_hash(std::span<const int32_t> content, uint64_t seed);

class Holdout {
 public:
  Holdout(uint64_t seed, double arch_frac, double test_frac);
  Part part_of(std::span<const int32_t> content) const;
  double arch_frac() const { return arch_frac_; }
  double test_frac() const { return test_frac_; }

  // Draws one example into its own storage with draw(rng), which returns the
  // content to hash, until the content lands in `want`. Fails naming the task
  // when `max_draws` draws all land elsewhere (an option space too small to
  // give every split an example).
  static constexpr int64_t kMaxDraws = 1 << 16;
  template <typename Draw>
  void redraw_until(Part want, Rng& rng, std::string_view task, Draw&& draw) const {
    TAPIR_CHECK(want != Part::kArch || arch_frac_ > 0, task,
                ": the arch split is empty because arch-frac is 0");
    for (int64_t i = 0; i < kMaxDraws; ++i)
      if (part_of(draw(rng)) == want) return;
    fail(task, ": no example out of ", kMaxDraws, " draws landed in the ", part_name(want),
         " part; the options leave too few distinct examples to hold out test-frac = ", test_frac_,
         " and arch-frac = ", arch_frac_);
  }

 private:
  uint64_t seed_;
  double arch_frac_, test_frac_;
};

}  // namespace tapir
