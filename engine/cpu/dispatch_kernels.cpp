// Small CPU kernels that used to be loops inside autograd ops; as kernels
// they have CUDA twins (engine/cuda/dispatch_kernels.cu). Serial loops: they
// are cheap next to the GEMMs around them, and the order of the bias sums is
// fixed.
#include "engine/kernels.h"

namespace tapir::cpu {

template <typename T>
void affine_backward(const T* d_out, int64_t n, T scale, T* d_a) {
  for (int64_t i = 0; i < n; ++i) d_a[i] += d_out[i] * scale;
}

template <typename T>
void scale_inplace(T* x, int64_t n, T scale) {
  for (int64_t i = 0; i < n; ++i) x[i] *= scale;
}

template <typename T>
void broadcast_rows(const T* row, int64_t rows, int64_t n, T* out) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) out[r * n + j] = row[j];
}

template <typename T>
void broadcast_rows_backward(const T* d_out, int64_t rows, int64_t n, T* d_row) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) d_row[j] += d_out[r * n + j];
}

int64_t first_out_of_range(const int32_t* ids, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i)
    if (ids[i] < 0 || ids[i] >= limit) return i;
  return -1;
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(scale_inplace);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows_backward);

}  // namespace tapir::cpu
