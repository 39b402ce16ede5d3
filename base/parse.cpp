// Strict numbers from text (base/parse.h), on std::from_chars.
#include "base/parse.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

namespace {

// The text without one leading '+' before a digit or '.', which from_chars
// does not take.
std::string_view without_plus(std::string_view text) {
  if (text.size() >= 2 && text[0] == '+' &&
      (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.'))
    return text.substr(1);
  return text;
}

[[noreturn]] void refuse(std::string_view text, std::string_view what, const std::string& expected,
                         std::errc ec) {
  fail(what, ": expected ", expected, ", got ", tapir::quoted(text),
       ec == std::errc::result_out_of_range ? " (out of range)" : "");
}

}  // namespace

int64_t parse_int64(std::string_view text, std::string_view what, int64_t lo, int64_t hi) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  std::string expected = "an integer";
  if (lo == 0 && hi == kMax)
    expected = "a non-negative integer";
  else if (lo != kMin || hi != kMax)
    expected = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const std::string_view digits = without_plus(text);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) refuse(text, what, expected, ec);
  if (value < lo || value > hi) refuse(text, what, expected, std::errc());
  return value;
}

double parse_double(std::string_view text, std::string_view what, NonFinite non_finite) {
  const std::string_view digits = without_plus(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) refuse(text, what, "a number", ec);
  if (non_finite == NonFinite::reject && !std::isfinite(value))
    refuse(text, what, "a finite number", std::errc());
  return value;
}

}  // namespace tapir
