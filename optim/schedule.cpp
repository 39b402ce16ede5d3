#include "optim/schedule.h"

#include <cmath>
#include <numbers>

#include "base/error.h"

namespace tapir {

void Schedule::check(int64_t total_steps, const std::string& prefix) const {
  TAPIR_CHECK(warmup >= 0, prefix, "warmup must be non-negative, got ", warmup);
  TAPIR_CHECK(decay >= 0, prefix, "decay must be non-negative, got ", decay);
  TAPIR_CHECK(min_ratio >= 0 && min_ratio <= 1, prefix, "min-lr-ratio must be in [0, 1], got ",
              min_ratio);
  if (kind == Kind::constant) return;
  if (kind == Kind::trapezoid) {
    TAPIR_CHECK(decay >= 1, prefix, "schedule trapezoid needs ", prefix,
                "decay >= 1 (the steps of its final linear decay), got ", decay);
    TAPIR_CHECK(warmup + decay <= total_steps, prefix, "warmup (", warmup, ") + ", prefix,
                "decay (", decay, ") must fit in the ", total_steps, " steps of the schedule");
    return;
  }
  // Cosine and linear with total <= warmup fail at the first step past the
  // warmup (lr_at), so a run that ends within its warmup still runs.
  TAPIR_CHECK(decay == 0, prefix, "decay applies to the trapezoid schedule only, got ", decay,
              " with ", prefix, "schedule ", schedule_kind_name(kind));
}

double Schedule::lr_at(int64_t step) const {
  TAPIR_CHECK(step >= 0, "schedule step must be >= 0, got ", step);
  TAPIR_CHECK(warmup >= 0, "schedule warmup must be >= 0, got ", warmup);
  if (step < warmup) return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  if (kind == Kind::constant) return base_lr;
  if (kind == Kind::trapezoid) check(total, "");
  TAPIR_CHECK(total > warmup, schedule_kind_name(kind), " schedule needs total steps (", total,
              ") greater than warmup (", warmup, ")");
  const double lo = min_ratio * base_lr;
  if (step >= total) return lo;
  if (kind == Kind::trapezoid) {
    if (step < total - decay) return base_lr;
    return lo + (base_lr - lo) * static_cast<double>(total - step) / static_cast<double>(decay);
  }
  const double p = static_cast<double>(step - warmup) / static_cast<double>(total - warmup);
  if (kind == Kind::cosine)
    return lo + (base_lr - lo) * 0.5 * (1.0 + std::cos(std::numbers::pi * p));
  return lo + (base_lr - lo) * (1.0 - p);
}

}  // namespace tapir
