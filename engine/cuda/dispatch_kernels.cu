// CUDA twins of the small kernels in engine/cpu/dispatch_kernels.cpp (loops
// that used to sit inside autograd ops). Elementwise ones use one thread per
// element; the bias gradient gives one thread to a column, summing its rows
// in order, so it is deterministic and matches the CPU's order.
#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
__global__ void affine_backward_kernel(const T* d_out, int64_t n, T scale, T* d_a) {
  TAPIR_GRID_STRIDE(i, n) {
    d_a[i] += d_out[i] * scale;
  }
}

template <typename T>
__global__ void scale_inplace_kernel(T* x, int64_t n, T scale) {
  TAPIR_GRID_STRIDE(i, n) {
    x[i] *= scale;
  }
}

template <typename T>
__global__ void broadcast_rows_kernel(const T* row, int64_t rows, int64_t n, T* out) {
  TAPIR_GRID_STRIDE(i, rows * n) {
    out[i] = row[i % n];
  }
}

template <typename T>
__global__ void broadcast_rows_backward_kernel(const T* d_out, int64_t rows, int64_t n, T* d_row) {
  TAPIR_GRID_STRIDE(j, n) {
    T s = d_row[j];
    for (int64_t r = 0; r < rows; ++r) s += d_out[r * n + j];
    d_row[j] = s;
  }
}

// Integer atomics: the minimum does not depend on the order.
__global__ void first_out_of_range_kernel(const int32_t* ids, int64_t n, int64_t limit,
                                          unsigned long long* first) {
  TAPIR_GRID_STRIDE(i, n) {
    if (ids[i] < 0 || ids[i] >= limit) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

}  // namespace

template <typename T>
void affine_backward(const T* d_out, int64_t n, T scale, T* d_a) {
  if (n <= 0) return;
  affine_backward_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>(d_out, n, scale, d_a);
  TAPIR_LAUNCH_CHECK("affine_backward_kernel");
}

template <typename T>
void scale_inplace(T* x, int64_t n, T scale) {
  if (n <= 0) return;
  scale_inplace_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>(x, n, scale);
  TAPIR_LAUNCH_CHECK("scale_inplace_kernel");
}

template <typename T>
void broadcast_rows(const T* row, int64_t rows, int64_t n, T* out) {
  if (rows <= 0 || n <= 0) return;
  broadcast_rows_kernel<T><<<grid_for(rows * n), kThreads, 0, stream()>>>(row, rows, n, out);
  TAPIR_LAUNCH_CHECK("broadcast_rows_kernel");
}

template <typename T>
void broadcast_rows_backward(const T* d_out, int64_t rows, int64_t n, T* d_row) {
  if (rows <= 0 || n <= 0) return;
  broadcast_rows_backward_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>(d_out, rows, n, d_row);
  TAPIR_LAUNCH_CHECK("broadcast_rows_backward_kernel");
}

int64_t first_out_of_range(const int32_t* ids, int64_t n, int64_t limit) {
  if (n <= 0) return -1;
  Scratch<unsigned long long> first(1);
  TAPIR_CUDA_CHECK(cudaMemsetAsync(first.get(), 0xff, sizeof(unsigned long long), stream()));
  first_out_of_range_kernel<<<grid_for(n), kThreads, 0, stream()>>>(ids, n, limit, first.get());
  TAPIR_LAUNCH_CHECK("first_out_of_range_kernel");
  unsigned long long host = 0;
  copy_to_host(&host, first.get(), sizeof(host));
  return host == ~0ull ? -1 : static_cast<int64_t>(host);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(affine_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(scale_inplace);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows);
TAPIR_INSTANTIATE_FLOAT_KERNEL(broadcast_rows_backward);

}  // namespace tapir::cuda
