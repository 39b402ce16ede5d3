// Element types of tapir tensors. f32 is the working type, f64 serves gradient
// checks and reference paths, i32 holds token ids, targets and masks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tapir {

enum class DType : uint8_t { f32, f64, i32 };

inline size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::f64:
      return 8;
    case DType::i32:
      return 4;
  }
  return 0;
}

// Names as written in safetensors headers.
inline std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "F32";
    case DType::f64:
      return "F64";
    case DType::i32:
      return "I32";
  }
  return "?";
}

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<float>() {
  return DType::f32;
}
template <>
constexpr DType dtype_of<double>() {
  return DType::f64;
}
template <>
constexpr DType dtype_of<int32_t>() {
  return DType::i32;
}

}  // namespace tapir
