// The op table (tests/op_table.h) on the CPU: every row's gradients checked
// against central differences in f64, and its f32 forward and backward
// checked against the f64 ones. An op in the registry without a row in the
// table fails the coverage test (test_cuda_parity.cpp runs the same rows on
// CUDA).
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "engine/rng.h"
#include "tests/op_table.h"

using namespace tapir;
using namespace tapir::test;

namespace {

// Tolerance of the f64 finite-difference check (eps = 1e-6, central
// differences: truncation ~1e-12, rounding ~1e-10 relative to the values).
constexpr double kGradcheckTol = 1e-6;
// f32 values and gradients against the f64 ones, relative to max(1, |x|).
constexpr double kF32Tol = 2e-5;

// A gradcheck input: the table's values, needing a gradient as the entry says.
Tensor gradcheck_input(const Input& in, DType float_type, Rng& rng) {
  Tensor t = make_input(in, float_type, rng);
  t.set_requires_grad(in.grad);
  return t;
}

double rel_diff(double a, double b) {
  return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

}  // namespace

TEST_CASE("every registered op has a row in the op table") {
  std::set<std::string> covered;
  for (const OpCase& c : op_cases()) covered.insert(c.op);
  for (const OpInfo* op : op_registry()) {
    INFO("op without a row in tests/op_table.h: " << op->name);
    CHECK(covered.count(op->name) == 1);
  }
  std::set<std::string> registered;
  for (const OpInfo* op : op_registry()) registered.insert(op->name);
  for (const std::string& name : covered) {
    INFO("op table row for an unregistered op: " << name);
    CHECK(registered.count(name) == 1);
  }
}

TEST_CASE("op table: f64 central differences") {
  for (const OpCase& c : op_cases()) {
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

TEST_CASE("op table: f32 forward and backward agree with f64") {
  for (const OpCase& c : op_cases()) {
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
