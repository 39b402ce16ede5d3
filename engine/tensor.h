// Tensor: a non-owning handle to a row-major contiguous block of f32, f64 or
// i32 values with a shape, plus an optional gradient buffer of the same shape.
//
// Memory has two lifetimes:
//   - step temporaries (activations, their gradients) come from the step
//     arena (engine/workspace.h) and die at the next reset_step();
//   - long-lived tensors (parameters, optimizer state, datasets) are
//     HeapTensors, which own their memory and hand out Tensor handles.
// A Tensor is a pointer-sized value: copying it never copies data.
//
// A tensor lives on a device (engine/device.h). On cuda, data<T>() is a
// device pointer for kernels; host code that reads or writes values uses
// host_data<T>(), which fails on a device tensor (copy it with to_host()).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/error.h"
#include "engine/device.h"
#include "engine/dtype.h"
#include "engine/shape.h"

namespace tapir {

struct TensorImpl {
  void* data = nullptr;
  void* grad = nullptr;  // null until a gradient flows into this tensor
  Shape shape;
  DType dtype = DType::f32;
  Device device = Device::cpu;
  bool requires_grad = false;
  bool grad_in_arena = false;  // grad was taken from the step arena by ensure_grad
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(TensorImpl* impl) : impl_(impl) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_; }

  const Shape& shape() const { return impl_->shape; }
  int rank() const { return impl_->shape.rank; }
  int64_t dim(int i) const { return impl_->shape[i]; }
  int64_t numel() const { return impl_->shape.numel(); }
  DType dtype() const { return impl_->dtype; }
  Device device() const { return impl_->device; }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype()); }
  bool requires_grad() const { return impl_->requires_grad; }
  // Marks the tensor as one backward computes a gradient for: a leaf of
  // the tape (an input whose gradient a test or a program wants). A
  // HeapTensor made with_grad is marked already; a step tensor's gradient
  // comes from the step arena and lives until reset_step().
  void set_requires_grad(bool on = true) const { impl_->requires_grad = on; }
  bool has_grad() const { return impl_->grad != nullptr; }

  void* raw() const { return impl_->data; }
  void* raw_grad() const { return impl_->grad; }

  // Typed access to the data wherever it lives (a device pointer on cuda);
  // the element type must match the dtype.
  template <typename T>
  T* data() const {
    check_dtype(dtype_of<T>());
    return static_cast<T*>(impl_->data);
  }
  template <typename T>
  T* grad() const {
    check_dtype(dtype_of<T>());
    return static_cast<T*>(impl_->grad);
  }

  // Typed host access: fails clearly unless the tensor is on the cpu.
  template <typename T>
  T* host_data() const {
    check_host();
    return data<T>();
  }
  template <typename T>
  T* host_grad() const {
    check_host();
    return grad<T>();
  }

  // Value of element i as a double, for tests and printing (any dtype, any
  // device: on cuda it copies that one value to the host).
  double item(int64_t i = 0) const;

  std::string describe() const;  // "f32 (2, 3)", "f32 (2, 3) on cuda"

 private:
  void check_host() const {
    if (impl_->device != Device::cpu)
      fail("host access to ", describe(), "; copy it to the host first (to_host)");
  }
  void check_dtype(DType t) const {
    if (impl_->dtype != t)
      fail("tensor of dtype ", dtype_name(impl_->dtype), " accessed as ", dtype_name(t));
  }
  TensorImpl* impl_ = nullptr;
};

// A tensor that owns its memory (and, if asked, a gradient buffer of the same
// size): parameters, optimizer moments, datasets. Movable, not copyable; the
// handle stays valid while the HeapTensor lives.
class HeapTensor {
 public:
  HeapTensor() = default;
  HeapTensor(const Shape& shape, DType dtype, bool with_grad = false, Device device = Device::cpu);
  ~HeapTensor();
  HeapTensor(HeapTensor&&) noexcept;
  HeapTensor& operator=(HeapTensor&&) noexcept;
  HeapTensor(const HeapTensor&) = delete;
  HeapTensor& operator=(const HeapTensor&) = delete;

  Tensor view() const { return Tensor(impl_.get()); }
  operator Tensor() const { return view(); }
  bool defined() const { return impl_ != nullptr; }

  void zero();       // data := 0
  void zero_grad();  // grad := 0 (no-op without a grad buffer)

  // Moves data and gradient to another device in place: handles from view()
  // stay valid and see the new device.
  void to_device(Device device);

 private:
  void release();
  std::unique_ptr<TensorImpl> impl_;
};

// --- step temporaries (from the workspace arenas) ----------------------------
// Without a device argument they allocate on current_device().

Tensor empty(const Shape& shape, DType dtype = DType::f32);
Tensor empty(const Shape& shape, DType dtype, Device device);
Tensor zeros(const Shape& shape, DType dtype = DType::f32);
Tensor zeros(const Shape& shape, DType dtype, Device device);
Tensor full(const Shape& shape, double value, DType dtype = DType::f32);
// A copy of host values, e.g. from_values({2, 2}, {1, 2, 3, 4}), or of a
// std::vector or span (a batch's token ids: from_values({B, T}, ids,
// DType::i32)), converted to dtype.
Tensor from_values(const Shape& shape, std::initializer_list<double> values,
                   DType dtype = DType::f32);
Tensor from_values(const Shape& shape, std::span<const double> values, DType dtype = DType::f32);
Tensor from_values(const Shape& shape, std::span<const float> values, DType dtype = DType::f32);
Tensor from_values(const Shape& shape, std::span<const int32_t> values, DType dtype = DType::i32);
// Same data, new shape (no copy, no tape: see ops reshape() for the
// differentiable form). Element counts must match.
Tensor alias(Tensor t, const Shape& shape);
// A new tensor on the current device holding t's values converted to dtype.
Tensor cast(Tensor t, DType dtype);

// A step-arena copy of t on `device` (t itself when it is already there).
// Gradients are not copied and the copy is not on the tape.
Tensor to_device(Tensor t, Device device);
inline Tensor to_host(Tensor t) {
  return to_device(t, Device::cpu);
}

void copy_values(Tensor dst, Tensor src);  // same shape and dtype, any devices
void fill(Tensor t, double value);
// t's bytes (nbytes()) to or from host memory, wherever t lives.
void read_bytes(Tensor t, void* host_dst);
void write_bytes(Tensor t, const void* host_src);

// A step-arena handle over t's gradient buffer (same shape, dtype and device;
// t must have one), e.g. to_host(grad_view(p)) to read a gradient.
Tensor grad_view(Tensor t);

// Allocates t's gradient buffer (zeroed) on t's device, in the arena, if it
// has none.
void* ensure_grad(Tensor t);
// As ensure_grad, but a buffer it allocates is not zeroed: *fresh tells the
// caller, which must then write every element (a GEMM with beta = 0) instead
// of adding to them. Saves a pass over the largest gradients.
void* ensure_grad_for_write(Tensor t, bool* fresh);
// Hands a gradient buffer that ensure_grad took from the arena back to it
// for reuse within the step (backward() does so once a node's gradient has
// been used); t is left without one. Does nothing to any other buffer (a
// HeapTensor's).
void recycle_grad(Tensor t);

}  // namespace tapir
