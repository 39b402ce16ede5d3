#include "optim/schedule.h"

#include <cmath>
#include <numbers>

#include "base/error.h"

namespace tapir {

double Schedule::lr_at(int64_t step) const {
  TAPIR_CHECK(step >= 0, "schedule step must be >= 0, got ", step);
  TAPIR_CHECK(warmup >= 0, "schedule warmup must be >= 0, got ", warmup);
  if (step < warmup) return base_lr * static_cast<double>(step + 1) / static_cast<double>(warmup);
  if (kind == Kind::constant) return base_lr;
  TAPIR_CHECK(total > warmup, schedule_kind_name(kind), " schedule needs total steps (", total,
              ") greater than warmup (", warmup, ")");
  const double lo = min_ratio * base_lr;
  if (step >= total) return lo;
  const double p = static_cast<double>(step - warmup) / static_cast<double>(total - warmup);
  if (kind == Kind::cosine)
    return lo + (base_lr - lo) * 0.5 * (1.0 + std::cos(std::numbers::pi * p));
  return lo + (base_lr - lo) * (1.0 - p);
}

}  // namespace tapir
