#include "engine/tensor.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/cuda/runtime.h"
#include "engine/workspace.h"

namespace tapir {

Arena& step_arena() {
  thread_local Arena arena;
  return arena;
}

Arena& device_arena() {
  thread_local Arena arena(size_t{1} << 20, /*on_device=*/true);
  return arena;
}

Arena& arena_for(Device d) {
  return d == Device::cuda ? device_arena() : step_arena();
}

namespace {

// Zeroes bytes at p on device d.
void zero_bytes(Device d, void* p, size_t bytes) {
  if (d == Device::cuda)
    cuda::memset_device(p, 0, bytes);
  else
    std::memset(p, 0, bytes);
}

// Copies bytes between any two devices.
void copy_bytes(Device dst_device, void* dst, Device src_device, const void* src, size_t bytes) {
  if (bytes == 0) return;
  if (dst_device == Device::cpu && src_device == Device::cpu)
    std::memcpy(dst, src, bytes);
  else if (dst_device == Device::cuda && src_device == Device::cpu)
    cuda::copy_to_device(dst, src, bytes);
  else if (dst_device == Device::cpu)
    cuda::copy_to_host(dst, src, bytes);
  else
    cuda::copy_device(dst, src, bytes);
}

// Stores v as element i of the host array p of dtype t.
void store(DType t, void* p, int64_t i, double v) {
  switch (t) {
    case DType::f32:
      static_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::f64:
      static_cast<double*>(p)[i] = v;
      break;
    case DType::i32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      break;
  }
}

double load(DType t, const void* p, int64_t i) {
  switch (t) {
    case DType::f32:
      return static_cast<const float*>(p)[i];
    case DType::f64:
      return static_cast<const double*>(p)[i];
    case DType::i32:
      return static_cast<const int32_t*>(p)[i];
  }
  return 0;
}

}  // namespace

double Tensor::item(int64_t i) const {
  TAPIR_CHECK(i >= 0 && i < numel(), "item index ", i, " out of range for ", describe());
  if (device() == Device::cpu) return load(dtype(), raw(), i);
  // One value copied into a host variable of its own type.
  const auto* at =
      static_cast<const unsigned char*>(raw()) + static_cast<size_t>(i) * dtype_size(dtype());
  switch (dtype()) {
    case DType::f32: {
      float v = 0;
      cuda::copy_to_host(&v, at, sizeof v);
      return v;
    }
    case DType::f64: {
      double v = 0;
      cuda::copy_to_host(&v, at, sizeof v);
      return v;
    }
    case DType::i32: {
      int32_t v = 0;
      cuda::copy_to_host(&v, at, sizeof v);
      return v;
    }
  }
  return 0;
}

std::string Tensor::describe() const {
  std::string name(dtype_name(dtype()));
  for (auto& c : name) c = static_cast<char>(std::tolower(c));
  name += " " + shape().str();
  if (device() != Device::cpu) name += std::string(" on ") + device_name(device());
  return name;
}

namespace {
void* heap_alloc(size_t bytes, Device device) {
  size_t rounded = (bytes + Arena::kAlign - 1) / Arena::kAlign * Arena::kAlign;
  if (rounded == 0) rounded = Arena::kAlign;
  void* p = device == Device::cuda ? cuda::device_alloc(rounded)
                                   : std::aligned_alloc(Arena::kAlign, rounded);
  if (!p) throw std::bad_alloc();
  zero_bytes(device, p, rounded);
  return p;
}

void heap_free(void* p, Device device) {
  if (!p) return;
  if (device == Device::cuda)
    cuda::device_free(p);
  else
    std::free(p);
}
}  // namespace

HeapTensor::HeapTensor(const Shape& shape, DType dtype, bool with_grad, Device device)
    : impl_(std::make_unique<TensorImpl>()) {
  impl_->shape = shape;
  impl_->dtype = dtype;
  impl_->device = device;
  size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  impl_->data = heap_alloc(bytes, device);
  if (with_grad) impl_->grad = heap_alloc(bytes, device);
  impl_->requires_grad = with_grad;
}

void HeapTensor::release() {
  if (!impl_) return;
  heap_free(impl_->data, impl_->device);
  heap_free(impl_->grad, impl_->device);
}

HeapTensor::~HeapTensor() {
  release();
}

HeapTensor::HeapTensor(HeapTensor&& o) noexcept = default;

HeapTensor& HeapTensor::operator=(HeapTensor&& o) noexcept {
  if (this != &o) {
    release();
    impl_ = std::move(o.impl_);
  }
  return *this;
}

void HeapTensor::zero() {
  if (impl_) zero_bytes(impl_->device, impl_->data, view().nbytes());
}

void HeapTensor::zero_grad() {
  if (impl_ && impl_->grad) zero_bytes(impl_->device, impl_->grad, view().nbytes());
}

void HeapTensor::to_device(Device device) {
  if (!impl_ || impl_->device == device) return;
  const size_t bytes = view().nbytes();
  void* data = heap_alloc(bytes, device);
  copy_bytes(device, data, impl_->device, impl_->data, bytes);
  void* grad = nullptr;
  if (impl_->grad) {
    grad = heap_alloc(bytes, device);
    copy_bytes(device, grad, impl_->device, impl_->grad, bytes);
  }
  release();
  impl_->data = data;
  impl_->grad = grad;
  impl_->device = device;
}

Tensor empty(const Shape& shape, DType dtype) {
  return empty(shape, dtype, current_device());
}

Tensor empty(const Shape& shape, DType dtype, Device device) {
  auto* impl = new (step_arena().allocate(sizeof(TensorImpl))) TensorImpl();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->device = device;
  impl->data = arena_for(device).allocate(static_cast<size_t>(shape.numel()) * dtype_size(dtype));
  return Tensor(impl);
}

Tensor zeros(const Shape& shape, DType dtype) {
  return zeros(shape, dtype, current_device());
}

Tensor zeros(const Shape& shape, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  zero_bytes(device, t.raw(), t.nbytes());
  return t;
}

void fill(Tensor t, double value) {
  if (t.device() != Device::cpu) {
    Tensor host = empty(t.shape(), t.dtype(), Device::cpu);
    fill(host, value);
    copy_values(t, host);
    return;
  }
  int64_t n = t.numel();
  switch (t.dtype()) {
    case DType::f32: {
      float* p = t.data<float>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(value);
      break;
    }
    case DType::f64: {
      double* p = t.data<double>();
      for (int64_t i = 0; i < n; ++i) p[i] = value;
      break;
    }
    case DType::i32: {
      int32_t* p = t.data<int32_t>();
      for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(value);
      break;
    }
  }
}

Tensor full(const Shape& shape, double value, DType dtype) {
  Tensor t = empty(shape, dtype);
  fill(t, value);
  return t;
}

namespace {

template <class Values>
Tensor copy_of_values(const Shape& shape, const Values& values, DType dtype) {
  TAPIR_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "from_values: ", values.size(),
              " values given for shape ", shape.str());
  Tensor t = empty(shape, dtype, Device::cpu);
  int64_t i = 0;
  for (const auto v : values) store(dtype, t.raw(), i++, static_cast<double>(v));
  return to_device(t, current_device());
}

}  // namespace

