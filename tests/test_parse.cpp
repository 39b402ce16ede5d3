// Strict numbers from text (base/parse.h): the whole text is the number,
// and each error names where the text came from and shows it escaped.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "base/error.h"
#include "base/parse.h"
#include "tests/test_support.h"

using namespace tapir;
using test_support::error_of;

TEST_CASE("parse_int64: the whole text, in range, or one line naming what and the text") {
  CHECK(parse_int64("120", "step") == 120);
  CHECK(parse_int64("+7", "step") == 7);
  CHECK(parse_int64("-3", "offset") == -3);
  CHECK(parse_int64("9223372036854775807", "n") == std::numeric_limits<int64_t>::max());
  const std::string what = "arch.safetensors: metadata 'layers'";
  CHECK(error_of([&] { parse_int64("12abc", what, 0); }) ==
        what + ": expected a non-negative integer, got '12abc'");
  CHECK(error_of([&] { parse_int64("-1", what, 0); }) ==
        what + ": expected a non-negative integer, got '-1'");
  CHECK(error_of([&] { parse_int64("300", "layers", 0, 256); }) ==
        "layers: expected an integer in [0, 256], got '300'");
  CHECK(error_of([&] { parse_int64("9223372036854775808", "n"); }) ==
        "n: expected an integer, got '9223372036854775808' (out of range)");
  // What std::stoll took: spaces, a trailing part, a decimal point, an empty text.
  for (const char* bad : {" 1", "1 ", "1.0", "", "+", "+-1", "0x10"}) {
    CAPTURE(bad);
    CHECK(error_of([&] { parse_int64(bad, "n"); }) ==
          std::string("n: expected an integer, got '") + bad + "'");
  }
  // A control byte is escaped, so the message stays one line.
  CHECK(error_of([&] { parse_int64("1\n2", "n"); }) == "n: expected an integer, got '1\\x0a2'");
}

TEST_CASE("parse_double: finite decimals unless non-finite values are asked for") {
  CHECK(parse_double("1e-3", "lr") == 1e-3);
  CHECK(parse_double("+.5", "x") == 0.5);
  CHECK(parse_double("-0.25", "x") == -0.25);
  CHECK(parse_double("3", "x") == 3.0);
  CHECK(error_of([&] { parse_double("inf", "wall_s"); }) ==
        "wall_s: expected a finite number, got 'inf'");
  CHECK(error_of([&] { parse_double("nan", "wall_s"); }) ==
        "wall_s: expected a finite number, got 'nan'");
  CHECK(std::isinf(parse_double("-inf", "x", NonFinite::allow)));
  CHECK(std::isnan(parse_double("nan", "x", NonFinite::allow)));
  CHECK(error_of([&] { parse_double("1e999", "x", NonFinite::allow); }) ==
        "x: expected a number, got '1e999' (out of range)");
  for (const char* bad : {"1.5 ", " 1.5", "1,5", "0x1p3", "", "abc", "+inf", "1e"}) {
    CAPTURE(bad);
    CHECK(error_of([&] { parse_double(bad, "x"); }) ==
          std::string("x: expected a number, got '") + bad + "'");
  }
}
