// Shape of a row-major contiguous tensor: up to kMaxRank dimensions, stored
// inline so that shapes never allocate.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace tapir {

constexpr int kMaxRank = 6;

struct Shape {
  int rank = 0;
  int64_t dims[kMaxRank] = {};

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  explicit Shape(const std::vector<int64_t>& d);

  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  // Negative indices count from the end: shape[-1] is the last dimension.
  int64_t operator[](int i) const { return dims[i < 0 ? rank + i : i]; }
  int64_t& operator[](int i) { return dims[i < 0 ? rank + i : i]; }
  int64_t last() const { return rank == 0 ? 1 : dims[rank - 1]; }
  // Product of all but the last dimension: the number of rows when the tensor
  // is seen as a (rows, last) matrix.
  int64_t rows() const { return rank == 0 ? 1 : numel() / (dims[rank - 1] ? dims[rank - 1] : 1); }
  // Product of dimensions [begin, end).
  int64_t span(int begin, int end) const {
    int64_t n = 1;
    for (int i = begin; i < end; ++i) n *= dims[i];
    return n;
  }
  std::vector<int64_t> vec() const { return std::vector<int64_t>(dims, dims + rank); }
  std::string str() const;  // "(2, 3, 4)"

  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }

  // True when `suffix` equals the trailing dimensions of this shape, which is
  // the broadcasting rule of tapir's binary ops ((B, T, C) with (C) or ()).
  bool ends_with(const Shape& suffix) const;
};

}  // namespace tapir
