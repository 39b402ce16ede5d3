// The naive reference kernels: the plain maths of every CPU kernel, one
// short loop nest each, for reading beside the tuned code
// (engine/cpu/*.cpp), as a second oracle in the tests, and as a backend a
// whole training run can use: with TAPIR_KERNELS=reference in the
// environment, or after set_cpu_kernels(CpuKernels::reference), every
// TAPIR_KERNEL call on a cpu tensor (engine/dispatch.h) runs the kernel of
// the same name here instead of the tuned one.
//
// They are declared from the same list as the tuned and the CUDA kernels
// (engine/kernel_list.inc), so each takes the same arguments and follows
// the same store rules: a gradient is added to (+=), or written where the
// tuned kernel's accumulate flag is false (its old contents never read).
// Every sum runs in double and each result is rounded to T once. No
// threads, no lanes, no BLAS, no Eigen: a run on them is slow (a gemm is
// three loops) and single-threaded whatever num_threads() says. The
// formula each implements is written above its definition
// (engine/cpu/reference.cpp, reference_attention.cpp,
// reference_elementwise.cpp); tests/test_reference_kernels.cpp and
// tests/test_reference_parity.cpp hold them to the tuned kernels.
#pragma once
#include <atomic>
#include <cstdint>
#include <string_view>

#include "base/names.h"
#include "engine/kernel_types.h"

namespace tapir::reference {
#include "engine/kernel_list.inc"
}  // namespace tapir::reference

namespace tapir {

// Which kernels TAPIR_KERNEL runs for cpu tensors. CUDA tensors always run
// the CUDA kernels.
enum class CpuKernels { tuned, reference };
template <>
struct Names<CpuKernels> {
  static constexpr const char* what = "CPU kernels";
  static constexpr std::pair<CpuKernels, const char*> table[] = {
      {CpuKernels::tuned, "tuned"}, {CpuKernels::reference, "reference"}};
};

// Until set_cpu_kernels is called: TAPIR_KERNELS from the environment,
// "tuned" (the default when unset) or "reference"; any other value fails
// naming it and the two it may be.
CpuKernels cpu_kernels();
// Sets the kernels every thread runs from the next kernel call on. A
// training step should not be cut in two by it.
void set_cpu_kernels(CpuKernels kernels);
// A name of Names<CpuKernels>; anything else fails with "<what>: expected
// tuned or reference, got '<word>'" (what: where the word came from).
CpuKernels parse_cpu_kernels(std::string_view word, const char* what);

namespace detail {
// 0 until read, then 1 + the CpuKernels value.
extern std::atomic<int> g_cpu_kernels;
}  // namespace detail

// The test TAPIR_KERNEL makes before each cpu kernel: one relaxed load once
// the setting is known.
inline bool reference_kernels_on() {
  const int known = detail::g_cpu_kernels.load(std::memory_order_relaxed);
  return (known != 0 ? CpuKernels(known - 1) : cpu_kernels()) == CpuKernels::reference;
}

}  // namespace tapir
