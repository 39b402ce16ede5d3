// Statistics of `tapir compare` on synthetic curves.
#include <doctest/doctest.h>

#include <cmath>

#include "lab/stats.h"

using namespace tapir;

namespace {
Curve curve(std::initializer_list<double> values, int64_t every = 100) {
  Curve c;
  int64_t step = every;
  for (double v : values) {
    c.push_back({step, v, double(step) / 10});
    step += every;
  }
  return c;
}
}  // namespace

TEST_CASE("steps to threshold is the first evaluation at or above it") {
  CHECK(steps_to_threshold(curve({0.1, 0.5, 0.99, 0.98, 1.0}), 0.99) == 300);
  CHECK(seconds_to_threshold(curve({0.1, 0.5, 0.99}), 0.99) == 30);
  CHECK(std::isinf(steps_to_threshold(curve({0.1, 0.98, 0.989}), 0.99)));
  CHECK(std::isinf(steps_to_threshold(Curve{}, 0.5)));
}

TEST_CASE("quantiles interpolate linearly and keep never-reached seeds visible") {
  CHECK(quantile({300, 100, 200, 400, 500}, 0.5) == 300);
  CHECK(quantile({100, 200, 300, 400}, 0.5) == 250);
  CHECK(quantile({100, 200, 300, 400}, 0.25) == doctest::Approx(175));
  CHECK(quantile({100, 200, 300, 400}, 0.75) == doctest::Approx(325));
  // Two of five never reached: the median is still a real number...
  Spread s = spread({100, 200, 300, kNever, kNever});
  CHECK(s.median == 300);
  CHECK(s.never == 2);
  CHECK(s.count == 5);
  CHECK(std::isinf(s.q3));
  CHECK(s.q1 == 200);
  // ...three of five: the median is "never".
  CHECK(std::isinf(spread({100, kNever, kNever, 300, kNever}).median));
  CHECK(std::isnan(quantile({}, 0.5)));
  CHECK(format_steps(kNever) == "never");
  CHECK(format_steps(1250) == "1250");
}

TEST_CASE("bands aggregate curves step by step") {
  Band b = band({curve({0.1, 0.5, 0.9}), curve({0.3, 0.7}), curve({0.2, 0.6, 1.0})});
  REQUIRE(b.steps.size() == 3);
  CHECK(b.median[0] == doctest::Approx(0.2));
  CHECK(b.min[1] == doctest::Approx(0.5));
  CHECK(b.max[1] == doctest::Approx(0.7));
  CHECK(b.median[2] == doctest::Approx(0.95));  // two curves reach step 300
}
