// What every CUDA kernel file shares (internal to engine/cuda/): the error
// checks that turn CUDA and cuBLAS failures into tapir::Error, tapir's one
// stream and cuBLAS handle, launch sizes, scratch buffers from the caching
// allocator, and the fixed-order block reductions that keep results the same
// bits run to run.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "base/error.h"
#include "engine/cuda/runtime.h"

namespace tapir::cuda {

// --- errors --------------------------------------------------------------------
inline void check_cuda(cudaError_t err, const char* call) {
  if (err != cudaSuccess) fail("CUDA error in ", call, ": ", cudaGetErrorString(err));
}
// cuBLAS's functions, from the library opened on first use
// (cublas_library.cu); the program does not link it.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
  decltype(&cublasSgemm_v2) sgemm = nullptr;
  decltype(&cublasDgemm_v2) dgemm = nullptr;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched = nullptr;
  decltype(&cublasDgemmStridedBatched) dgemm_strided_batched = nullptr;
};
// Opens cuBLAS the first time; fails naming the library when it cannot.
const Cublas& cublas();

inline void check_cublas(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail("cuBLAS error in ", call, ": ", cublas().status_string(status));
}
#define TAPIR_CUDA_CHECK(call) ::tapir::cuda::check_cuda((call), #call)
#define TAPIR_CUBLAS_CHECK(call) ::tapir::cuda::check_cublas((call), #call)
// After a kernel launch: a bad configuration is reported here, a fault while
// running at the next synchronize().
#define TAPIR_LAUNCH_CHECK(name) ::tapir::cuda::check_cuda(cudaGetLastError(), "launch of " name)

// --- the stream and the cuBLAS handle (runtime.cu) ------------------------------
// Created on first use; every kernel and copy runs on this one stream, so
// work is ordered and a block freed to the cache may be reused at once.
cudaStream_t stream();
cublasHandle_t cublas_handle();

// --- batched products (gemm.cu) ---------------------------------------------------
// `batch` row-major products C_n = alpha op(A_n) op(B_n) + beta C_n, C_n of
// (M, N) with row stride ldc, and X_n = X + n * stride_x: one cuBLAS
// strided-batched call. For kernels that multiply many small matrices that
// sit at regular offsets (attention's (batch, head) pairs).
struct Strided {
  int64_t ld;      // row stride of each matrix
  int64_t stride;  // elements from one matrix to the next
};
template <typename T>
void gemm_strided_batched(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha,
                          const T* A, Strided a, const T* B, Strided b, T beta, T* C, Strided c,
                          int64_t batch);

// --- launch sizes ----------------------------------------------------------------
// Every kernel states the most threads it is launched with
// (__launch_bounds__), so that the compiler keeps its registers within what
// a block of that size may use: kThreads for elementwise kernels and the
// per-pair and per-chunk blocks, kMaxRowThreads for row kernels.
constexpr int kThreads = 256;
constexpr int kMaxRowThreads = 1024;
// Blocks for a grid-stride loop over n elements; kernels loop with 64-bit
// indices, so the cap only bounds the grid, not n.
inline unsigned grid_for(int64_t n, int threads = kThreads) {
  const int64_t blocks = (n + threads - 1) / threads;
  const int64_t cap = int64_t(1) << 20;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}
// Threads per block for a kernel that gives one block to a row of n: a
// multiple of the warp size, at most 1024. It depends on n only, so the
// reduction tree (and the bits) depend on the shape only.
inline int row_threads(int64_t n) {
  int t = 32;
  while (t < kMaxRowThreads && t < n) t *= 2;
  return t;
}
// Rows are handed to blocks by a grid-stride loop; at most this many blocks.
inline unsigned grid_rows(int64_t rows) {
  const int64_t cap = int64_t(1) << 20;
  return static_cast<unsigned>(rows < 1 ? 1 : (rows < cap ? rows : cap));
}

#define TAPIR_GRID_STRIDE(i, n)                                             \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += int64_t(blockDim.x) * gridDim.x)

