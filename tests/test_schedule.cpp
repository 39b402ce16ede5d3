// Tests of optim/schedule: learning rates at chosen steps of every kind,
// worked out by hand, including the warmup boundaries and steps past total.
#include <doctest/doctest.h>

#include "base/error.h"
#include "optim/schedule.h"

using tapir::Schedule;

namespace {
Schedule make(Schedule::Kind kind) {
  Schedule s;
  s.kind = kind;
  s.base_lr = 1.0;
  s.warmup = 4;
  s.total = 12;
  s.min_ratio = 0.1;
  return s;
}
}  // namespace

TEST_CASE("warmup rises linearly to base_lr at step warmup - 1") {
  for (auto kind : {Schedule::Kind::constant, Schedule::Kind::cosine, Schedule::Kind::linear}) {
    const Schedule s = make(kind);
    CHECK(s.lr_at(0) == doctest::Approx(0.25));  // 1.0 * 1/4
    CHECK(s.lr_at(1) == doctest::Approx(0.5));
    CHECK(s.lr_at(2) == doctest::Approx(0.75));
    CHECK(s.lr_at(3) == doctest::Approx(1.0));
    CHECK(s.lr_at(4) == doctest::Approx(1.0));  // first step after warmup: p = 0
  }
}

TEST_CASE("constant schedule holds base_lr after warmup") {
  const Schedule s = make(Schedule::Kind::constant);
  CHECK(s.lr_at(11) == 1.0);
  CHECK(s.lr_at(12) == 1.0);
  CHECK(s.lr_at(1000) == 1.0);
  Schedule no_warmup;
  no_warmup.base_lr = 3e-4;
  CHECK(no_warmup.lr_at(0) == 3e-4);
}

TEST_CASE("cosine schedule decays from base_lr to min_ratio * base_lr over [warmup, total)") {
  const Schedule s = make(Schedule::Kind::cosine);
  // p = (step - 4) / 8; lr = 0.1 + 0.9 * (1 + cos(pi p)) / 2
  CHECK(s.lr_at(6) == doctest::Approx(0.8681981));   // p = 1/4: 0.1 + 0.9 * 0.8535534
  CHECK(s.lr_at(8) == doctest::Approx(0.55));        // p = 1/2: 0.1 + 0.9 * 0.5
  CHECK(s.lr_at(11) == doctest::Approx(0.1342542));  // p = 7/8: 0.1 + 0.9 * 0.0380602
  CHECK(s.lr_at(12) == doctest::Approx(0.1));        // total: held at the minimum
  CHECK(s.lr_at(1000) == doctest::Approx(0.1));

  Schedule to_zero;  // no warmup, min_ratio 0
  to_zero.kind = Schedule::Kind::cosine;
  to_zero.base_lr = 3e-4;
  to_zero.total = 10;
  CHECK(to_zero.lr_at(0) == doctest::Approx(3e-4));
  CHECK(to_zero.lr_at(5) == doctest::Approx(1.5e-4));  // cos(pi/2) = 0
  CHECK(to_zero.lr_at(10) == 0.0);
}

TEST_CASE("linear schedule decays from base_lr to min_ratio * base_lr over [warmup, total)") {
  const Schedule s = make(Schedule::Kind::linear);
  // lr = 0.1 + 0.9 * (1 - p), p = (step - 4) / 8
  CHECK(s.lr_at(6) == doctest::Approx(0.775));    // 1 - 0.9/4
  CHECK(s.lr_at(8) == doctest::Approx(0.55));     // 1 - 0.9/2
  CHECK(s.lr_at(11) == doctest::Approx(0.2125));  // 1 - 0.9 * 7/8
  CHECK(s.lr_at(12) == doctest::Approx(0.1));
  CHECK(s.lr_at(50) == doctest::Approx(0.1));
}

