// Eigen for the CPU kernels (elementwise.cpp, attention.cpp): the one place
// tapir includes it, single-threaded (the kernels parallelise themselves).
//
// GCC 12 reports -Wmaybe-uninitialized inside its own AVX-512 intrinsics
// (_mm512_undefined_ps and friends initialise a variable from itself; GCC
// PR 105593), wherever Eigen's AVX-512 packets are instantiated. The false
// positive is attributed to Eigen's templates, so it is silenced for the
// lines of Eigen's headers only: the pragma's scope ends here, and the
// kernels' own code keeps every warning. The AVX-512 compile check
// (TAPIR_AVX512_CHECK in CMakeLists.txt) keeps it honest.
#pragma once

#define EIGEN_DONT_PARALLELIZE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#pragma GCC diagnostic pop
