// Row reductions that vectorise with bits fixed by the code alone. A float
// sum written as one running total is a chain the compiler may not reorder
// (that would change its rounding), so it runs one add at a time, each
// waiting on the last: a LayerNorm row of 64 values spent most of its time
// there. Here element j goes to lane j mod kLanes, the lanes run side by
// side (one vector register), and at the end they are added in lane order.
// The order of every addition is written out, so the bits depend on n and
// the build's target only: not on the thread, the alignment or the vector
// width the machine has.
#pragma once

#include <cstdint>

namespace tapir::cpu {

inline constexpr int64_t kLanes = 8;

// The sum of term(j) for j < n, in kLanes running sums.
template <typename T, typename Term>
inline T lane_sum(int64_t n, Term term) {
  if (n < kLanes) {  // fewer terms than lanes: one running sum, in order
    T total = 0;
    for (int64_t j = 0; j < n; ++j) total += term(j);
    return total;
  }
  T lane[kLanes] = {};
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) lane[l] += term(c + l);
  for (; c < n; ++c) lane[c % kLanes] += term(c);
  T total = 0;
  for (int64_t l = 0; l < kLanes; ++l) total += lane[l];
  return total;
}

// x[0] + ... + x[n-1].
template <typename T>
inline T lane_sum(const T* x, int64_t n) {
  return lane_sum<T>(n, [x](int64_t j) { return x[j]; });
}

// a[0] b[0] + ... + a[n-1] b[n-1].
template <typename T>
inline T lane_dot(const T* a, const T* b, int64_t n) {
  return lane_sum<T>(n, [a, b](int64_t j) { return a[j] * b[j]; });
}

}  // namespace tapir::cpu
