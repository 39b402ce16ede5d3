// The monotonic clock in seconds, for wall-clock counters (training runs,
// searches, progress lines). Only differences between two readings mean
// anything.
#pragma once
#include <chrono>

namespace tapir {

inline double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace tapir
