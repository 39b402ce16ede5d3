// A backward kernel's store into an input's gradient: added to it, or, for
// a buffer the arena has just handed out (autograd/tape.h grad_for_write),
// written without reading its old contents. One loop on each side of the
// choice, so each vectorises.
#pragma once

#include <cstdint>

namespace tapir::cpu {

// d_x[i] += d(i) for i in [i0, i1), or d_x[i] = d(i) when not accumulating.
// d_x overlaps nothing that d reads.
template <typename T, typename D>
inline void store_grad(bool accumulate, int64_t i0, int64_t i1, T* __restrict d_x, D d) {
  if (accumulate)
    for (int64_t i = i0; i < i1; ++i) d_x[i] += d(i);
  else
    for (int64_t i = i0; i < i1; ++i) d_x[i] = d(i);
}

}  // namespace tapir::cpu
