// The one exception type tapir throws for bad input and broken invariants.
// Its message is a single line naming what was wrong and what was expected;
// the command line prints it and exits non-zero.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tapir {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

namespace detail {
template <typename... Args>
std::string concat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}
}  // namespace detail

// fail("shape ", a, " does not match ", b): throws tapir::Error.
template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  throw Error(detail::concat(args...));
}

#define TAPIR_CHECK(cond, ...)               \
  do {                                       \
    if (!(cond)) ::tapir::fail(__VA_ARGS__); \
  } while (0)

}  // namespace tapir
