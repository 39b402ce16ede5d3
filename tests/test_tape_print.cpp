// The tape's printout (autograd/tape_print.h): the nodes in forward order
// with their inputs, files, kernels and saved tensors, then the backward
// walk in reverse with each node's incoming gradient norm; one backward
// pass, then nothing more.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "autograd/ops.h"
#include "autograd/tape_print.h"
#include "engine/workspace.h"

using namespace tapir;

namespace {

// What `run` printed through print_next_backward.
template <class Run>
std::string printout(Run run, std::vector<std::pair<const TensorImpl*, std::string>> names) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  print_next_backward(f, std::move(names));
  run();
  std::string text;
  std::rewind(f);
  char buf[4096];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the printout shows a fan-out: x feeds two ops, and its gradient is their sum") {
  HeapTensor x({3}, DType::f32, /*with_grad=*/true);
  x.zero_grad();
  for (int64_t i = 0; i < 3; ++i) x.view().data<float>()[i] = float(i + 1);
  const auto step = [&] {
    // loss = sum(x * x) + sum(gelu(x)): x is read by mul (twice) and gelu.
    const Tensor squares = sum_all(mul(x.view(), x.view()));  // #0 mul, #1 sum_all
    const Tensor gelus = sum_all(gelu(x.view()));             // #2 gelu, #3 sum_all
    backward(add(squares, gelus));                            // #4 add
  };
  const std::string text = printout(step, {{x.view().impl(), "x"}});
  INFO(text);
  CHECK(has(text, "forward: 5 nodes, in the order the ops ran"));
  CHECK(
      has(text, "#0   mul                    F32 (3)                <- x, x"));  // the fan-out: one
                                                                                 // leaf, two inputs
  CHECK(has(text, "#2   gelu"));
  CHECK(has(text, "<- #1, #3"));  // the final add reads both sums
  CHECK(has(text, "autograd/ops_elementwise.cpp; kernels: binary_forward"));
  CHECK(has(text, "autograd/ops_elementwise.cpp; kernels: unary_forward"));
  CHECK(has(text, "backward: the nodes in reverse"));
  CHECK(has(text, "#4   add                    |dL/dy| 1; kernels: binary_backward"));
  CHECK(has(text, "#0   mul                    |dL/dy| 1.73; kernels: binary_backward"));
  // d/dx: 2x + gelu'(x), whatever the order the two ops send it in.
  const float* g = x.view().grad<float>();
  for (int64_t i = 0; i < 3; ++i) {
    const double v = i + 1;
    const double gelu_grad =
        0.5 * (1 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-v * v / 2) / std::sqrt(2 * M_PI);
    CHECK(g[i] == doctest::Approx(2 * v + gelu_grad).epsilon(1e-5));
  }
  reset_step();
  // One backward pass, then the printing stops.
  CHECK_FALSE(tape_printing());
}
