// Learning-rate schedules: linear warmup, then constant, cosine or linear
// decay. Pure functions of the step number, so a resumed run continues the
// same curve from its saved step.
//
// With step s counted from 0, W = warmup, T = total, lo = min_ratio * base_lr:
//   s < W:               lr = base_lr * (s + 1) / W      (reaches base_lr at s = W - 1)
//   constant, s >= W:    lr = base_lr
//   cosine, W <= s < T:  lr = lo + (base_lr - lo) * (1 + cos(pi * p)) / 2
//   linear, W <= s < T:  lr = lo + (base_lr - lo) * (1 - p)
//                        where p = (s - W) / (T - W), so lr = base_lr at s = W
//   cosine/linear, s >= T: lr = lo
// Cosine and linear need T > W; the constant schedule ignores T and min_ratio.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "base/names.h"

namespace tapir {

struct Schedule {
  enum class Kind { constant, cosine, linear };
  Kind kind = Kind::constant;
  double base_lr = 1e-3;
  int64_t warmup = 0;      // steps of linear warmup
  int64_t total = 0;       // end of the decay (cosine and linear)
  double min_ratio = 0.0;  // final lr as a fraction of base_lr

  // The learning rate of 0-based step `step`; fails on a negative step or a
  // decaying schedule with total <= warmup.
  double lr_at(int64_t step) const;
};

template <>
struct Names<Schedule::Kind> {
  static constexpr const char* what = "schedule";
  static constexpr std::pair<Schedule::Kind, const char*> table[] = {
      {Schedule::Kind::constant, "constant"},
      {Schedule::Kind::cosine, "cosine"},
      {Schedule::Kind::linear, "linear"}};
};

// "constant", "cosine" or "linear"; anything else fails naming the valid kinds.
inline Schedule::Kind parse_schedule_kind(const std::string& name) {
  return parse_name<Schedule::Kind>(name);
}
// The name parse_schedule_kind reads back.
inline const char* schedule_kind_name(Schedule::Kind kind) {
  return name_of(kind);
}

}  // namespace tapir
