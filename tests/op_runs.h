// One row of the op table (tests/op_table.h) run forward and backward, and
// two such runs compared: what the parity tests share (CPU against CUDA in
// test_cuda_parity.cpp, tuned against reference kernels in
// test_reference_parity.cpp).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tests/op_table.h"

namespace tapir::test {

// The output's values and the gradients of L = sum(y * w) (w fixed) for
// every input that takes one, read back to the host.
struct OpRun {
  std::vector<double> values;
  std::vector<std::vector<double>> grads;
};

inline std::vector<double> host_values(Tensor t) {
  const Tensor h = to_host(t);
  std::vector<double> out(static_cast<size_t>(h.numel()));
  for (int64_t i = 0; i < h.numel(); ++i) out[static_cast<size_t>(i)] = h.item(i);
  return out;
}

// Runs row c on copies of the host inputs moved to `device` (fresh handles,
// so no gradient of an earlier run is seen), with the kernels the caller
// has set.
inline OpRun run_op_case(const OpCase& c, const std::vector<Tensor>& host_inputs, Tensor host_w,
                         Device device) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < host_inputs.size(); ++k) {
    Tensor t = to_device(host_inputs[k], device);
    if (t.impl() == host_inputs[k].impl()) t = alias(t, t.shape());  // a fresh handle
    t.set_requires_grad(c.inputs[k].grad);
    inputs.push_back(t);
  }
  Tensor y = c.fn(inputs);
  OpRun r;
  r.values = host_values(y);
  backward(sum_all(mul(y, to_device(host_w, device))));
  for (const Tensor& t : inputs)
    r.grads.push_back(t.requires_grad() && t.has_grad() ? host_values(grad_view(t))
                                                        : std::vector<double>());
  return r;
}

inline double rel_diff(double a, double b) {
  return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Fails unless every element of got is within tol of want, relative to
// max(1, |got|, |want|) (a NaN on either side is a failure), naming the
// worst element.
inline void check_close(const std::string& what, const std::vector<double>& want,
                        const std::vector<double>& got, double tol, const char* want_name,
                        const char* got_name) {
  REQUIRE(want.size() == got.size());
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double e = rel_diff(want[i], got[i]);
    if (e > worst || std::isnan(e)) {
      worst = std::isnan(e) ? INFINITY : e;
      at = i;
    }
  }
  INFO(what << ": max error " << worst << " at element " << at << " (" << want_name << " "
            << (want.empty() ? 0.0 : want[at]) << ", " << got_name << " "
            << (got.empty() ? 0.0 : got[at]) << ")");
  CHECK(worst <= tol);
}

// Both runs of row c (values, then each input's gradient) within tol.
inline void check_runs_close(const std::string& name, const OpRun& want, const OpRun& got,
                             double tol, const char* want_name, const char* got_name) {
  check_close(name + " values", want.values, got.values, tol, want_name, got_name);
  for (size_t k = 0; k < want.grads.size(); ++k)
    check_close(name + " gradient of input " + std::to_string(k), want.grads[k], got.grads[k], tol,
                want_name, got_name);
}

}  // namespace tapir::test
