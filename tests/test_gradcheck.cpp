// The gradcheck table: every differentiable op, with every case that matters
// (broadcasting, transposes, masks), checked against central differences in
// f64, and its f32 forward and backward checked against the f64 ones. An op
// in the registry without an entry here fails the coverage test.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "engine/rng.h"
#include "tests/op_inputs.h"
#include "tests/spline_ops.h"

using namespace tapir;
using namespace tapir::test;

namespace {

// Tolerance of the f64 finite-difference check (eps = 1e-6, central
// differences: truncation ~1e-12, rounding ~1e-10 relative to the values).
constexpr double kGradcheckTol = 1e-6;
// f32 values and gradients against the f64 ones, relative to max(1, |x|).
constexpr double kF32Tol = 2e-5;

struct Case {
  std::string op;  // registry name
  std::string label;
  std::vector<Input> inputs;
  GradcheckFn fn;
};

// A gradcheck input: the table's values, needing a gradient as the entry says.
Tensor gradcheck_input(const Input& in, DType float_type, Rng& rng) {
  Tensor t = make_input(in, float_type, rng);
  t.impl()->requires_grad = in.grad;
  return t;
}

std::vector<Case> cases() {
  using V = const std::vector<Tensor>&;
  std::vector<Case> c;
  // Elementwise binary: same shape, suffix broadcast both ways, scalar.
  c.push_back({"add", "same shape", {U({2, 3}), U({2, 3})}, [](V x) { return add(x[0], x[1]); }});
  c.push_back({"add", "suffix", {U({2, 3, 4}), U({4})}, [](V x) { return add(x[0], x[1]); }});
  c.push_back(
      {"add", "prefix operand", {U({3, 4}), U({2, 3, 4})}, [](V x) { return add(x[0], x[1]); }});
  c.push_back({"add", "scalar", {U({2, 3}), U({})}, [](V x) { return add(x[0], x[1]); }});
  c.push_back({"sub", "suffix", {U({2, 3, 4}), U({3, 4})}, [](V x) { return sub(x[0], x[1]); }});
  c.push_back({"sub", "prefix operand", {U({4}), U({3, 4})}, [](V x) { return sub(x[0], x[1]); }});
  c.push_back({"mul", "same shape", {U({3, 5}), U({3, 5})}, [](V x) { return mul(x[0], x[1]); }});
  c.push_back({"mul", "suffix", {U({2, 3, 4}), U({4})}, [](V x) { return mul(x[0], x[1]); }});
  c.push_back({"mul", "same tensor twice", {U({6})}, [](V x) { return mul(x[0], x[0]); }});
  c.push_back({"div", "same shape", {U({2, 3}), P({2, 3})}, [](V x) { return div(x[0], x[1]); }});
  c.push_back({"div", "suffix", {U({2, 3, 4}), P({4})}, [](V x) { return div(x[0], x[1]); }});
  c.push_back({"div", "scalar numerator", {P({}), P({2, 3})}, [](V x) { return div(x[0], x[1]); }});
  c.push_back({"affine", "", {U({2, 5})}, [](V x) { return affine(x[0], -1.7, 0.3); }});
  // Unary.
  c.push_back({"exp", "", {U({2, 5})}, [](V x) { return tapir::exp(x[0]); }});
  c.push_back({"log", "", {P({2, 5})}, [](V x) { return tapir::log(x[0]); }});
  c.push_back({"tanh", "", {U({2, 5})}, [](V x) { return tapir::tanh(x[0]); }});
  c.push_back({"sqrt", "", {P({2, 5})}, [](V x) { return tapir::sqrt(x[0]); }});
  c.push_back({"relu", "", {A({3, 7})}, [](V x) { return relu(x[0]); }});
  c.push_back({"gelu", "", {U({3, 7})}, [](V x) { return gelu(affine(x[0], 3.0)); }});
  // Matrix products: every transpose combination, batched and shared.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Shape a = ta ? Shape{4, 3} : Shape{3, 4}, b = tb ? Shape{5, 4} : Shape{4, 5};
      c.push_back({"matmul",
                   "2-D ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                   {U(a), U(b)},
                   [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); }});
      Shape ba = ta ? Shape{2, 4, 3} : Shape{2, 3, 4}, bb = tb ? Shape{2, 5, 4} : Shape{2, 4, 5};
      c.push_back({"matmul",
                   "batched ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                   {U(ba), U(bb)},
                   [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); }});
      c.push_back({"matmul",
                   "shared b ta=" + std::to_string(ta) + " tb=" + std::to_string(tb),
                   {U(ba), U(b)},
                   [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); }});
    }
  c.push_back({"linear", "bias", {U({2, 3, 4}), U({5, 4}), U({5})}, [](V x) {
                 return linear(x[0], x[1], x[2]);
               }});
  c.push_back(
      {"linear", "no bias", {U({3, 4}), U({2, 4})}, [](V x) { return linear(x[0], x[1]); }});
  c.push_back(
      {"linear", "bias and residual", {U({2, 3, 4}), U({5, 4}), U({5}), U({2, 3, 5})}, [](V x) {
         return linear(x[0], x[1], x[2], x[3]);
       }});
  c.push_back({"linear", "residual, no bias", {U({3, 4}), U({2, 4}), U({3, 2})}, [](V x) {
                 return linear(x[0], x[1], Tensor(), x[2]);
               }});
  // The first backward to reach x overwrites its fresh gradient buffer, the
  // second adds to it.
  c.push_back({"linear", "input shared by two layers", {U({3, 4}), U({2, 4}), U({2, 4})}, [](V x) {
                 return add(linear(x[0], x[1]), linear(x[0], x[2]));
               }});
  c.push_back({"matmul", "4-D batch", {U({2, 2, 3, 4}), U({2, 2, 4, 3})}, [](V x) {
                 return matmul(x[0], x[1]);
               }});
  // Reductions.
  for (int axis : {0, 1, 2, -1})
    c.push_back({"sum", "axis " + std::to_string(axis), {U({2, 3, 4})}, [axis](V x) {
                   return sum(x[0], axis);
                 }});
  c.push_back({"mean", "axis 1", {U({2, 3, 4})}, [](V x) { return mean(x[0], 1); }});
  c.push_back({"mean", "last", {U({3, 5})}, [](V x) { return mean(x[0], -1); }});
  c.push_back({"sum_all", "", {U({2, 3, 4})}, [](V x) { return sum_all(x[0]); }});
  c.push_back({"max_last", "", {U({3, 6})}, [](V x) { return max_last(x[0]); }});
  // Softmax family and the fused cross-entropy.
  c.push_back({"softmax", "", {U({2, 3, 5})}, [](V x) { return softmax(affine(x[0], 2.0)); }});
  c.push_back(
      {"log_softmax", "", {U({2, 3, 5})}, [](V x) { return log_softmax(affine(x[0], 2.0)); }});
  c.push_back({"cross_entropy", "unmasked", {U({2, 3, 7}), Ids({2, 3}, 7)}, [](V x) {
                 return cross_entropy(affine(x[0], 3.0), x[1]);
               }});
  c.push_back({"cross_entropy", "masked", {U({4, 5, 7}), Ids({4, 5}, 7), Mask({4, 5})}, [](V x) {
                 return cross_entropy(affine(x[0], 3.0), x[1], x[2]);
               }});
  // Normalisation and lookup.
  c.push_back({"layernorm", "", {U({2, 3, 8}), U({8}), U({8})}, [](V x) {
                 return layernorm(affine(x[0], 2.0, 0.5), x[1], x[2]);
               }});
  c.push_back({"embedding", "repeated ids", {U({5, 4}), Ids({3, 6}, 5)}, [](V x) {
                 return embedding(x[0], x[1]);
               }});
  // Layout.
  c.push_back({"reshape", "", {U({2, 3, 4})}, [](V x) {
                 return mul(reshape(x[0], {6, 4}), reshape(x[0], {6, 4}));
               }});
  c.push_back({"transpose", "3-D", {U({2, 3, 4})}, [](V x) { return transpose(x[0]); }});
  c.push_back({"concat", "middle axis", {U({2, 3, 4}), U({2, 1, 4}), U({2, 2, 4})}, [](V x) {
                 return concat({x[0], x[1], x[2]}, 1);
               }});
  c.push_back({"concat", "last axis", {U({3, 2}), U({3, 5})}, [](V x) {
                 return concat({x[0], x[1]}, -1);
               }});
  c.push_back({"slice", "middle axis", {U({2, 5, 3})}, [](V x) { return slice(x[0], 1, 1, 4); }});
  c.push_back({"slice", "first axis", {U({4, 3})}, [](V x) { return slice(x[0], 0, 2, 4); }});
  c.push_back({"attention", "2 heads", {U({2, 5, 12})}, [](V x) {
                 return attention(affine(x[0], 2.0), 2);
               }});
  c.push_back(
      {"attention", "one head, T = 1", {U({3, 1, 6})}, [](V x) { return attention(x[0], 1); }});
  c.push_back(
      {"attention", "ALiBi slopes", {U({2, 4, 18}), {Shape{3}, Kind::positive, false, 0}}, [](V x) {
         return attention(affine(x[0], 2.0), 3, x[1]);
       }});
  // From T = 32 on the kernel's products run through BLAS (kBlasMinT in
  // engine/cpu/attention.cpp).
  c.push_back({"attention",
               "T = 33, ALiBi",
               {U({1, 33, 12}), {Shape{2}, Kind::positive, false, 0}},
               [](V x) { return attention(affine(x[0], 2.0), 2, x[1]); }});
  // Learned nonlinearities: the spline, and attention with a score spline or
  // a feature spline (7 or 9 knots, so that values cross many intervals).
  for (bool linear : {true, false}) {
    const std::string mode = linear ? "linear extrapolation" : "constant extrapolation";
    c.push_back({"spline", mode, {OffKnots({3, 8}, 7, -1.0, 1.0), U({7})}, [linear](V x) {
                   return spline(x[0], x[1], -1.0, 1.0, linear);
                 }});
    std::string shared = "shared g, ";
    shared += mode;
    c.push_back({"score_spline_attention", shared, {U({2, 5, 12}), U({9})}, [linear](V x) {
                   return score_spline_attention(affine(x[0], 2.0), 2, x[1], -2.0, 2.0, linear);
                 }});
    c.push_back({"feature_spline_attention",
                 mode,
                 {OffKnots({2, 5, 12}, 7, -1.0, 1.0), U({7})},
                 [linear](V x) {
                   return feature_spline_attention(x[0], 2, affine(x[1], 2.0), -1.0, 1.0, linear);
                 }});
  }
  c.push_back({"spline", "input only, wide range", {OffKnots({4, 5}, 121, -20.0, 20.0)}, [](V x) {
                 Tensor v = empty({121}, DType::f64);
                 for (int64_t k = 0; k < 121; ++k) v.data<double>()[k] = std::sin(0.3 * k);
                 return spline(x[0], cast(v, x[0].dtype()), -20.0, 20.0, true);
               }});
  c.push_back({"score_spline_attention", "T = 33", {U({1, 33, 6}), U({9})}, [](V x) {
                 return score_spline_attention(affine(x[0], 2.0), 1, x[1], -2.0, 2.0, true);
               }});
  c.push_back({"score_spline_attention",
               "per head, ALiBi",
               {U({2, 4, 18}), U({3, 9}), {Shape{3}, Kind::positive, false, 0}},
               [](V x) {
                 return score_spline_attention(affine(x[0], 2.0), 3, x[1], -2.0, 2.0, true, x[2]);
               }});
  // Only the spline learns (a frozen projection, or qkv from a constant).
  c.push_back(
      {"score_spline_attention",
       "spline values only",
       {{Shape{2, 4, 12}, Kind::uniform, false, 0}, U({9})},
       [](V x) { return score_spline_attention(affine(x[0], 2.0), 2, x[1], -2.0, 2.0, true); }});
  c.push_back({"feature_spline_attention",
               "spline values only",
               {{Shape{2, 4, 12}, Kind::off_knots, false, 7, -1.0, 1.0}, U({7})},
               [](V x) { return feature_spline_attention(x[0], 2, x[1], -1.0, 1.0, true); }});
  c.push_back({"feature_spline_attention",
               "one head, T = 1",
               {OffKnots({3, 1, 6}, 7, -1.0, 1.0), U({7})},
               [](V x) { return feature_spline_attention(x[0], 1, x[1], -1.0, 1.0, true); }});
  c.push_back({"masked_fill", "causal", {U({2, 4, 4}), Causal(4)}, [](V x) {
                 return masked_fill(x[0], x[1], -3.0);
               }});
  return c;
}