Tensor from_values(const Shape& shape, std::initializer_list<double> values, DType dtype) {
  return copy_of_values(shape, values, dtype);
}

Tensor from_values(const Shape& shape, std::span<const double> values, DType dtype) {
  return copy_of_values(shape, values, dtype);
}

Tensor from_values(const Shape& shape, std::span<const float> values, DType dtype) {
  return copy_of_values(shape, values, dtype);
}

Tensor from_values(const Shape& shape, std::span<const int32_t> values, DType dtype) {
  return copy_of_values(shape, values, dtype);
}

Tensor alias(Tensor t, const Shape& shape) {
  TAPIR_CHECK(shape.numel() == t.numel(), "cannot view ", t.describe(), " as shape ", shape.str());
  auto* impl = new (step_arena().allocate(sizeof(TensorImpl))) TensorImpl(*t.impl());
  impl->shape = shape;
  impl->grad = nullptr;
  impl->requires_grad = false;
  return Tensor(impl);
}

Tensor cast(Tensor t, DType dtype) {
  const Tensor src = to_host(t);
  Tensor out = empty(t.shape(), dtype, Device::cpu);
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) store(dtype, out.raw(), i, load(src.dtype(), src.raw(), i));
  return to_device(out, current_device());
}

Tensor to_device(Tensor t, Device device) {
  if (t.device() == device) return t;
  Tensor out = empty(t.shape(), t.dtype(), device);
  copy_values(out, t);
  return out;
}

void copy_values(Tensor dst, Tensor src) {
  TAPIR_CHECK(dst.shape() == src.shape() && dst.dtype() == src.dtype(), "copy from ",
              src.describe(), " into ", dst.describe());
  copy_bytes(dst.device(), dst.raw(), src.device(), src.raw(), src.nbytes());
}

void read_bytes(Tensor t, void* host_dst) {
  copy_bytes(Device::cpu, host_dst, t.device(), t.raw(), t.nbytes());
}

void write_bytes(Tensor t, const void* host_src) {
  copy_bytes(t.device(), t.raw(), Device::cpu, host_src, t.nbytes());
}

Tensor grad_view(Tensor t) {
  TAPIR_CHECK(t.has_grad(), "grad_view: ", t.describe(), " has no gradient buffer");
  auto* impl = new (step_arena().allocate(sizeof(TensorImpl))) TensorImpl(*t.impl());
  impl->data = t.impl()->grad;
  impl->grad = nullptr;
  impl->requires_grad = false;
  return Tensor(impl);
}

void* ensure_grad_for_write(Tensor t, bool* fresh) {
  TensorImpl* impl = t.impl();
  *fresh = impl->grad == nullptr;
  if (*fresh) {
    impl->grad = arena_for(t.device()).allocate(t.nbytes());
    impl->grad_in_arena = true;
  }
  return impl->grad;
}

void* ensure_grad(Tensor t) {
  bool fresh = false;
  void* grad = ensure_grad_for_write(t, &fresh);
  if (fresh) zero_bytes(t.device(), grad, t.nbytes());
  return grad;
}

void recycle_grad(Tensor t) {
  TensorImpl* impl = t.impl();
  if (!impl->grad_in_arena) return;
  arena_for(t.device()).recycle(impl->grad, t.nbytes());
  impl->grad = nullptr;
  impl->grad_in_arena = false;
}

}  // namespace tapir
