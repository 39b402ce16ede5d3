// Fused linear-spline kernels: forward (locate, interpolate) one thread per
// element; backward: the input gradient per element, and the knot values'
// gradient as deterministic knot sums per chunk of kKnotTile elements (one
// block per chunk), the chunks' sums added in chunk order in double.
#include "engine/cuda/common.cuh"
#include "engine/cuda/spline_eval.cuh"
#include "engine/kernels.h"

namespace tapir::cuda {

namespace {

template <typename T>
__global__ void __launch_bounds__(kThreads)
    spline_forward_kernel(const T* x, int64_t n, const T* values, SplineLocator<T> sp, T* out) {
  TAPIR_GRID_STRIDE(i, n) {
    out[i] = sp.value(values, x[i]);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    spline_dx_kernel(const T* x, int64_t n, const T* values, SplineLocator<T> sp, const T* d_out,
                     T* d_x, bool accumulate) {
  TAPIR_GRID_STRIDE(i, n) {
    const T u = sp.units(x[i]);
    const int32_t k = sp.interval(u);
    const T d = sp.slope(values, u, k) * d_out[i];
    d_x[i] = accumulate ? d_x[i] + d : d;
  }
}

// Block c sums chunk c (kKnotTile elements) into partial (chunks, K).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    spline_knots_kernel(const T* x, int64_t n, SplineLocator<T> sp, const T* d_out, int64_t K,
                        T* partial) {
  __shared__ int32_t s_index[kKnotTile];
  __shared__ T s_pos[kKnotTile];
  __shared__ T s_w[kKnotTile];
  const int64_t chunks = (n + kKnotTile - 1) / kKnotTile;
  for (int64_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    const int64_t begin = c * kKnotTile;
    const int count = static_cast<int>(n - begin < kKnotTile ? n - begin : kKnotTile);
    for (int e = threadIdx.x; e < count; e += blockDim.x) {
      const T xe = x[begin + e];
      const int32_t k = sp.interval(sp.units(xe));
      s_index[e] = k;
      s_pos[e] = sp.position(xe, k);
      s_w[e] = d_out[begin + e];
    }
    T* acc = partial + c * K;
    for (int64_t k = threadIdx.x; k < K; k += blockDim.x) acc[k] = T(0);
    __syncthreads();
    knot_tile_sums(s_index, s_pos, s_w, count, K, acc);
    __syncthreads();
  }
}

}  // namespace

template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out) {
  if (n <= 0) return;
  spline_forward_kernel<<<grid_for(n), kThreads, 0, stream()>>>(x, n, values,
                                                                SplineLocator<T>(grid), out);
  TAPIR_LAUNCH_CHECK("spline_forward_kernel");
}

template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values, bool accumulate_x) {
  if (n <= 0 || (!d_x && !d_values)) return;
  const SplineLocator<T> sp(grid);
  if (d_x) {
    spline_dx_kernel<<<grid_for(n), kThreads, 0, stream()>>>(x, n, values, sp, d_out, d_x,
                                                             accumulate_x);
    TAPIR_LAUNCH_CHECK("spline_dx_kernel");
  }
  if (!d_values) return;
  const int64_t K = grid.knots(), chunks = (n + kKnotTile - 1) / kKnotTile;
  Scratch<T> partial(chunks * K);
  spline_knots_kernel<<<grid_rows(chunks), kThreads, 0, stream()>>>(x, n, sp, d_out, K,
                                                                    partial.get());
  TAPIR_LAUNCH_CHECK("spline_knots_kernel");
  knot_finish(partial.get(), chunks, K, 1, d_values);
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_backward);

}  // namespace tapir::cuda
