// A program that uses the library and never calls set_num_threads runs on
// one thread, as docs/api.md promises: tapir's pool and OpenBLAS's own
// (which would otherwise start with a thread per core and wait for any core
// another process keeps busy). Its own program, so that no other test has
// set a thread count first.
#include <cblas.h>
#include <doctest/doctest.h>

#include "autograd/ops.h"
#include "engine/tensor.h"
#include "engine/threads.h"

using namespace tapir;

TEST_CASE("without set_num_threads, the kernels and OpenBLAS run on one thread") {
  CHECK(num_threads() == 1);
  CHECK(openblas_get_num_threads() == 1);
  // A product large enough that OpenBLAS would split it across its threads.
  const Tensor a = full({256, 256}, 1.0), b = full({256, 256}, 1.0);
  const Tensor c = matmul(a, b);
  CHECK(c.item(0) == 256.0f);
  CHECK(openblas_get_num_threads() == 1);
  CHECK(num_threads() == 1);
}
