#include "engine/shape.h"

#include "base/error.h"

namespace tapir {

Shape::Shape(std::initializer_list<int64_t> d) : Shape(std::vector<int64_t>(d)) {}

Shape::Shape(const std::vector<int64_t>& d) {
  TAPIR_CHECK(static_cast<int>(d.size()) <= kMaxRank, "tensor rank ", d.size(),
              " exceeds the maximum of ", kMaxRank);
  rank = static_cast<int>(d.size());
  for (int i = 0; i < rank; ++i) {
    TAPIR_CHECK(d[i] >= 0, "negative dimension ", d[i], " in shape");
    dims[i] = d[i];
  }
}

std::string Shape::str() const {
  std::string s = "(";
  for (int i = 0; i < rank; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + ")";
}

bool Shape::operator==(const Shape& o) const {
  if (rank != o.rank) return false;
  for (int i = 0; i < rank; ++i)
    if (dims[i] != o.dims[i]) return false;
  return true;
}

bool Shape::ends_with(const Shape& suffix) const {
  if (suffix.rank > rank) return false;
  for (int i = 0; i < suffix.rank; ++i)
    if (dims[rank - suffix.rank + i] != suffix.dims[i]) return false;
  return true;
}

}  // namespace tapir
