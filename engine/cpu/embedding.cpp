// Embedding lookup (gather rows of a table) and its backward (scatter-add).
#include <cstring>

#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

template <typename T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t C, T* out) {
  parallel_for(n, 64, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      std::memcpy(out + i * C, table + static_cast<int64_t>(ids[i]) * C, C * sizeof(T));
  });
}

// Rows are added in index order, so a row hit by several ids always sums its
// contributions in the same order: deterministic for any thread count.
template <typename T>
void embedding_backward(const int32_t* ids, const T* d_out, int64_t n, int64_t C, T* d_table) {
  for (int64_t i = 0; i < n; ++i) {
    T* row = d_table + static_cast<int64_t>(ids[i]) * C;
    const T* g = d_out + i * C;
    for (int64_t c = 0; c < C; ++c) row[c] += g[c];
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_backward);

}  // namespace tapir::cpu
