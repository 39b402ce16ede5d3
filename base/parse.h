// Strict numbers from text that came from outside the program: a file's
// metadata, a task option, a flag's value. Unlike std::stoll and std::stod,
// the whole text must be the number (no spaces, nothing after it; a leading
// '+' is allowed), and an error is one tapir::Error line that starts with
// `what`, which should say where the text came from, and shows the text
// escaped:
//   parse_int64(value, path + ": metadata 'layers'", 0)
//   -> "arch.safetensors: metadata 'layers': expected a non-negative integer, got '12abc'"
// Sits at the bottom of the stack with base/error.h.
#pragma once
#include <cstdint>
#include <limits>
#include <string_view>

namespace tapir {

// A decimal integer in [lo, hi]; the message names the range unless it is
// the whole of int64 ("an integer") or [0, int64 max] ("a non-negative integer").
int64_t parse_int64(std::string_view text, std::string_view what,
                    int64_t lo = std::numeric_limits<int64_t>::min(),
                    int64_t hi = std::numeric_limits<int64_t>::max());

// Whether parse_double accepts "inf", "-inf" and "nan".
enum class NonFinite { reject, allow };

// A decimal number such as 3, -0.25 or 1e-3 (no hex), finite unless
// non_finite is allow; a value beyond the range of double is refused.
double parse_double(std::string_view text, std::string_view what,
                    NonFinite non_finite = NonFinite::reject);

}  // namespace tapir
