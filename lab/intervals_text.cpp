// The words and figures of lab/intervals.h's verdicts, as the tables and
// verdict lines print them.
#include <cstdio>

#include "lab/intervals.h"

namespace tapir {

std::string format_difference(const Interval& difference) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.4f [%+.4f, %+.4f]", difference.point, difference.lo,
                difference.hi);
  return buf;
}

const char* difference_verdict_word(DifferenceVerdict verdict) {
  switch (verdict) {
    case DifferenceVerdict::higher:
      return "higher";
    case DifferenceVerdict::lower:
      return "lower";
    case DifferenceVerdict::inconclusive:
      break;
  }
  return "inconclusive";
}

const char* spread_verdict_word(SpreadVerdict verdict) {
  switch (verdict) {
    case SpreadVerdict::narrower:
      return "narrower";
    case SpreadVerdict::wider:
      return "wider";
    case SpreadVerdict::inconclusive:
      break;
  }
  return "inconclusive";
}

const char* ratio_verdict_word(RatioVerdict verdict) {
  switch (verdict) {
    case RatioVerdict::faster:
      return "faster";
    case RatioVerdict::slower:
      return "slower";
    case RatioVerdict::inconclusive:
      break;
  }
  return "inconclusive";
}

std::string format_ratio(const Interval& ratio) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2fx [%.2f, %.2f]", ratio.point, ratio.lo, ratio.hi);
  return buf;
}

}  // namespace tapir
