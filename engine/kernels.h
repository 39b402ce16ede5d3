// Every kernel, for both backends, declared from one list
// (engine/kernel_list.inc): plain functions on raw pointers, forward and
// backward side by side (llm.c style). Shapes are passed explicitly; every
// array is row-major and contiguous. Backward kernels ACCUMULATE (+=) into
// gradient arrays, and a null gradient pointer means "not needed". T is
// float or double.
//
// tapir::cpu (engine/cpu/*.cpp) runs on host pointers. Threading follows
// engine/threads.h: elementwise and row-wise kernels split rows with
// parallel_for; reductions across rows (bias and weight gradients, embedding
// scatter-add) run in a fixed order so results do not depend on the thread
// count.
//
// tapir::cuda (engine/cuda/*.cu, built only with CUDA) runs on device
// pointers; scalars and the SplineGrid are host values. Each function
// launches on the stream of engine/cuda/runtime.h and returns without
// synchronising, except those that return a host value
// (cross_entropy_forward, sum_of_squares, first_out_of_range), which wait
// for it. Where the CPU kernel is deterministic for any thread count, the
// CUDA kernel gives the same bits run to run: no floating-point atomics
// whose order changes the result; cross-row sums use a fixed reduction tree.
//
// An op picks the backend for its tensors' device with TAPIR_KERNEL
// (engine/dispatch.h).
#pragma once
#include <cstdint>

#include "engine/kernel_types.h"

namespace tapir::cpu {
#include "engine/kernel_list.inc"
}  // namespace tapir::cpu

namespace tapir::cuda {
#include "engine/kernel_list.inc"
}  // namespace tapir::cuda

// In a backend's source file, after a float kernel's definition: its f32 and
// f64 instantiations, with the signature taken from the declaration list.
#define TAPIR_INSTANTIATE_FLOAT_KERNEL(name)  \
  template decltype(name<float>) name<float>; \
  template decltype(name<double>) name<double>
