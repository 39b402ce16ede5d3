// Layout kernels (transpose of the last two axes, block copies along an axis,
// masked fill) and the embedding gather and scatter-add. One thread per
// element, except the scatter-add, which sorts the ids (keys id * n + i, all
// distinct, so the order is unique) and lets the first position of each id's
// run add that id's rows in index order: the CPU's order, with no atomics.
#include <cub/device/device_radix_sort.cuh>

#include "engine/cuda/common.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kThreads)
    transpose_kernel(const T* x, int64_t batch, int64_t R, int64_t C, T* out, bool accumulate) {
  // Indexed by the output (b, c, r), so writes are coalesced.
  TAPIR_GRID_STRIDE(idx, batch * R * C) {
    const int64_t r = idx % R, c = (idx / R) % C, b = idx / (R * C);
    const T v = x[(b * R + r) * C + c];
    if (accumulate)
      out[idx] += v;
    else
      out[idx] = v;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    copy_block_kernel(const T* src, int64_t outer, int64_t n_src, int64_t src_offset, T* dst,
                      int64_t n_dst, int64_t dst_offset, int64_t n_copy, int64_t inner,
                      bool accumulate) {
  const int64_t len = n_copy * inner;
  TAPIR_GRID_STRIDE(idx, outer * len) {
    const int64_t o = idx / len, i = idx % len;
    const T v = src[(o * n_src + src_offset) * inner + i];
    T& d = dst[(o * n_dst + dst_offset) * inner + i];
    if (accumulate)
      d += v;
    else
      d = v;
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    masked_fill_forward_kernel(const T* x, int64_t n, const int32_t* mask, int64_t n_mask, T value,
                               T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    out[i] = mask[i % n_mask] ? value : x[i];
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    masked_fill_backward_kernel(const T* d_out, int64_t n, const int32_t* mask, int64_t n_mask,
                                T* d_x) {
  TAPIR_GRID_STRIDE(i, n) {
    if (!mask[i % n_mask]) d_x[i] += d_out[i];
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    embedding_forward_kernel(const T* table, const int32_t* ids, int64_t n, int64_t C, T* out) {
  TAPIR_GRID_STRIDE(idx, n * C) {
    const int64_t i = idx / C, c = idx % C;
    out[idx] = table[static_cast<int64_t>(ids[i]) * C + c];
  }
}

__global__ void __launch_bounds__(kThreads)
    embedding_keys_kernel(const int32_t* ids, int64_t n, unsigned long long* keys) {
  TAPIR_GRID_STRIDE(i, n) {
    keys[i] = static_cast<unsigned long long>(static_cast<uint32_t>(ids[i])) *
                  static_cast<unsigned long long>(n) +
              static_cast<unsigned long long>(i);
  }
}

// Blocks loop over sorted positions p; where p starts a run of one id, the
// block adds the run's rows of d_out, in index order, to that id's row.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    embedding_runs_kernel(const unsigned long long* sorted, const T* d_out, int64_t n, int64_t C,
                          T* d_table) {
  const unsigned long long un = static_cast<unsigned long long>(n);
  for (int64_t p = blockIdx.x; p < n; p += gridDim.x) {
    const unsigned long long id = sorted[p] / un;
    if (p > 0 && sorted[p - 1] / un == id) continue;
    int64_t end = p + 1;
    while (end < n && sorted[end] / un == id) ++end;
    T* row = d_table + static_cast<int64_t>(id) * C;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
      T acc = row[c];
      for (int64_t q = p; q < end; ++q) acc += d_out[static_cast<int64_t>(sorted[q] % un) * C + c];
      row[c] = acc;
    }
  }
}

}  // namespace

template <typename T>
void transpose_last2(const T* x, int64_t batch, int64_t R, int64_t C, T* out, bool accumulate) {
  const int64_t total = batch * R * C;
  if (total <= 0) return;
  transpose_kernel<<<grid_for(total), kThreads, 0, stream()>>>(x, batch, R, C, out, accumulate);
  TAPIR_LAUNCH_CHECK("transpose_kernel");
}

template <typename T>
void copy_axis_block(const T* src, int64_t outer, int64_t n_src, int64_t src_offset, T* dst,
                     int64_t n_dst, int64_t dst_offset, int64_t n_copy, int64_t inner,
                     bool accumulate) {
  const int64_t total = outer * n_copy * inner;
  if (total <= 0) return;
  copy_block_kernel<<<grid_for(total), kThreads, 0, stream()>>>(
      src, outer, n_src, src_offset, dst, n_dst, dst_offset, n_copy, inner, accumulate);
  TAPIR_LAUNCH_CHECK("copy_block_kernel");
}

template <typename T>
void masked_fill_forward(const T* x, int64_t n, const int32_t* mask, int64_t n_mask, T value,
                         T* out) {
  if (n <= 0 || n_mask <= 0) return;
  masked_fill_forward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(x, n, mask, n_mask, value,
                                                                     out);
  TAPIR_LAUNCH_CHECK("masked_fill_forward_kernel");
}

template <typename T>
void masked_fill_backward(const T* d_out, int64_t n, const int32_t* mask, int64_t n_mask, T* d_x) {
  if (n <= 0 || n_mask <= 0 || !d_x) return;
  masked_fill_backward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(d_out, n, mask, n_mask, d_x);
  TAPIR_LAUNCH_CHECK("masked_fill_backward_kernel");
}

template <typename T>
void embedding_forward(const T* table, const int32_t* ids, int64_t n, int64_t C, T* out) {
  if (n <= 0 || C <= 0) return;
  embedding_forward_kernel<<<grid_for(n * C), kThreads, 0, stream()>>>(table, ids, n, C, out);
  TAPIR_LAUNCH_CHECK("embedding_forward_kernel");
}

template <typename T>
void embedding_backward(const int32_t* ids, const T* d_out, int64_t n, int64_t C, T* d_table) {
  if (n <= 0 || C <= 0 || !d_table) return;
  Scratch<unsigned long long> keys(n), sorted(n);
  embedding_keys_kernel<<<grid_for(n), kThreads, 0, stream()>>>(ids, n, keys.get());
  TAPIR_LAUNCH_CHECK("embedding_keys_kernel");
  size_t temp_bytes = 0;
  TAPIR_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys.get(), sorted.get(), n,
                                                  0, 64, stream()));
  Scratch<unsigned char> temp(static_cast<int64_t>(temp_bytes));
  TAPIR_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.get(), temp_bytes, keys.get(), sorted.get(),
                                                  n, 0, 64, stream()));
  embedding_runs_kernel<<<grid_rows(n), row_threads(C < 256 ? C : 256), 0, stream()>>>(
      sorted.get(), d_out, n, C, d_table);
  TAPIR_LAUNCH_CHECK("embedding_runs_kernel");
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(transpose_last2);
TAPIR_INSTANTIATE_FLOAT_KERNEL(copy_axis_block);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_backward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(embedding_backward);

}  // namespace tapir::cuda