std::string case_name(const Case& c) {
  return c.op + (c.label.empty() ? "" : " (" + c.label + ")");
}

double rel_diff(double a, double b) {
  return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

}  // namespace

TEST_CASE("every registered op has a gradcheck entry") {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.op);
  for (const OpInfo* op : op_registry()) {
    INFO("op without a gradcheck entry: " << op->name);
    CHECK(covered.count(op->name) == 1);
  }
  std::set<std::string> registered;
  for (const OpInfo* op : op_registry()) registered.insert(op->name);
  for (const std::string& name : covered) {
    INFO("gradcheck entry for an unregistered op: " << name);
    CHECK(registered.count(name) == 1);
  }
}

TEST_CASE("gradcheck table: f64 central differences") {
  for (const Case& c : cases()) {
    Rng rng(42, 0);
    std::vector<Tensor> inputs;
    for (const Input& in : c.inputs) inputs.push_back(gradcheck_input(in, DType::f64, rng));
    GradcheckResult r = gradcheck(c.fn, inputs);
    INFO(case_name(c) << ": max error " << r.max_error << " at " << r.worst);
    CHECK(r.checked > 0);
    CHECK(r.max_error < kGradcheckTol);
    reset_step();
  }
}

TEST_CASE("gradcheck table: f32 forward and backward agree with f64") {
  for (const Case& c : cases()) {
    std::vector<Tensor> outs, grads_of[2];
    Tensor out[2];
    std::vector<Tensor> inputs[2];
    for (int k = 0; k < 2; ++k) {
      Rng rng(42, 0);
      for (const Input& in : c.inputs)
        inputs[k].push_back(gradcheck_input(in, k == 0 ? DType::f64 : DType::f32, rng));
      out[k] = c.fn(inputs[k]);
      backward(sum_all(out[k]));
    }
    INFO(case_name(c));
    REQUIRE(out[0].shape() == out[1].shape());
    double worst = 0;
    for (int64_t i = 0; i < out[0].numel(); ++i)
      worst = std::max(worst, rel_diff(out[0].item(i), out[1].item(i)));
    for (size_t j = 0; j < inputs[0].size(); ++j) {
      if (!inputs[0][j].requires_grad()) continue;
      Tensor g64 = inputs[0][j], g32 = inputs[1][j];
      for (int64_t i = 0; i < g64.numel(); ++i)
        worst = std::max(worst, rel_diff(g64.grad<double>()[i], g32.grad<float>()[i]));
    }
    CHECK(worst < kF32Tol);
    reset_step();
  }
}
