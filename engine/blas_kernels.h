// Which OpenBLAS kernels the cpu's matrix products run, and why they are the
// same on every machine a build runs on.
//
// Debian's OpenBLAS picks its kernels by CPU when it loads (a Haswell, Zen
// or SkylakeX sgemm, ...), and kernels differ in their bits: the same
// command would train to other weights on another CPU of the same kind.
// So tapir pins the choice before main() (engine/cpu/blas_pin.cpp, a
// constructor of the program that has OpenBLAS choose again): to the kernels of the build's
// own CPU target, Haswell for x86-64-v3 (AVX2 and FMA: every machine that
// runs such a build has them), Nehalem for x86-64-v2, Prescott below.
// TAPIR_BLAS_CORETYPE overrides it: `machine` leaves the choice to
// OpenBLAS (and to OPENBLAS_CORETYPE, where set), which may be faster on
// AVX-512 machines; a core name (Haswell, SkylakeX, Zen, ...) pins that
// one. docs/build.md has the measured cost.
#pragma once
#include <string>

namespace tapir {

// "Haswell (pinned: the build's CPU target)", "Zen (OpenBLAS's choice:
// TAPIR_BLAS_CORETYPE=machine)" or "SkylakeX (pinned: TAPIR_BLAS_CORETYPE)".
std::string blas_kernels_description();

}  // namespace tapir
