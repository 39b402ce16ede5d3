// The GEMM measurements of engine/gemm_peak.h.
#include "engine/gemm_peak.h"

#include <cblas.h>

#include <algorithm>
#include <limits>

#include "base/clock.h"
#include "engine/dispatch.h"
#include "engine/rng.h"
#include "engine/tensor.h"

namespace tapir {

double sgemm_peak_gflops(Device device, int64_t n, int reps) {
  Rng rng(0, 3);
  HeapTensor a(Shape{n, n}, DType::f32), b(Shape{n, n}, DType::f32);
  rng.fill_uniform<float>(a.view().host_data<float>(), n * n, -1.0f, 1.0f);
  rng.fill_uniform<float>(b.view().host_data<float>(), n * n, -1.0f, 1.0f);
  a.to_device(device);
  b.to_device(device);
  HeapTensor c(Shape{n, n}, DType::f32, false, device);
  double fastest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < reps + 2; ++i) {
    const double start = now_seconds();
    TAPIR_KERNEL(device, gemm<float>, false, false, n, n, n, 1.0f, a.view().data<float>(),
                 b.view().data<float>(), 0.0f, c.view().data<float>());
    synchronize(device);
    const double s = now_seconds() - start;
    if (i >= 2) fastest = std::min(fastest, s);
  }
  return 2.0 * double(n) * double(n) * double(n) / fastest / 1e9;
}

void direct_sgemm(int64_t n, const float* a, const float* b, float* c) {
  const int m = static_cast<int>(n);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, a, m, b, m, 0.0f, c, m);
}

}  // namespace tapir
