// Learning-rate schedules: linear warmup, then constant, cosine or linear
// decay, or the trapezoid (constant, then a linear decay over the last D
// steps). Pure functions of the step number, so a resumed run continues the
// same curve from its saved step.
//
// With step s counted from 0, W = warmup, T = total, lo = min_ratio * base_lr:
//   s < W:               lr = base_lr * (s + 1) / W      (reaches base_lr at s = W - 1)
//   constant, s >= W:    lr = base_lr
//   cosine, W <= s < T:  lr = lo + (base_lr - lo) * (1 + cos(pi * p)) / 2
//   linear, W <= s < T:  lr = lo + (base_lr - lo) * (1 - p)
//                        where p = (s - W) / (T - W), so lr = base_lr at s = W
//   trapezoid, W <= s < T - D: lr = base_lr
//   trapezoid, T - D <= s < T: lr = lo + (base_lr - lo) * (T - s) / D
//                        (D = decay; the authors' "trap": base_lr at s = T - D,
//                        base_lr / D at s = T - 1 when lo = 0)
//   cosine/linear/trapezoid, s >= T: lr = lo
// Cosine and linear need T > W and D = 0; the trapezoid needs D >= 1 and
// W + D <= T; the constant schedule ignores T, D and min_ratio.
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "base/names.h"

namespace tapir {

struct Schedule {
  enum class Kind { constant, cosine, linear, trapezoid };
  Kind kind = Kind::constant;
  double base_lr = 1e-3;
  int64_t warmup = 0;      // steps of linear warmup
  int64_t total = 0;       // end of the decay (cosine and linear)
  double min_ratio = 0.0;  // final lr as a fraction of base_lr
  int64_t decay = 0;       // trapezoid: steps of linear decay that end at total

  // Fails unless the schedule is usable with `total_steps` steps: warmup and
  // decay not negative, min_ratio in [0, 1], decay only for the trapezoid,
  // and the trapezoid's needs above (cosine's and linear's T > W is checked by lr_at). `prefix`
  // starts the flag names in the message ("" or "arch-").
  void check(int64_t total_steps, const std::string& prefix) const;

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
      {Schedule::Kind::linear, "linear"},
      {Schedule::Kind::trapezoid, "trapezoid"}};
};

// "constant", "cosine", "linear" or "trapezoid"; anything else fails naming them.
inline Schedule::Kind parse_schedule_kind(const std::string& name) {
  return parse_name<Schedule::Kind>(name);
}
// The name parse_schedule_kind reads back.
inline const char* schedule_kind_name(Schedule::Kind kind) {
  return name_of(kind);
}

}  // namespace tapir
