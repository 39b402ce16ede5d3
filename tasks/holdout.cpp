#include "tasks/holdout.h"

namespace tapir {

const char* part_name(Part part) {
  switch (part) {
    case Part::kTrain:
      return "train";
    case Part::kArch:
      return "arch";
    case Part::kTest:
      return "test";
  }
  return "?";
}

uint64_t content_hash(std::span<const int32_t> content, uint64_t seed) {
  uint64_t h = splitmix64(seed ^ 0x7461706972686f6cull);  // "tapirhol": keeps seed 0 nonzero
  for (int32_t id : content) h = splitmix64(h ^ static_cast<uint32_t>(id));
  return splitmix64(h ^ (static_cast<uint64_t>(content.size()) << 32));
}

Holdout::Holdout(uint64_t seed, double arch_frac, double test_frac)
    : seed_(seed), arch_frac_(arch_frac), test_frac_(test_frac) {}

Part Holdout::part_of(std::span<const int32_t> content) const {
  // The top 53 bits as a double in [0, 1): exact, so the part is the same on
  // every platform.
  const double u = static_cast<double>(content_hash(content, seed_) >> 11) * 0x1.0p-53;
  if (u < test_frac_) return Part::kTest;
  if (u < test_frac_ + (1.0 - test_frac_) * arch_frac_) return Part::kArch;
  return Part::kTrain;
}

}  // namespace tapir
