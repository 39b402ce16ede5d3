// Kernel timers for `tapir bench`: how much of a step the BLAS matrix
// products take. Timing costs one clock read per GEMM call.
#pragma once
#include <cstdint>

namespace tapir {

struct KernelProfile {
  double gemm_seconds = 0;
  int64_t gemm_calls = 0;
  double gemm_flops = 0;
};

KernelProfile& kernel_profile();  // the calling thread's; reset by assigning {}

}  // namespace tapir
