// The spline ops with their grid written as (lo, hi, linear) and the knot
// count read from the values' last axis: the form the tests' tables use.
#pragma once
#include "autograd/ops.h"

namespace tapir {

inline SplineGrid grid_of(Tensor values, double lo, double hi, bool linear) {
  return SplineGrid(values.rank() >= 1 ? values.shape().last() : 0, lo, hi, linear);
}

inline Tensor spline(Tensor x, Tensor values, double lo, double hi, bool linear) {
  return spline(x, values, grid_of(values, lo, hi, linear));
}

inline Tensor score_spline_attention(Tensor qkv, int64_t heads, Tensor g, double lo, double hi,
                                     bool linear, Tensor alibi_slopes = Tensor()) {
  return score_spline_attention(qkv, heads, g, grid_of(g, lo, hi, linear), alibi_slopes);
}

inline Tensor feature_spline_attention(Tensor qkv, int64_t heads, Tensor g, double lo, double hi,
                                       bool linear) {
  return feature_spline_attention(qkv, heads, g, grid_of(g, lo, hi, linear));
}

}  // namespace tapir
