// The differentiable op API. Each op checks its inputs (a bad shape or dtype
// is a one-line tapir::Error), allocates its output in the step arena, runs
// the kernel for its inputs' device (engine/dispatch.h) and, in grad mode,
// records a tape node whose backward sits next to the forward in
// autograd/ops_*.cpp.
//
// Float ops accept f32 or f64 (all float operands must share the dtype);
// ids, targets and masked_fill's mask are i32, cross_entropy's mask is
// float in the logits' dtype.
#pragma once
#include <initializer_list>

#include "autograd/tape.h"
#include "engine/kernel_types.h"

namespace tapir {

// --- elementwise (ops_elementwise.cpp) -----------------------------------------
// Binary ops broadcast a suffix: one operand's shape must equal the trailing
// dimensions of the other's, e.g. (B, T, C) + (C), or either may be a scalar
// of shape ().
Tensor add(Tensor a, Tensor b);
Tensor sub(Tensor a, Tensor b);
Tensor mul(Tensor a, Tensor b);
Tensor div(Tensor a, Tensor b);
// a * scale + shift with constant scale and shift.
Tensor affine(Tensor a, double scale, double shift = 0.0);
// sum_k c_k t^k with t = x * scale + shift, t clamped to [-1, 1] when `clamp`;
// coefficients (D + 1), constants of x's dtype (autograd/ops_poly.cpp).
Tensor poly(Tensor x, Tensor coefficients, double scale, double shift, bool clamp);
Tensor exp(Tensor x);
Tensor log(Tensor x);
Tensor tanh(Tensor x);
Tensor sqrt(Tensor x);
Tensor relu(Tensor x);
// Exact GeLU: 0.5 x (1 + erf(x / sqrt 2)) (not the tanh approximation).
Tensor gelu(Tensor x);

// --- matrix products (ops_matmul.cpp) ------------------------------------------
// op(a) op(b), op = optional transpose of the last two axes.
//   a (..., M, K) with b (K, N): one GEMM over the flattened leading dims;
//   a (..., M, K) with b (..., K, N), same leading dims: a batch of GEMMs.
// Result (..., M, N).
Tensor matmul(Tensor a, Tensor b, bool trans_a = false, bool trans_b = false);
// A fully connected layer, fused: x (..., in), weight (out, in), optional
// bias (out), optional residual (..., out) -> residual + x weight^T + bias,
// (..., out). With a residual, a block's "x + proj(o)" is one op: no
// separate output of the projection, and one pass less over the rows.
Tensor linear(Tensor x, Tensor weight, Tensor bias = Tensor(), Tensor residual = Tensor());

// --- reductions (ops_reduce.cpp) -----------------------------------------------
Tensor sum(Tensor x, int axis);   // removes the axis
Tensor mean(Tensor x, int axis);  // removes the axis
Tensor sum_all(Tensor x);         // shape ()
Tensor max_last(Tensor x);        // max over the last axis; ties go to the first index

// --- softmax family (ops_softmax.cpp) ------------------------------------------
Tensor softmax(Tensor x);      // over the last axis
Tensor log_softmax(Tensor x);  // over the last axis
// Mean cross-entropy of logits (..., V) against i32 targets (...) in [0, V).
// With a mask (same shape as targets, the logits' dtype, weights >= 0) the
// mean is sum(mask * loss) / sum(mask); all-zero mask gives 0.
Tensor cross_entropy(Tensor logits, Tensor targets, Tensor mask = Tensor());

// --- normalisation and lookup --------------------------------------------------
// Over the last axis: (x - mean) / sqrt(var + eps) * weight + bias, biased
// var; bias may be undefined (none).
Tensor layernorm(Tensor x, Tensor weight, Tensor bias, double eps = 1e-5);
// Over the last axis: x / sqrt(mean(x^2) + eps) * weight; weight may be
// undefined (none).
Tensor rmsnorm(Tensor x, Tensor weight, double eps);
// table (V, C) gathered at i32 ids (...) -> (..., C). Ids out of range fail.
Tensor embedding(Tensor table, Tensor ids);

// --- attention (ops_attention.cpp) -------------------------------------------
// Fused causal multi-head self-attention on packed qkv (B, T, 3C) -> (B, T, C)
// (see engine/kernel_list.inc for the exact formula). alibi_slopes: optional
// (heads) tensor of ALiBi slopes, the same dtype as qkv; it gets no gradient.
Tensor attention(Tensor qkv, int64_t heads, Tensor alibi_slopes = Tensor());

// --- learned nonlinearities (ops_spline.cpp, ops_attention.cpp) ---------------
// A linear spline on `grid` (engine/kernel_types.h: K knots on [lo, hi] and
// the extrapolation outside): values (K), one per knot, linear
// interpolation between them. Elementwise on x; differentiable in x and in
// the values (see engine/kernel_list.inc).
Tensor spline(Tensor x, Tensor values, const SplineGrid& grid);
// Attention with a learned score kernel: p_ij proportional to exp(g(s_ij))
// over the allowed j, g a linear spline of the score (values (K), or
// (heads, K) for one spline per head). With g the identity it is attention().
Tensor score_spline_attention(Tensor qkv, int64_t heads, Tensor g_values, const SplineGrid& grid,
                              Tensor alibi_slopes = Tensor());
// Causal linear attention with the feature kernel phi(q) . phi(k),
// phi = softplus(g) + 1e-4 elementwise, g a linear spline (values (K)).
// O(T) memory: running sums, never a T x T array.
Tensor feature_spline_attention(Tensor qkv, int64_t heads, Tensor g_values, const SplineGrid& grid);

// --- positions (ops_positions.cpp) ---------------------------------------------
// Rotary position embedding of x (B, T, G, D), D even: the D-vector at
// position t (axis 1) rotated pairwise, pair i = (x[i], x[i + D/2]) by angle
// t * base^(-2i/D) (engine/kernel_list.inc has the exact formula).
Tensor rope(Tensor x, double base);

// --- layout (ops_layout.cpp) ---------------------------------------------------
Tensor reshape(Tensor x, const Shape& shape);                  // a view: no copy of the data
Tensor transpose(Tensor x);                                    // swaps the last two axes (copies)
Tensor concat(std::initializer_list<Tensor> parts, int axis);  // at most 4 parts
Tensor slice(Tensor x, int axis, int64_t begin, int64_t end);  // [begin, end) on axis
// Where the i32 mask (a suffix of x's shape) is non-zero, out = value.
Tensor masked_fill(Tensor x, Tensor mask, double value);

}  // namespace tapir