// --- scratch -----------------------------------------------------------------------
// Device scratch for one call, from the caching allocator. Freed when the
// call returns: with one stream, work queued before the free finishes before
// any later use of the block.
template <typename T>
class Scratch {
 public:
  explicit Scratch(int64_t count)
      : p_(count > 0 ? static_cast<T*>(device_alloc(size_t(count) * sizeof(T))) : nullptr) {}
  ~Scratch() { device_free(p_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* get() const { return p_; }

 private:
  T* p_;
};

// --- fixed-order block reductions ---------------------------------------------------
// Every thread passes its partial value; all threads get the block's total.
// The tree (warp shuffles, then the warps' results in warp order) depends on
// blockDim only, so the same inputs give the same bits. blockDim.x must be a
// multiple of 32 (at most 1024); `shared` holds 32 values.
template <typename T>
__device__ inline T warp_sum(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}
template <typename T>
__device__ inline T warp_max(T v) {
  // a > b ? a : b, as the CPU kernels compare: NaN never wins over a number.
  for (int offset = 16; offset > 0; offset /= 2) {
    const T o = __shfl_down_sync(0xffffffffu, v, offset);
    v = o > v ? o : v;
  }
  return v;
}
template <typename T>
__device__ inline T block_sum(T v, T* shared) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_sum(v);
  __syncthreads();  // shared may still be read from a previous call
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? shared[lane] : T(0);
    v = warp_sum(v);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}
template <typename T>
__device__ inline T block_max(T v, T* shared) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = warp_max(v);
  __syncthreads();
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < warps ? shared[lane] : T(-INFINITY);
    v = warp_max(v);
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  return shared[0];
}

// --- column sums across rows ----------------------------------------------------
// For x seen as (outer, n, inner): store(o, j, sum over k < n of term(o, k, j)).
// The n rows are cut into chunks whose size depends on n only; one thread
// sums a chunk serially, and the chunks' sums are added in chunk order. So
// the tree is fixed by the shape: the same bits on every run, with no
// atomics. Term and Store are small device functors (passed by value).
inline int64_t column_chunk(int64_t n) {
  int64_t c = 32;
  while (c * c < n) c *= 2;
  return c;
}

template <typename T, typename Term>
__global__ void __launch_bounds__(kThreads)
    column_chunk_kernel(Term term, int64_t outer, int64_t n, int64_t inner, int64_t chunk,
                        int64_t chunks, T* partial) {
  TAPIR_GRID_STRIDE(idx, outer * chunks * inner) {
    const int64_t j = idx % inner, c = (idx / inner) % chunks, o = idx / (inner * chunks);
    const int64_t k0 = c * chunk, k1 = k0 + chunk < n ? k0 + chunk : n;
    T s = T(0);
    for (int64_t k = k0; k < k1; ++k) s += term(o, k, j);
    partial[idx] = s;  // (outer, chunks, inner)
  }
}

template <typename T, typename Store>
__global__ void __launch_bounds__(kThreads)
    column_finish_kernel(const T* partial, int64_t outer, int64_t chunks, int64_t inner,
                         Store store) {
  TAPIR_GRID_STRIDE(idx, outer * inner) {
    const int64_t j = idx % inner, o = idx / inner;
    T s = T(0);
    for (int64_t c = 0; c < chunks; ++c) s += partial[(o * chunks + c) * inner + j];
    store(o, j, s);
  }
}

template <typename T, typename Term, typename Store>
void column_sums(Term term, Store store, int64_t outer, int64_t n, int64_t inner) {
  if (outer <= 0 || inner <= 0) return;
  const int64_t chunk = column_chunk(n);
  const int64_t chunks = n > 0 ? (n + chunk - 1) / chunk : 1;
  Scratch<T> partial(outer * chunks * inner);
  column_chunk_kernel<T><<<grid_for(outer * chunks * inner), kThreads, 0, stream()>>>(
      term, outer, n, inner, chunk, chunks, partial.get());
  TAPIR_LAUNCH_CHECK("column_chunk_kernel");
  column_finish_kernel<T><<<grid_for(outer * inner), kThreads, 0, stream()>>>(partial.get(), outer,
                                                                              chunks, inner, store);
  TAPIR_LAUNCH_CHECK("column_finish_kernel");
}

// The usual Store of column_sums: adds each sum into out (outer, inner).
template <typename T>
struct AddInto {
  T* out;
  int64_t inner;
  __device__ void operator()(int64_t o, int64_t j, T s) const { out[o * inner + j] += s; }
};

}  // namespace tapir::cuda
