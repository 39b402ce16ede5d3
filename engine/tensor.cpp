#include "engine/tensor.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/workspace.h"

namespace tapir {

Arena& step_arena() {
  static Arena arena;
  return arena;
}

double Tensor::item(int64_t i) const {
  TAPIR_CHECK(i >= 0 && i < numel(), "item index ", i, " out of range for ", describe());
  switch (dtype()) {
    case DType::f32:
      return static_cast<const float*>(raw())[i];
    case DType::f64:
      return static_cast<const double*>(raw())[i];
    case DType::i32:
      return static_cast<const int32_t*>(raw())[i];
  }
  return 0;
}

std::string Tensor::describe() const {
  std::string name(dtype_name(dtype()));
  for (auto& c : name) c = static_cast<char>(std::tolower(c));
  return name + " " + shape().str();
}

namespace {
void* heap_alloc(size_t bytes) {
  size_t rounded = (bytes + Arena::kAlign - 1) / Arena::kAlign * Arena::kAlign;
  void* p = std::aligned_alloc(Arena::kAlign, rounded == 0 ? Arena::kAlign : rounded);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, rounded == 0 ? Arena::kAlign : rounded);
  return p;
}
}  // namespace

HeapTensor::HeapTensor(const Shape& shape, DType dtype, bool with_grad)
    : impl_(std::make_unique<TensorImpl>()) {
  impl_->shape = shape;
  impl_->dtype = dtype;
  size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  impl_->data = heap_alloc(bytes);
  if (with_grad) impl_->grad = heap_alloc(bytes);
  impl_->requires_grad = with_grad;
}

HeapTensor::~HeapTensor() {
  if (impl_) {
    std::free(impl_->data);
    std::free(impl_->grad);
  }
}

HeapTensor::HeapTensor(HeapTensor&& o) noexcept = default;

HeapTensor& HeapTensor::operator=(HeapTensor&& o) noexcept {
  if (this != &o) {
    if (impl_) {
      std::free(impl_->data);
      std::free(impl_->grad);
    }
    impl_ = std::move(o.impl_);
  }
  return *this;
}

void HeapTensor::zero() {
  if (impl_) std::memset(impl_->data, 0, view().nbytes());
}

void HeapTensor::zero_grad() {
  if (impl_ && impl_->grad) std::memset(impl_->grad, 0, view().nbytes());
}

Tensor empty(const Shape& shape, DType dtype) {
  Arena& arena = step_arena();
  auto* impl = new (arena.allocate(sizeof(TensorImpl))) TensorImpl();
  impl->shape = shape;
  impl->dtype = dtype;
  impl->data = arena.allocate(static_cast<size_t>(shape.numel()) * dtype_size(dtype));
  return Tensor(impl);
}

Tensor zeros(const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  std::memset(t.raw(), 0, t.nbytes());
  return t;
}

void fill(Tensor t, double value) {
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

Tensor from_values(const Shape& shape, std::initializer_list<double> values, DType dtype) {
  TAPIR_CHECK(static_cast<int64_t>(values.size()) == shape.numel(), "from_values: ", values.size(),
              " values given for shape ", shape.str());
  Tensor t = empty(shape, dtype);
  int64_t i = 0;
  for (double v : values) {
    switch (dtype) {
      case DType::f32:
        t.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::f64:
        t.data<double>()[i] = v;
        break;
      case DType::i32:
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
    }
    ++i;
  }
  return t;
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
  Tensor out = empty(t.shape(), dtype);
  int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    double v = t.item(i);
    switch (dtype) {
      case DType::f32:
        out.data<float>()[i] = static_cast<float>(v);
        break;
      case DType::f64:
        out.data<double>()[i] = v;
        break;
      case DType::i32:
        out.data<int32_t>()[i] = static_cast<int32_t>(v);
        break;
    }
  }
  return out;
}

void copy_values(Tensor dst, Tensor src) {
  TAPIR_CHECK(dst.shape() == src.shape() && dst.dtype() == src.dtype(), "copy from ",
              src.describe(), " into ", dst.describe());
  std::memcpy(dst.raw(), src.raw(), src.nbytes());
}

void* ensure_grad(Tensor t) {
  if (!t.impl()->grad) t.impl()->grad = step_arena().allocate_zeroed(t.nbytes());
  return t.impl()->grad;
}

}  // namespace tapir
