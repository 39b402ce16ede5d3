// Device and dtype dispatch: how a caller above the engine runs a kernel on
// the tensors it has. A computation runs where its inputs live (op_device()
// checks they agree) and calls TAPIR_KERNEL(dev, name<T>, args...), which
// calls cpu::name<T> for cpu tensors and its twin cuda::name<T> for cuda
// tensors (engine/kernels.h: the same declaration for both), or
// reference::name<T> for cpu tensors while the reference kernels are on
// (engine/reference.h: TAPIR_KERNELS=reference). dispatch_float
// picks T from a tensor's dtype. The ops (autograd/), the optimizer updates
// and the gradient clip (optim/) all go through here.
#pragma once
#include <initializer_list>

#include "engine/kernel_trace.h"
#include "engine/kernels.h"
#include "engine/reference.h"
#include "engine/tensor.h"

namespace tapir {

// Notes the kernel's name while a tape printout is made (engine/kernel_trace.h).
#define TAPIR_NOTE_KERNEL(kernel) \
  (::tapir::kernel_trace_on() ? ::tapir::detail::note_kernel(#kernel) : void())

// The CPU's kernel: the tuned one, or the naive reference while it is on.
#define TAPIR_CPU_KERNEL(kernel, ...)                                        \
  (::tapir::reference_kernels_on() ? ::tapir::reference::kernel(__VA_ARGS__) \
                                   : ::tapir::cpu::kernel(__VA_ARGS__))

#if TAPIR_HAS_CUDA
#define TAPIR_KERNEL(dev, kernel, ...)                                 \
  (TAPIR_NOTE_KERNEL(kernel), (dev) == ::tapir::Device::cuda           \
                                  ? ::tapir::cuda::kernel(__VA_ARGS__) \
                                  : TAPIR_CPU_KERNEL(kernel, __VA_ARGS__))
#else
// Without CUDA no tensor can be on cuda (its allocation fails).
#define TAPIR_KERNEL(dev, kernel, ...) \
  (TAPIR_NOTE_KERNEL(kernel), (void)(dev), TAPIR_CPU_KERNEL(kernel, __VA_ARGS__))
#endif

// The device of `what`'s defined inputs. Inputs on different devices fail
// naming `what` and both devices; a cuda tensor fails in a build without CUDA.
inline Device op_device(const char* what, std::initializer_list<Tensor> inputs) {
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (!first) {
      first = &t;
      continue;
    }
    TAPIR_CHECK(t.device() == first->device(), what, ": inputs are on different devices (",
                device_name(first->device()), " and ", device_name(t.device()), ")");
  }
  const Device dev = first ? first->device() : Device::cpu;
#if !TAPIR_HAS_CUDA
  TAPIR_CHECK(dev == Device::cpu, what, ": input is on cuda but tapir was built without CUDA");
#endif
  return dev;
}

// Calls f.template operator()<float>() or <double>() for the dtype t; i32 fails.
template <typename F>
decltype(auto) dispatch_float(const char* what, DType t, F&& f) {
  switch (t) {
    case DType::f32:
      return f.template operator()<float>();
    case DType::f64:
      return f.template operator()<double>();
    case DType::i32:
      break;
  }
  fail(what, ": expected an f32 or f64 tensor, got ", dtype_name(t));
}

}  // namespace tapir