TEST_CASE("trapezoid schedule: warmup, constant, then linear decay over the last decay steps") {
  Schedule s = make(Schedule::Kind::trapezoid);
  s.decay = 4;  // constant over [4, 8), decay over [8, 12)
  CHECK(s.lr_at(0) == doctest::Approx(0.25));
  CHECK(s.lr_at(3) == doctest::Approx(1.0));
  CHECK(s.lr_at(4) == 1.0);
  CHECK(s.lr_at(7) == 1.0);
  CHECK(s.lr_at(8) == doctest::Approx(1.0));     // 0.1 + 0.9 * 4/4
  CHECK(s.lr_at(9) == doctest::Approx(0.775));   // 0.1 + 0.9 * 3/4
  CHECK(s.lr_at(11) == doctest::Approx(0.325));  // 0.1 + 0.9 * 1/4
  CHECK(s.lr_at(12) == doctest::Approx(0.1));
  CHECK(s.lr_at(40) == doctest::Approx(0.1));

  // The authors' weights and functions: warmup 2000, constant to 10000,
  // linear to 0 at 20000 (their factor (step + 1) / 2000, then 1, then
  // (20000 - step) / 10000).
  Schedule authors;
  authors.kind = Schedule::Kind::trapezoid;
  authors.base_lr = 0.1;
  authors.warmup = 2000;
  authors.decay = 10000;
  authors.total = 20000;
  CHECK(authors.lr_at(0) == doctest::Approx(0.1 / 2000));
  CHECK(authors.lr_at(1999) == doctest::Approx(0.1));
  CHECK(authors.lr_at(9999) == 0.1);
  CHECK(authors.lr_at(10000) == doctest::Approx(0.1));
  CHECK(authors.lr_at(15000) == doctest::Approx(0.05));
  CHECK(authors.lr_at(19999) == doctest::Approx(0.1 / 10000));
  CHECK(authors.lr_at(20000) == 0.0);
  CHECK_NOTHROW(authors.check(20000, ""));
}

TEST_CASE("Schedule::check refuses what a schedule cannot do, naming the flags") {
  Schedule s = make(Schedule::Kind::trapezoid);
  CHECK_THROWS_WITH_AS(s.check(12, "arch-"),
                       "arch-schedule trapezoid needs arch-decay >= 1 (the steps of its final "
                       "linear decay), got 0",
                       tapir::Error);
  s.decay = 9;  // 4 + 9 > 12
  CHECK_THROWS_WITH_AS(s.check(12, ""),
                       "warmup (4) + decay (9) must fit in the 12 steps of the "
                       "schedule",
                       tapir::Error);
  s.decay = 8;
  CHECK_NOTHROW(s.check(12, ""));  // no constant part: allowed
  s.warmup = -1;
  CHECK_THROWS_WITH_AS(s.check(12, "arch-"), "arch-warmup must be non-negative, got -1",
                       tapir::Error);
  Schedule cosine = make(Schedule::Kind::cosine);
  cosine.decay = 2;
  CHECK_THROWS_WITH_AS(cosine.check(12, ""),
                       "decay applies to the trapezoid schedule only, got 2 with schedule cosine",
                       tapir::Error);
  cosine.decay = -1;
  CHECK_THROWS_WITH_AS(cosine.check(12, ""), "decay must be non-negative, got -1", tapir::Error);
}

TEST_CASE("schedule names and errors") {
  CHECK(tapir::parse_schedule_kind("cosine") == Schedule::Kind::cosine);
  for (auto kind : {Schedule::Kind::constant, Schedule::Kind::cosine, Schedule::Kind::linear,
                    Schedule::Kind::trapezoid})
    CHECK(tapir::parse_schedule_kind(tapir::schedule_kind_name(kind)) == kind);
  CHECK_THROWS_WITH_AS(tapir::parse_schedule_kind("step"),
                       "unknown schedule 'step' (known: constant, cosine, linear, trapezoid)",
                       tapir::Error);
  Schedule s = make(Schedule::Kind::cosine);
  s.total = 4;
  CHECK_THROWS_WITH_AS(s.lr_at(5), "cosine schedule needs total steps (4) greater than warmup (4)",
                       tapir::Error);
  CHECK(s.lr_at(2) == doctest::Approx(0.75));  // warmup itself is still defined
  CHECK_THROWS_AS(make(Schedule::Kind::constant).lr_at(-1), tapir::Error);
}
