// Training tests assert a property of several seeds, not of one trajectory.
// A run's end point moves with the compiler target, the BLAS kernel and the
// thread count as much as with its seed (docs/build.md), so a threshold that
// one seed meets in one build can be missed in another; "at least 2 of 3
// seeds" holds wherever the setting really learns, and still fails when
// something is broken (then every seed fails).
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <ostream>
#include <sstream>
#include <string>

namespace tapir::test {

struct SeedTrials {
  int passed = 0;
  std::string log;  // one line per seed tried: its figures and the verdict
};

// Runs trial(seed, out) for seeds 0, 1, ... up to `of` seeds and counts
// those that return true; stops once `need` have passed or can no longer
// pass. The trial writes its figures to `out`.
inline SeedTrials seeds_passing(
    int need, int of, const std::function<bool(uint64_t seed, std::ostream& out)>& trial) {
  SeedTrials result;
  for (int i = 0; i < of && result.passed < need && result.passed + (of - i) >= need; ++i) {
    const uint64_t seed = static_cast<uint64_t>(i);
    std::ostringstream out;
    const bool ok = trial(seed, out);
    if (ok) ++result.passed;
    const std::string line =
        "seed " + std::to_string(seed) + ": " + out.str() + (ok ? " (pass)" : " (FAIL)");
    result.log += line + "\n";
  }
  return result;
}

}  // namespace tapir::test

// At least `need` of `of` seeds pass the trial (a lambda, passed last so that
// commas in its body need no parentheses); every seed's line is shown on
// failure, and with -s.
#define CHECK_SEEDS(need, of, ...)                                                    \
  do {                                                                                \
    const ::tapir::test::SeedTrials seeds_ =                                          \
        ::tapir::test::seeds_passing((need), (of), __VA_ARGS__);                      \
    INFO("seeds passing: " << seeds_.passed << " of " << (of) << "\n" << seeds_.log); \
    CHECK(seeds_.passed >= (need));                                                   \
  } while (false)
