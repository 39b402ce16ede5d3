#include "tasks/generated.h"

#include "engine/error.h"

namespace tapir {

HashHoldout::HashHoldout(uint64_t data_seed, double test_frac, double arch_frac)
    : key_(splitmix64(data_seed ^ 0x686f6c646f7574ull)),  // "holdout"
      test_frac_(test_frac),
      arch_frac_(arch_frac) {}

Part HashHoldout::part_of(const int32_t* content, size_t n) const {
  uint64_t h = splitmix64(key_ ^ n);
  for (size_t i = 0; i < n; ++i)
    h = splitmix64(h ^ (static_cast<uint64_t>(static_cast<uint32_t>(content[i])) << 1));
  const double u = static_cast<double>(h >> 11) * 0x1.0p-53;
  if (u < test_frac_) return Part::test;
  if (u < test_frac_ + (1.0 - test_frac_) * arch_frac_) return Part::arch;
  return Part::train;
}

Rng eval_example_rng(uint64_t data_seed, int split, int64_t index) {
  // Streams 0..15 of the data seed are left to the tasks' own purposes.
  return Rng(data_seed, 16 + static_cast<uint64_t>(split)).split(static_cast<uint64_t>(index));
}

void write_example(const Example& ex, int64_t b, Batch& out) {
  const auto T = static_cast<int64_t>(ex.seq.size()) - 1;
  TAPIR_CHECK(T >= 1 && T <= out.T && b >= 0 && b < out.B, "example of ", T,
              " positions does not fit row ", b, " of a (", out.B, ", ", out.T, ") batch");
  for (int64_t t = 0; t < T; ++t) {
    const int64_t i = out.at(b, t);
    out.tokens[i] = ex.seq[t];
    out.targets[i] = ex.seq[t + 1];
    out.mask[i] = t >= ex.mask_from ? 1.0f : 0.0f;
  }
  out.group[b] = ex.group;
}

void check_eval_range(const std::string& task, const std::string& split, int64_t begin,
                      int64_t count, int64_t size) {
  TAPIR_CHECK(begin >= 0 && count >= 0 && begin + count <= size, task, ": examples [", begin, ", ",
              begin + count, ") outside the ", size, " examples of split ", split);
}

}  // namespace tapir
