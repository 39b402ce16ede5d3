// The op table: every differentiable op, with the cases that matter
// (broadcasting, transposes, masks, long sequences, spline ranges), one row
// each. Both op tests iterate it: test_gradcheck.cpp checks each row's
// gradients against central differences in f64 and its f32 values against
// f64 on the CPU; test_cuda_parity.cpp runs each row on the CPU and on CUDA
// and compares values and gradients. A registered op without a row fails
// test_gradcheck.cpp's coverage case, so a new op is one row here, and its
// name on the coverage lines of the kernel-level per-op tests, which the
// op_coverage test (cmake/checks/op_coverage.cmake) checks against this table.
#pragma once
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tests/op_inputs.h"
#include "tests/spline_ops.h"

namespace tapir::test {

// f32 tolerances of the CUDA parity check, relative to max(1, |cpu|, |cuda|)
// per element (the f64 tolerance is one for all rows, in the parity test).
// Elementwise maps: only libm differences (CUDA's expf, logf, tanhf, erff
// are within 2 ulp, ~2.4e-7 relative), plus one rounding of the update.
constexpr double kF32Map = 2e-6;
// Ops that sum (GEMM, reductions, broadcast gradients, softmax, layernorm,
// attention, spline knot gradients): a different summation order moves each
// sum by up to ~n * 6e-8 relative for n terms; the rows here sum at most
// ~100 terms of mixed sign, so 1e-4 is a bound, not an estimate.
constexpr double kF32Sum = 1e-4;

using OpFn = std::function<Tensor(const std::vector<Tensor>&)>;

struct OpCase {
  std::string op;  // registry name
  std::string label;
  std::vector<Input> inputs;
  OpFn fn;
  double f32_tol;  // CUDA parity in f32: kF32Map or kF32Sum (why: above)
};

inline std::string case_name(const OpCase& c) {
  return c.op + (c.label.empty() ? "" : " (" + c.label + ")");
}

inline std::vector<OpCase> op_cases() {
  using V = const std::vector<Tensor>&;
  std::vector<OpCase> c;
  // Elementwise binary: same shape, suffix broadcast both ways, scalar.
  const auto add_fn = [](V x) { return add(x[0], x[1]); };
  c.push_back({"add", "same shape", {U({2, 3}), U({2, 3})}, add_fn, kF32Map});
  c.push_back({"add", "suffix", {U({2, 3, 4}), U({4})}, add_fn, kF32Sum});
  c.push_back({"add", "prefix operand", {U({3, 4}), U({2, 3, 4})}, add_fn, kF32Sum});
  c.push_back({"add", "scalar", {U({2, 3}), U({})}, add_fn, kF32Sum});
  const auto sub_fn = [](V x) { return sub(x[0], x[1]); };
  c.push_back({"sub", "suffix", {U({2, 3, 4}), U({3, 4})}, sub_fn, kF32Sum});
  c.push_back({"sub", "prefix operand", {U({4}), U({3, 4})}, sub_fn, kF32Sum});
  c.push_back({"sub", "scalar", {U({2, 3}), U({})}, sub_fn, kF32Sum});
  const auto mul_fn = [](V x) { return mul(x[0], x[1]); };
  c.push_back({"mul", "same shape", {U({3, 5}), U({3, 5})}, mul_fn, kF32Map});
  c.push_back({"mul", "suffix", {U({2, 3, 4}), U({4})}, mul_fn, kF32Sum});
  c.push_back({"mul", "same tensor twice", {U({6})}, [](V x) { return mul(x[0], x[0]); }, kF32Map});
  const auto div_fn = [](V x) { return div(x[0], x[1]); };
  c.push_back({"div", "same shape", {U({2, 3}), P({2, 3})}, div_fn, kF32Map});
  c.push_back({"div", "suffix", {U({2, 3, 4}), P({4})}, div_fn, kF32Sum});
  c.push_back({"div", "scalar numerator", {P({}), P({2, 3})}, div_fn, kF32Sum});
  c.push_back({"affine", "", {U({2, 5})}, [](V x) { return affine(x[0], -1.7, 0.3); }, kF32Map});
  // Unary.
  c.push_back({"exp", "", {U({2, 5})}, [](V x) { return tapir::exp(x[0]); }, kF32Map});
  c.push_back({"log", "", {P({2, 5})}, [](V x) { return tapir::log(x[0]); }, kF32Map});
  c.push_back({"tanh", "", {U({2, 5})}, [](V x) { return tapir::tanh(x[0]); }, kF32Map});
  c.push_back({"sqrt", "", {P({2, 5})}, [](V x) { return tapir::sqrt(x[0]); }, kF32Map});
  c.push_back({"relu", "", {A({3, 7})}, [](V x) { return relu(x[0]); }, kF32Map});
  c.push_back({"gelu", "", {U({3, 7})}, [](V x) { return gelu(affine(x[0], 3.0)); }, kF32Map});
  // Matrix products: every transpose combination, 2-D, batched and shared.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const std::string flags = "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
      const auto fn = [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); };
      Shape a = ta ? Shape{4, 3} : Shape{3, 4}, b = tb ? Shape{5, 4} : Shape{4, 5};
      c.push_back({"matmul", "2-D " + flags, {U(a), U(b)}, fn, kF32Sum});
      Shape ba = ta ? Shape{2, 8, 6} : Shape{2, 6, 8}, sb = tb ? Shape{5, 8} : Shape{8, 5};
      Shape bb = tb ? Shape{2, 5, 8} : Shape{2, 8, 5};
      c.push_back({"matmul", "batched " + flags, {U(ba), U(bb)}, fn, kF32Sum});
      c.push_back({"matmul", "shared b " + flags, {U(ba), U(sb)}, fn, kF32Sum});
    }
  c.push_back({"matmul",
               "4-D batch",
               {U({2, 2, 3, 4}), U({2, 2, 4, 3})},
               [](V x) { return matmul(x[0], x[1]); },
               kF32Sum});
  c.push_back({"linear",
               "bias",
               {U({2, 3, 16}), U({5, 16}), U({5})},
               [](V x) { return linear(x[0], x[1], x[2]); },
               kF32Sum});
  c.push_back({"linear",
               "no bias",
               {U({3, 4}), U({2, 4})},
               [](V x) { return linear(x[0], x[1]); },
               kF32Sum});
  c.push_back({"linear",
               "bias and residual",
               {U({2, 3, 16}), U({5, 16}), U({5}), U({2, 3, 5})},
               [](V x) { return linear(x[0], x[1], x[2], x[3]); },
               kF32Sum});
  c.push_back({"linear",
               "residual, no bias",
               {U({3, 4}), U({2, 4}), U({3, 2})},
               [](V x) { return linear(x[0], x[1], Tensor(), x[2]); },
               kF32Sum});
  // The first backward to reach x overwrites its fresh gradient buffer, the
  // second adds to it.
  c.push_back({"linear",
               "input shared by two layers",
               {U({3, 4}), U({2, 4}), U({2, 4})},
               [](V x) { return add(linear(x[0], x[1]), linear(x[0], x[2])); },
               kF32Sum});
  // Reductions.
  for (int axis : {0, 1, 2, -1})
    c.push_back({"sum",
                 "axis " + std::to_string(axis),
                 {U({4, 6, 5})},
                 [axis](V x) { return sum(x[0], axis); },
                 kF32Sum});
  c.push_back({"mean", "axis 1", {U({2, 7, 4})}, [](V x) { return mean(x[0], 1); }, kF32Sum});
  c.push_back({"mean", "last", {U({3, 5})}, [](V x) { return mean(x[0], -1); }, kF32Sum});
  c.push_back({"sum_all", "", {U({3, 40})}, [](V x) { return sum_all(x[0]); }, kF32Sum});
  c.push_back({"max_last", "", {U({4, 9})}, [](V x) { return max_last(x[0]); }, kF32Map});
  // Softmax family and the fused cross-entropy.
  c.push_back(
      {"softmax", "", {U({2, 3, 17})}, [](V x) { return softmax(affine(x[0], 2.0)); }, kF32Sum});
  c.push_back({"log_softmax",
               "",
               {U({2, 3, 17})},
               [](V x) { return log_softmax(affine(x[0], 2.0)); },
               kF32Sum});
  c.push_back({"cross_entropy",
               "unmasked",
               {U({2, 3, 11}), Ids({2, 3}, 11)},
               [](V x) { return cross_entropy(affine(x[0], 3.0), x[1]); },
               kF32Sum});
  c.push_back({"cross_entropy",
               "masked",
               {U({4, 5, 11}), Ids({4, 5}, 11), Mask({4, 5})},
               [](V x) { return cross_entropy(affine(x[0], 3.0), x[1], x[2]); },
               kF32Sum});
  // Normalisation and lookup.
  c.push_back({"layernorm",
               "",
               {U({2, 3, 24}), U({24}), U({24})},
               [](V x) { return layernorm(affine(x[0], 2.0, 0.5), x[1], x[2]); },
               kF32Sum});
  c.push_back({"layernorm",
               "no bias",
               {U({3, 16}), U({16})},
               [](V x) { return layernorm(affine(x[0], 2.0, 0.5), x[1], Tensor()); },
               kF32Sum});
  c.push_back({"rmsnorm",
               "weight",
               {U({2, 3, 24}), U({24})},
               [](V x) { return rmsnorm(affine(x[0], 2.0, 0.5), x[1], 1e-5); },
               kF32Sum});
  c.push_back({"rmsnorm",
               "no weight, eps of f32 (QK norm)",
               {U({2, 5, 4, 8})},
               [](V x) { return rmsnorm(x[0], Tensor(), 1.1920929e-7); },
               kF32Sum});
  // Rotary positions: the usual base, and a small one that turns every pair
  // by more than a full circle over the sequence.
  c.push_back(
      {"rope", "base 10000", {U({2, 6, 3, 8})}, [](V x) { return rope(x[0], 10000.0); }, kF32Map});
  c.push_back(
      {"rope", "base 2, D = 2", {U({1, 9, 2, 2})}, [](V x) { return rope(x[0], 2.0); }, kF32Map});
  c.push_back({"embedding",
               "repeated ids",
               {U({5, 8}), Ids({4, 6}, 5)},
               [](V x) { return embedding(x[0], x[1]); },
               kF32Sum});
  // Layout.
  c.push_back({"reshape",
               "",
               {U({2, 3, 4})},
               [](V x) {
                 return mul(reshape(x[0], {6, 4}), reshape(x[0], {6, 4}));
               },
               kF32Map});
  c.push_back({"transpose", "3-D", {U({2, 3, 4})}, [](V x) { return transpose(x[0]); }, kF32Map});
  c.push_back({"concat",
               "middle axis",
               {U({2, 3, 4}), U({2, 1, 4}), U({2, 2, 4})},
               [](V x) {
                 return concat({x[0], x[1], x[2]}, 1);
               },
               kF32Map});
  c.push_back({"concat",
               "last axis",
               {U({3, 2}), U({3, 5})},
               [](V x) {
                 return concat({x[0], x[1]}, -1);
               },
               kF32Map});
  c.push_back(
      {"slice", "middle axis", {U({2, 5, 3})}, [](V x) { return slice(x[0], 1, 1, 4); }, kF32Map});
  c.push_back(
      {"slice", "first axis", {U({4, 3})}, [](V x) { return slice(x[0], 0, 2, 4); }, kF32Map});
  c.push_back({"masked_fill",
               "causal",
               {U({2, 4, 4}), Causal(4)},
               [](V x) { return masked_fill(x[0], x[1], -3.0); },
               kF32Map});
  // Attention.
  c.push_back({"attention",
               "2 heads",
               {U({2, 7, 24})},
               [](V x) { return attention(affine(x[0], 2.0), 2); },
               kF32Sum});
  c.push_back({"attention",
               "one head, T = 1",
               {U({3, 1, 6})},
               [](V x) { return attention(x[0], 1); },
               kF32Sum});
  c.push_back({"attention",
               "ALiBi slopes",
               {U({2, 5, 18}), Const({3})},
               [](V x) { return attention(affine(x[0], 2.0), 3, x[1]); },
               kF32Sum});
  // From T = 32 on the CPU kernel's products run through BLAS (kBlasMinT in
  // engine/cpu/attention.cpp).
  c.push_back({"attention",
               "T = 33, ALiBi",
               {U({1, 33, 12}), Const({2})},
               [](V x) { return attention(affine(x[0], 2.0), 2, x[1]); },
               kF32Sum});
  // A fixed polynomial (the poly activation): unclamped, and clamped to its
  // range [-1, 1] with inputs on both sides of it, never at its ends.
  c.push_back({"poly",
               "",
               {U({3, 7}), Const({5})},
               [](V x) { return poly(x[0], x[1], 1.5, 0.2, false); },
               kF32Sum});
  c.push_back({"poly",
               "clamped",
               {OffKnots({3, 8}, 5, -1.0, 1.0), Const({5})},
               [](V x) { return poly(x[0], x[1], 1.0, 0.0, true); },
               kF32Sum});
  // Learned nonlinearities: the spline, and attention with a score spline or
  // a feature spline (7 or 9 knots, so that values cross many intervals).
  for (bool linear : {true, false}) {
    const std::string mode = linear ? "linear extrapolation" : "constant extrapolation";
    c.push_back({"spline",
                 mode,
                 {OffKnots({3, 8}, 7, -1.0, 1.0), U({7})},
                 [linear](V x) { return spline(x[0], x[1], -1.0, 1.0, linear); },
                 kF32Sum});
    c.push_back({"score_spline_attention",
                 "shared g, " + mode,
                 {U({2, 5, 12}), U({9})},
                 [linear](V x) {
                   return score_spline_attention(affine(x[0], 2.0), 2, x[1], -2.0, 2.0, linear);
                 },
                 kF32Sum});
    c.push_back({"feature_spline_attention",
                 mode,
                 {OffKnots({2, 5, 12}, 7, -1.0, 1.0), U({7})},
                 [linear](V x) {
                   return feature_spline_attention(x[0], 2, affine(x[1], 2.0), -1.0, 1.0, linear);
                 },
                 kF32Sum});
  }
  c.push_back({"spline",
               "input only, wide range",
               {OffKnots({4, 5}, 121, -20.0, 20.0)},
               [](V x) {
                 Tensor v = empty({121}, DType::f64, Device::cpu);
                 for (int64_t k = 0; k < 121; ++k) v.host_data<double>()[k] = std::sin(0.3 * k);
                 return spline(x[0], to_device(cast(v, x[0].dtype()), x[0].device()), -20.0, 20.0,
                               true);
               },
               kF32Sum});
  c.push_back(
      {"score_spline_attention",
       "T = 33",
       {U({1, 33, 6}), U({9})},
       [](V x) { return score_spline_attention(affine(x[0], 2.0), 1, x[1], -2.0, 2.0, true); },
       kF32Sum});
  c.push_back({"score_spline_attention",
               "per head, ALiBi",
               {U({2, 4, 18}), U({3, 9}), Const({3})},
               [](V x) {
                 return score_spline_attention(affine(x[0], 2.0), 3, x[1], -2.0, 2.0, true, x[2]);
               },
               kF32Sum});
  // Only the spline learns (a frozen projection, or qkv from a constant).
  c.push_back(
      {"score_spline_attention",
       "spline values only",
       {{Shape{2, 4, 12}, Kind::uniform, false, 0}, U({9})},
       [](V x) { return score_spline_attention(affine(x[0], 2.0), 2, x[1], -2.0, 2.0, true); },
       kF32Sum});
  c.push_back({"feature_spline_attention",
               "spline values only",
               {{Shape{2, 4, 12}, Kind::off_knots, false, 7, -1.0, 1.0}, U({7})},
               [](V x) { return feature_spline_attention(x[0], 2, x[1], -1.0, 1.0, true); },
               kF32Sum});
  c.push_back({"feature_spline_attention",
               "one head, T = 1",
               {OffKnots({3, 1, 6}, 7, -1.0, 1.0), U({7})},
               [](V x) { return feature_spline_attention(x[0], 1, x[1], -1.0, 1.0, true); },
               kF32Sum});
  return c;
}

}  // namespace tapir::test
