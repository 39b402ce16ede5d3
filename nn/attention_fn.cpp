// The attention input function (nn/attention_fn.h).
#include "nn/attention_fn.h"

#include "autograd/ops.h"

namespace tapir {

SplineConfig default_attn_fn_spline() {
  SplineConfig c;
  c.grid = SplineGrid(64, -15.0, 15.0, /*linear=*/false);
  c.init = "const:0.01";
  return c;
}

Tensor attention_fn_input(Tensor n, Tensor gain, Tensor bias, Tensor values,
                          const SplineGrid& grid) {
  Tensor u = add(mul(n, gain), bias);
  return add(n, values.defined() ? spline(u, values, grid) : u);
}

AttentionFunction::AttentionFunction(Spline* f, bool f_is_child) : f_(f) {
  gain_ = &add_parameter("gain", Shape{}, /*decay=*/false);
  bias_ = &add_parameter("bias", Shape{}, /*decay=*/false);
  fill(gain_->tensor(), 1.0);
  if (f_ && f_is_child) add_child("f", *f_);
}

Tensor AttentionFunction::forward(Tensor n) {
  static const SplineGrid unused = default_attn_fn_spline().grid;  // f is the identity
  const SplineGrid& grid = f_ ? f_->config().grid : unused;
  return attention_fn_input(n, gain_->tensor(), bias_->tensor(),
                            f_ ? f_->values().tensor() : Tensor(), grid);
}

}  // namespace tapir
