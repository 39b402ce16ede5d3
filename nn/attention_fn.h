// The attention input function of Teney et al.'s models (their learned
// "attention activation function"): before the Q/K/V projection, a block's
// normalised attention input n becomes
//   n + f(a * n + b)
// with a learned scalar gain a and bias b per block (trained with the
// weights) and f the identity or a learned spline (nn/spline.h), one per
// block or one shared by all. It is not a kernel on the query-key scores
// (that is --attn score-spline / feature-spline). docs/model.md gives the
// exact forward pass and parameters.
#pragma once
#include <utility>

#include "base/names.h"
#include "nn/spline.h"

namespace tapir {

enum class AttnFn { off, identity, spline };
template <>
struct Names<AttnFn> {
  static constexpr const char* what = "attention function";
  static constexpr std::pair<AttnFn, const char*> table[] = {
      {AttnFn::off, "off"}, {AttnFn::identity, "identity"}, {AttnFn::spline, "spline"}};
};

// The authors' spline: 64 knots on [-15, 15], constant outside, every knot
// starting at 0.01, one per block.
SplineConfig default_attn_fn_spline();

// n + f(gain * n + bias) for gain and bias of shape (); f is the spline of
// `values` on `grid`, or the identity when `values` is undefined.
Tensor attention_fn_input(Tensor n, Tensor gain, Tensor bias, Tensor values,
                          const SplineGrid& grid);

// One block's gain ("gain", init 1) and bias ("bias", init 0), and its
// function f: a spline registered as the child "f" when it belongs to this
// block alone, a shared one owned by the model, or none (the identity).
class AttentionFunction : public Module {
 public:
  AttentionFunction(Spline* f, bool f_is_child);
  Tensor forward(Tensor n);

 private:
  Parameter* gain_;
  Parameter* bias_;
  Spline* f_;
};

}  // namespace tapir
