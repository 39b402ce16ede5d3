// A differentiable op written outside the engine: softplus, with its forward,
// its backward, and a finite-difference check in f64 that tells a right
// backward from a wrong one.
//
//   softplus(x) = log(1 + e^x)      d softplus / dx = 1 / (1 + e^-x) = sigmoid(x)
//
// An op is three pieces (autograd/tape.h): a forward that computes its output
// and, when a gradient is wanted, records a node on the tape; a backward that
// reads the output's gradient from the node and adds the inputs' gradients
// into their buffers; and an OpInfo tying the op's name to its backward
// (TAPIR_REGISTER_OP). The engine's own ops in autograd/ops_*.cpp are built
// the same way, with a kernel per device where this one has a loop for the
// CPU.
//
// gradcheck (autograd/gradcheck.h) compares the tape's gradient with the
// central difference (L(x + eps) - L(x - eps)) / (2 eps) for
// L = sum(softplus(x) * w) with random weights w. Exits 1 unless the right
// backward passes and the wrong one (which forgets the chain rule) fails.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/gradcheck.h"  // gradcheck
#include "autograd/ops.h"
#include "autograd/tape.h"    // Node, record, needs_grad, grad_for, TAPIR_REGISTER_OP
#include "engine/dispatch.h"  // dispatch_float: the element type from a tensor's dtype
#include "engine/rng.h"

using namespace tapir;

namespace {

// The backward: d x += d y * sigmoid(x), element by element. grad_for gives
// x's gradient buffer (allocated and zeroed on first use) or null when x
// needs no gradient; backward functions add into it, because x may feed
// several ops.
void softplus_backward(const Node& node) {
  Tensor x = node.input(0);
  Tensor y = node.output();
  dispatch_float("softplus backward", x.dtype(), [&]<typename T>() {
    T* dx = grad_for<T>(x);
    if (dx == nullptr) return;
    const T* in = x.data<T>();
    const T* dy = y.grad<T>();  // d loss / d y, filled by the nodes after this one
    for (int64_t i = 0; i < x.numel(); ++i) dx[i] += dy[i] / (1 + std::exp(-in[i]));
  });
}

// A common mistake: the local derivative alone, without d y. The check
// weights every output differently, so this cannot pass by chance.
void softplus_backward_without_chain_rule(const Node& node) {
  Tensor x = node.input(0);
  dispatch_float("softplus backward", x.dtype(), [&]<typename T>() {
    T* dx = grad_for<T>(x);
    if (dx == nullptr) return;
    const T* in = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) dx[i] += 1 / (1 + std::exp(-in[i]));
  });
}

TAPIR_REGISTER_OP(kSoftplus, "softplus", softplus_backward);
TAPIR_REGISTER_OP(kSoftplusWrong, "softplus (wrong backward)",
                  softplus_backward_without_chain_rule);

// The forward, for either OpInfo. The output lives in the step arena like
// every activation; record() appends the node only when grad mode is on and
// x requires a gradient.
Tensor softplus(Tensor x, const OpInfo& op) {
  // A bad input is a tapir::Error with a one-line message, as in the engine.
  TAPIR_CHECK(x.device() == Device::cpu, "softplus: a CPU loop, got ", x.describe());
  Tensor y = empty(x.shape(), x.dtype(), Device::cpu);
  dispatch_float("softplus", x.dtype(), [&]<typename T>() {
    const T* in = x.data<T>();
    T* out = y.data<T>();
    // max(x, 0) + log(1 + e^-|x|): the same value, with no overflow for large x.
    for (int64_t i = 0; i < x.numel(); ++i)
      out[i] = std::max(in[i], T(0)) + std::log1p(std::exp(-std::abs(in[i])));
  });
  if (needs_grad({x})) record(op, y, {x});
  return y;
}

GradcheckResult check(const OpInfo& op) {
  // f64 inputs that require a gradient: the check's central differences
  // need the precision.
  Rng rng(/*seed=*/3);
  Tensor x = empty({3, 5}, DType::f64, Device::cpu);
  rng.fill_uniform<double>(x.data<double>(), x.numel(), -4.0, 4.0);
  x.set_requires_grad();
  // Used inside a small expression, as an op is in a model: the gradient
  // flowing into softplus's backward is not all ones.
  GradcheckResult result = gradcheck(
      [&](const std::vector<Tensor>& in) { return mul(softplus(in[0], op), tapir::tanh(in[0])); },
      {x});
  reset_step();
  return result;
}

}  // namespace

int main() {
  const GradcheckResult right = check(kSoftplus);
  const GradcheckResult wrong = check(kSoftplusWrong);
  std::printf("right backward: max error %.2e over %lld elements\n", right.max_error,
              static_cast<long long>(right.checked));
  std::printf("wrong backward: max error %.2e (worst: %s)\n", wrong.max_error, wrong.worst.c_str());
  const bool caught = right.max_error < 1e-6 && wrong.max_error > 1e-2;
  std::printf(caught ? "the check passes the right backward and catches the wrong one\n"
                     : "the check did not tell the two backwards apart\n");
  return caught ? 0 : 1;
}
