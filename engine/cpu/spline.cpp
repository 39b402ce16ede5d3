// Fused linear-spline kernels: forward (locate the interval, interpolate) and
// backward (input gradient and the knot values' gradient in one pass).
//
// Speed. The per-element work of both passes is a branch-free locate plus
// two gathers, which the compiler vectorises. The knot gradient is a
// histogram (scatter-add into the two knots of each element's interval); it
// runs as a scalar loop over four interleaved copies of the histogram, so
// that runs of elements in the same interval do not wait on each other's
// stores. Determinism: partial histograms per fixed chunk, summed in chunk
// order in double.
#include <vector>

#include "engine/cpu/spline_eval.h"
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

namespace {

// One chunk of the backward: d_x for its elements, and its knot sums into
// partial (K; null: not needed). index and position hold kSplineChunk
// entries, copies kSplineCopies * K.
template <typename T>
void backward_chunk(const SplineLocator<T>& loc, const T* x, int64_t n, const T* values, int64_t K,
                    const T* d_out, T* d_x, bool accumulate_x, T* partial, int32_t* index,
                    T* position, T* copies) {
  if (loc.linear)
    spline_locate_range<T, true>(loc, x, n, values, d_out, d_x, index, position, accumulate_x);
  else
    spline_locate_range<T, false>(loc, x, n, values, d_out, d_x, index, position, accumulate_x);
  if (!partial) return;
  for (int64_t j = 0; j < kSplineCopies * K; ++j) copies[j] = T(0);
  spline_scatter(index, position, d_out, n, K, copies);
  spline_gather_copies(copies, K, partial);
}

}  // namespace

template <typename T>
void spline_forward(const T* x, int64_t n, const T* values, const SplineGrid& grid, T* out) {
  const SplineLocator<T> loc(grid);
  parallel_for(n, kSplineChunk, [&](int64_t begin, int64_t end) {
    if (loc.linear)
      spline_values_range<T, true>(loc, x + begin, end - begin, values, out + begin);
    else
      spline_values_range<T, false>(loc, x + begin, end - begin, values, out + begin);
  });
}

template <typename T>
void spline_backward(const T* x, int64_t n, const T* values, const SplineGrid& grid, const T* d_out,
                     T* d_x, T* d_values, bool accumulate_x) {
  if (n <= 0 || (!d_x && !d_values)) return;
  const SplineLocator<T> loc(grid);
  const int64_t K = grid.knots();
  const int64_t chunks = (n + kSplineChunk - 1) / kSplineChunk;
  // Per-chunk knot sums, kept by the calling thread; they grow once.
  thread_local std::vector<T> partials;
  if (d_values) partials.resize(static_cast<size_t>(chunks * K));
  T* partial = partials.data();  // thread_local: workers must not name it
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    thread_local std::vector<int32_t> index;
    thread_local std::vector<T> position, copies;
    index.resize(kSplineChunk);
    position.resize(kSplineChunk);
    copies.resize(static_cast<size_t>(kSplineCopies * K));
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t begin = c * kSplineChunk;
      const int64_t len = n - begin < kSplineChunk ? n - begin : kSplineChunk;
      backward_chunk(loc, x + begin, len, values, K, d_out + begin, d_x ? d_x + begin : nullptr,
                     accumulate_x, d_values ? partial + c * K : nullptr, index.data(),
                     position.data(), copies.data());
    }
  });
  if (!d_values) return;
  for (int64_t k = 0; k < K; ++k) {
    double s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += double(partial[c * K + k]);
    d_values[k] += static_cast<T>(s);
  }
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(spline_backward);

}  // namespace tapir::cpu
