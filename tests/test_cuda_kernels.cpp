// CUDA kernels against their CPU twins (the cuda:: and cpu:: twins declared by
// engine/kernels.h), one case per kernel family: random host inputs, the
// cpu:: kernel on the host, the cuda:: kernel on device copies, the results
// compared within per-kernel tolerances (tests/cuda_parity.h). Backward
// kernels accumulate into non-zero gradients, and null gradient pointers are
// exercised. Also the determinism of the cross-row sums. Spline and
// attention kernels are in test_cuda_attention_kernels.cpp, the runtime and
// the allocator in test_cuda_runtime.cpp. Every case skips, with a message,
// when no GPU can be used.
//
// Ops of the op table (cmake/checks/op_coverage.cmake): the kernels of
// those checked here, one kernel pair at a time (matmul and linear through
// gemm, concat and slice through the axis block copies). The others are
// compared as whole ops, CPU against CUDA, by test_cuda_parity.cpp, and the
// attention kernels also one by one in test_cuda_attention_kernels.cpp.
// op table, checked here: add sub mul div affine exp log tanh sqrt relu gelu
// op table, checked here: matmul linear sum max_last softmax log_softmax
// op table, checked here: cross_entropy layernorm embedding transpose concat
// op table, checked here: slice masked_fill
// op table, not here: mean sum_all rmsnorm rope reshape poly spline attention
// op table, not here: score_spline_attention feature_spline_attention

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "cuda_parity.h"
#include "engine/cuda/runtime.h"
#include "engine/kernels.h"

using namespace cuda_parity;
namespace cpu = tapir::cpu;
namespace gpu = tapir::cuda;
using tapir::BinaryOp;
using tapir::UnaryOp;

#if defined(TAPIR_HAS_CUDA)

TEST_CASE_TEMPLATE("cuda parity: binary ops with suffix broadcasting", T, float, double) {
  if (!gpu_or_skip()) return;
  struct Sizes {
    int64_t n_a, n_b;
  };
  // b is kept away from 0 so that div is well conditioned.
  for (const Sizes s : {Sizes{60, 60}, Sizes{12, 60}, Sizes{60, 12}, Sizes{1, 45}, Sizes{0, 0}})
    for (int op_index = 0; op_index < tapir::kBinaryOpCount; ++op_index) {
      const auto op = static_cast<BinaryOp>(op_index);
      CAPTURE(s.n_a);
      CAPTURE(s.n_b);
      CAPTURE(tapir::op_name(op));
      const int64_t n = std::max(s.n_a, s.n_b);
      const auto a = random_vector<T>(s.n_a, 1, -2, 2), b = random_vector<T>(s.n_b, 2, 0.5, 2);
      const auto d_out = random_vector<T>(n, 3);
      std::vector<T> out(n);
      cpu::binary_forward(op, a.data(), s.n_a, b.data(), s.n_b, out.data());
      DeviceArray<T> da(a), db(b), dout{std::vector<T>(n)}, dd_out(d_out);
      gpu::binary_forward(op, da.get(), s.n_a, db.get(), s.n_b, dout.get());
      check_close("binary_forward", out, dout.host(), tol<T>(1e-6));  // one rounding each

      // Accumulating into non-zero gradients; then each gradient alone.
      for (int which = 0; which < 3; ++which) {
        CAPTURE(which);
        auto ga = random_vector<T>(s.n_a, 4), gb = random_vector<T>(s.n_b, 5);
        DeviceArray<T> dga(ga), dgb(gb);
        cpu::binary_backward(op, a.data(), s.n_a, b.data(), s.n_b, d_out.data(),
                             which != 2 ? ga.data() : nullptr, which != 1 ? gb.data() : nullptr);
        gpu::binary_backward(op, da.get(), s.n_a, db.get(), s.n_b, dd_out.get(),
                             which != 2 ? dga.get() : nullptr, which != 1 ? dgb.get() : nullptr);
        // f32: the broadcast operand's gradient is a sum over up to 45 rows in
        // a different order.
        check_close("binary_backward d_a", ga, dga.host(), tol<T>(1e-5));
        check_close("binary_backward d_b", gb, dgb.host(), tol<T>(1e-5));
      }
    }
}

TEST_CASE_TEMPLATE("cuda parity: unary ops and affine", T, float, double) {
  if (!gpu_or_skip()) return;
  const int64_t n = 3001;
  for (int op_index = 0; op_index < tapir::kUnaryOpCount; ++op_index) {
    const auto op = static_cast<UnaryOp>(op_index);
    CAPTURE(tapir::op_name(op));
    const bool positive = op == UnaryOp::log || op == UnaryOp::sqrt;
    const auto x = random_vector<T>(n, 10 + op_index, positive ? 0.1 : -4, 4);
    std::vector<T> out(n);
    cpu::unary_forward(op, x.data(), n, out.data());
    DeviceArray<T> dx(x), dout{std::vector<T>(n)};
    gpu::unary_forward(op, dx.get(), n, dout.get());
    // f32: CUDA's expf, logf, tanhf, erff and the host's differ by a few ulp.
    check_close("unary_forward", out, dout.host(), tol<T>(2e-6));

    const auto d_out = random_vector<T>(n, 20), g0 = random_vector<T>(n, 21);
    auto g = g0;
    cpu::unary_backward(op, x.data(), out.data(), d_out.data(), n, g.data());
    DeviceArray<T> dd_out(d_out), dg(g0), dcpu_out(out);  // the same forward output on both
    gpu::unary_backward(op, dx.get(), dcpu_out.get(), dd_out.get(), n, dg.get());
    check_close("unary_backward", g, dg.host(), tol<T>(2e-6));
  }
  const auto a = random_vector<T>(777, 30);
  std::vector<T> out(777);
  cpu::affine_forward(a.data(), 777, T(1.7), T(-0.3), out.data());
  DeviceArray<T> da(a), dout{std::vector<T>(777)};
  gpu::affine_forward(da.get(), 777, T(1.7), T(-0.3), dout.get());
  check_close("affine_forward", out, dout.host(), tol<T>(1e-6));
}

TEST_CASE_TEMPLATE("cuda parity: gemm, all transposes, beta != 0", T, float, double) {
  if (!gpu_or_skip()) return;
  const int64_t M = 19, N = 23, K = 37;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      CAPTURE(ta);
      CAPTURE(tb);
      const auto A = random_vector<T>(M * K, 40), B = random_vector<T>(K * N, 41);
      auto C = random_vector<T>(M * N, 42);
      DeviceArray<T> dA(A), dB(B), dC(C);
      cpu::gemm<T>(ta, tb, M, N, K, T(0.7), A.data(), B.data(), T(0.4), C.data());
      gpu::gemm<T>(ta, tb, M, N, K, T(0.7), dA.get(), dB.get(), T(0.4), dC.get());
      // f32: sums of 37 products in another order (cuBLAS in pedantic math:
      // no TF32).
      check_close("gemm", C, dC.host(), tol<T>(2e-5));
    }
}

TEST_CASE_TEMPLATE("cuda parity: sum over an axis, max over the last axis", T, float, double) {
  if (!gpu_or_skip()) return;
  struct Sizes {
    int64_t outer, n, inner;
  };
  for (const Sizes s : {Sizes{3, 50, 7}, Sizes{1, 20000, 1}, Sizes{4, 1, 9}, Sizes{2, 0, 3}}) {
    CAPTURE(s.n);
    const int64_t total = s.outer * s.n * s.inner;
    const auto x = random_vector<T>(total, 50);
    std::vector<T> out(s.outer * s.inner);
    cpu::sum_axis_forward(x.data(), s.outer, s.n, s.inner, out.data());
    DeviceArray<T> dx(x), dout{std::vector<T>(out.size(), T(7))};
    gpu::sum_axis_forward(dx.get(), s.outer, s.n, s.inner, dout.get());
    // f32: up to 20000 terms; the GPU's chunked sum is in another order.
    check_close("sum_axis_forward", out, dout.host(), tol<T>(1e-4));

    const auto d_out = random_vector<T>(out.size(), 51);
    auto g = random_vector<T>(total, 52);
    DeviceArray<T> dd_out(d_out), dg(g);
    cpu::sum_axis_backward(d_out.data(), s.outer, s.n, s.inner, T(0.25), g.data());
    gpu::sum_axis_backward(dd_out.get(), s.outer, s.n, s.inner, T(0.25), dg.get());
    check_close("sum_axis_backward", g, dg.host(), tol<T>(1e-6));
  }

  // Rows with ties, NaN at the front or inside, all -inf: the CPU's rule.
  const int64_t rows = 9, n = 37;
  auto x = random_vector<T>(rows * n, 53);
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < n; ++i) x[3 * n + i] = T(0.5);
  x[4 * n] = nan;
  x[5 * n + 10] = nan;
  for (int64_t i = 0; i < n; ++i) x[6 * n + i] = -inf;
  x[7 * n + 5] = x[7 * n + 30] = T(9);
  std::vector<T> out(rows);
  std::vector<int32_t> arg(rows);
  cpu::max_last_forward(x.data(), rows, n, out.data(), arg.data());
  DeviceArray<T> dx(x), dout{std::vector<T>(rows)};
  DeviceArray<int32_t> darg{std::vector<int32_t>(rows, -1)};
  gpu::max_last_forward(dx.get(), rows, n, dout.get(), darg.get());
  CHECK(darg.host() == arg);
  check_close("max_last_forward", out, dout.host(), 0.0);

  const auto d_out = random_vector<T>(rows, 54);
  auto g = random_vector<T>(rows * n, 55);
  DeviceArray<T> dd_out(d_out), dg(g);
  cpu::max_last_backward(d_out.data(), arg.data(), rows, n, g.data());
  gpu::max_last_backward(dd_out.get(), darg.get(), rows, n, dg.get());
  check_close("max_last_backward", g, dg.host(), tol<T>(1e-6));
}

TEST_CASE_TEMPLATE("cuda parity: softmax and log-softmax", T, float, double) {
  if (!gpu_or_skip()) return;
  for (const int64_t n : {int64_t(1), int64_t(33), int64_t(1500)}) {
    CAPTURE(n);
    const int64_t rows = 17;
    const auto x = random_vector<T>(rows * n, 60, -6, 6), d_y = random_vector<T>(rows * n, 61);
    const auto g0 = random_vector<T>(rows * n, 62);
    DeviceArray<T> dx(x), dd_y(d_y);
    for (int log_form = 0; log_form < 2; ++log_form) {
      CAPTURE(log_form);
      std::vector<T> y(rows * n), g = g0;
      DeviceArray<T> dy(y), dg(g0);
      if (log_form) {
        cpu::log_softmax_forward(x.data(), rows, n, y.data());
        gpu::log_softmax_forward(dx.get(), rows, n, dy.get());
      } else {
        cpu::softmax_forward(x.data(), rows, n, y.data());
        gpu::softmax_forward(dx.get(), rows, n, dy.get());
      }
      // f32: exp on both sides within a few ulp, row sums in another order.
      check_close("softmax forward", y, dy.host(), tol<T>(1e-5));
      DeviceArray<T> dy_cpu(y);  // backward from the same forward output on both
      if (log_form) {
        cpu::log_softmax_backward(y.data(), d_y.data(), rows, n, g.data());
        gpu::log_softmax_backward(dy_cpu.get(), dd_y.get(), rows, n, dg.get());
      } else {
        cpu::softmax_backward(y.data(), d_y.data(), rows, n, g.data());
        gpu::softmax_backward(dy_cpu.get(), dd_y.get(), rows, n, dg.get());
      }
      check_close("softmax backward", g, dg.host(), tol<T>(1e-5));
    }
  }
}

TEST_CASE_TEMPLATE("cuda parity: fused cross-entropy", T, float, double) {
  if (!gpu_or_skip()) return;
  const int64_t rows = 37, V = 50;
  const auto logits = random_vector<T>(rows * V, 70, -5, 5);
  std::vector<int32_t> targets(rows);
  std::vector<T> mask(rows);
  for (int64_t r = 0; r < rows; ++r) {
    targets[r] = static_cast<int32_t>((r * 7) % V);
    mask[r] = r % 3 == 0 ? T(0) : T(1);
  }
  DeviceArray<T> dlogits(logits), dmask(mask);
  DeviceArray<int32_t> dtargets(targets);
  for (int masked = 0; masked < 2; ++masked) {
    CAPTURE(masked);
    std::vector<T> probs(rows * V), losses(rows), loss(1);
    DeviceArray<T> dprobs(probs), dlosses(losses), dloss(loss);
    const T count =
        cpu::cross_entropy_forward(logits.data(), targets.data(), masked ? mask.data() : nullptr,
                                   rows, V, probs.data(), losses.data(), loss.data());
    const T dcount =
        gpu::cross_entropy_forward(dlogits.get(), dtargets.get(), masked ? dmask.get() : nullptr,
                                   rows, V, dprobs.get(), dlosses.get(), dloss.get());
    CHECK(dcount == count);
    // f32: exp and the sums' order, as in softmax.
    check_close("cross_entropy probs", probs, dprobs.host(), tol<T>(1e-5));
    check_close("cross_entropy row losses", losses, dlosses.host(), tol<T>(1e-5));
    check_close("cross_entropy loss", loss, dloss.host(), tol<T>(1e-5));
    const auto g0 = random_vector<T>(rows * V, 71);
    auto g = g0;
    DeviceArray<T> dg(g0), dprobs_cpu(probs);
    cpu::cross_entropy_backward(probs.data(), targets.data(), masked ? mask.data() : nullptr, rows,
                                V, T(1) / count, g.data());
    gpu::cross_entropy_backward(dprobs_cpu.get(), dtargets.get(), masked ? dmask.get() : nullptr,
                                rows, V, T(1) / count, dg.get());
    check_close("cross_entropy backward", g, dg.host(), tol<T>(1e-6));
  }
}

TEST_CASE_TEMPLATE("cuda parity: layernorm", T, float, double) {
  if (!gpu_or_skip()) return;
  const int64_t rows = 33, C = 70;
  const auto x = random_vector<T>(rows * C, 80, -3, 3), w = random_vector<T>(C, 81, 0.5, 1.5);
  const auto b = random_vector<T>(C, 82), d_y = random_vector<T>(rows * C, 83);
  std::vector<T> y(rows * C), mean(rows), rstd(rows);
  cpu::layernorm_forward(x.data(), w.data(), b.data(), rows, C, T(1e-5), y.data(), mean.data(),
                         rstd.data());
  DeviceArray<T> dx(x), dw(w), db(b), dd_y(d_y), dy(y), dmean(mean), drstd(rstd);
  gpu::layernorm_forward(dx.get(), dw.get(), db.get(), rows, C, T(1e-5), dy.get(), dmean.get(),
                         drstd.get());
  // f32: sums over 70 in another order.
  check_close("layernorm y", y, dy.host(), tol<T>(1e-5));
  check_close("layernorm mean", mean, dmean.host(), tol<T>(1e-5));
  check_close("layernorm rstd", rstd, drstd.host(), tol<T>(1e-5));
  DeviceArray<T> dmean_cpu(mean), drstd_cpu(rstd);
  for (int which = 0; which < 3; ++which) {  // all; no d_x; no d_w
    CAPTURE(which);
    auto gx = random_vector<T>(rows * C, 84), gw = random_vector<T>(C, 85),
         gb = random_vector<T>(C, 86);
    DeviceArray<T> dgx(gx), dgw(gw), dgb(gb);
    cpu::layernorm_backward(x.data(), w.data(), mean.data(), rstd.data(), d_y.data(), rows, C,
                            which != 1 ? gx.data() : nullptr, which != 2 ? gw.data() : nullptr,
                            gb.data());
    gpu::layernorm_backward(dx.get(), dw.get(), dmean_cpu.get(), drstd_cpu.get(), dd_y.get(), rows,
                            C, which != 1 ? dgx.get() : nullptr, which != 2 ? dgw.get() : nullptr,
                            dgb.get());
    // f32: d_w, d_b sum 33 rows in another order.
    check_close("layernorm d_x", gx, dgx.host(), tol<T>(2e-5));
    check_close("layernorm d_w", gw, dgw.host(), tol<T>(1e-5));
    check_close("layernorm d_b", gb, dgb.host(), tol<T>(1e-5));
  }
}

TEST_CASE_TEMPLATE("cuda parity: embedding gather and scatter-add", T, float, double) {
  if (!gpu_or_skip()) return;
  const int64_t V = 11, n = 300, C = 13;
  const auto table = random_vector<T>(V * C, 90), d_out = random_vector<T>(n * C, 91);
  std::vector<int32_t> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = static_cast<int32_t>((i * i + 3 * i) % 7);  // repeats
  ids[5] = 10;
  std::vector<T> out(n * C);
  cpu::embedding_forward(table.data(), ids.data(), n, C, out.data());
  DeviceArray<T> dtable(table), dout(out), dd_out(d_out);
  DeviceArray<int32_t> dids(ids);
  gpu::embedding_forward(dtable.get(), dids.get(), n, C, dout.get());
  check_close("embedding_forward", out, dout.host(), 0.0);
  auto g = random_vector<T>(V * C, 92);
  DeviceArray<T> dg(g);
  cpu::embedding_backward(ids.data(), d_out.data(), n, C, g.data());
  gpu::embedding_backward(dids.get(), dd_out.get(), n, C, dg.get());
  // Both add a row's contributions one by one in index order: the same bits.
  check_close("embedding_backward", g, dg.host(), 0.0);
}

TEST_CASE_TEMPLATE("cuda parity: transpose, axis block copies, masked fill", T, float, double) {
  if (!gpu_or_skip()) return;
  for (int accumulate = 0; accumulate < 2; ++accumulate) {
    CAPTURE(accumulate);
    const int64_t batch = 3, R = 5, C = 7;
    const auto x = random_vector<T>(batch * R * C, 100);
    auto out = random_vector<T>(batch * R * C, 101);
    DeviceArray<T> dx(x), dout(out);
    cpu::transpose_last2(x.data(), batch, R, C, out.data(), accumulate);
    gpu::transpose_last2(dx.get(), batch, R, C, dout.get(), accumulate);
    check_close("transpose_last2", out, dout.host(), 0.0);

    const int64_t outer = 4, n_src = 6, n_dst = 9, n_copy = 4, inner = 3;
    const auto src = random_vector<T>(outer * n_src * inner, 102);
    auto dst = random_vector<T>(outer * n_dst * inner, 103);
    DeviceArray<T> dsrc(src), ddst(dst);
    cpu::copy_axis_block(src.data(), outer, n_src, 1, dst.data(), n_dst, 2, n_copy, inner,
                         accumulate);
    gpu::copy_axis_block(dsrc.get(), outer, n_src, 1, ddst.get(), n_dst, 2, n_copy, inner,
                         accumulate);
    check_close("copy_axis_block", dst, ddst.host(), 0.0);
  }
  const int64_t n = 60, n_mask = 12;
  const auto x = random_vector<T>(n, 104), d_out = random_vector<T>(n, 105);
  std::vector<int32_t> mask(n_mask);
  for (int64_t i = 0; i < n_mask; ++i) mask[i] = i % 3 == 1;
  std::vector<T> out(n);
  auto g = random_vector<T>(n, 106);
  DeviceArray<T> dx(x), dd_out(d_out), dout(out), dg(g);
  DeviceArray<int32_t> dmask(mask);
  cpu::masked_fill_forward(x.data(), n, mask.data(), n_mask, T(-1e4), out.data());
  gpu::masked_fill_forward(dx.get(), n, dmask.get(), n_mask, T(-1e4), dout.get());
  check_close("masked_fill_forward", out, dout.host(), 0.0);
  cpu::masked_fill_backward(d_out.data(), n, mask.data(), n_mask, g.data());
  gpu::masked_fill_backward(dd_out.get(), n, dmask.get(), n_mask, dg.get());
  check_close("masked_fill_backward", g, dg.host(), 0.0);
}

TEST_CASE("cuda parity: SGD and Adam updates, sum of squares") {
  if (!gpu_or_skip()) return;
  const int64_t n = 10007;
  const auto w0 = random_vector<float>(n, 110), g = random_vector<float>(n, 111);
  const auto v0 = random_vector<float>(n, 112, 0, 0.1);
  DeviceArray<float> dgrad(g);
  // f32 per-element steps: one or two ulp from contraction into FMA.
  for (int variant = 0; variant < 3; ++variant) {  // plain; momentum; nesterov
    CAPTURE(variant);
    auto w = w0, vel = v0;
    DeviceArray<float> dw(w0), dvel(v0);
    const float momentum = variant ? 0.9f : 0.0f;
    cpu::sgd_update(w.data(), g.data(), variant ? vel.data() : nullptr, n, 0.05f, momentum, 0.01f,
                    variant == 2);
    gpu::sgd_update(dw.get(), dgrad.get(), variant ? dvel.get() : nullptr, n, 0.05f, momentum,
                    0.01f, variant == 2);
    check_close("sgd w", w, dw.host(), 2e-6);
    check_close("sgd velocity", vel, dvel.host(), 2e-6);
  }
  for (int decoupled = 0; decoupled < 2; ++decoupled)
    for (const int64_t step : {int64_t(1), int64_t(7)}) {
      CAPTURE(decoupled);
      CAPTURE(step);
      auto w = w0, m = random_vector<float>(n, 113, -0.1, 0.1), v = v0;
      DeviceArray<float> dw(w), dm(m), dv(v);
      cpu::adam_update(w.data(), g.data(), m.data(), v.data(), n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.1f,
                       decoupled, step);
      gpu::adam_update(dw.get(), dgrad.get(), dm.get(), dv.get(), n, 1e-3f, 0.9f, 0.999f, 1e-8f,
                       0.1f, decoupled, step);
      check_close("adam w", w, dw.host(), 2e-6);
      check_close("adam m", m, dm.host(), 2e-6);
      check_close("adam v", v, dv.host(), 2e-6);
    }
  auto big = random_vector<float>(100003, 114);
  DeviceArray<float> dbig(big);
  const double cpu_sum = cpu::sum_of_squares(big.data(), 100003);
  const double gpu_sum = gpu::sum_of_squares(dbig.get(), 100003);
  CHECK(std::fabs(cpu_sum - gpu_sum) <= 1e-12 * cpu_sum);  // both in double
  CHECK(gpu::sum_of_squares(dbig.get(), 0) == 0.0);
  big[500] = std::numeric_limits<float>::quiet_NaN();
  DeviceArray<float> dnan(big);
  CHECK(std::isnan(gpu::sum_of_squares(dnan.get(), 100003)));
}

TEST_CASE("cuda kernels with cross-row sums give the same bits run to run") {
  if (!gpu_or_skip()) return;
  using T = float;  // f32, where the order of a sum shows most
  const int64_t rows = 4000, C = 48;
  const auto x = random_vector<T>(rows * C, 120), d_y = random_vector<T>(rows * C, 121);
  const auto w = random_vector<T>(C, 122, 0.5, 1.5), b = random_vector<T>(C, 123);
  DeviceArray<T> dx(x), dd_y(d_y), dw(w), db(b);
  auto twice = [&](auto&& run) {
    auto first = run();
    auto second = run();
    return std::make_pair(first, second);
  };
  {
    auto [a, c] = twice([&] {
      DeviceArray<T> out{std::vector<T>(C)};
      gpu::sum_axis_forward(dx.get(), 1, rows, C, out.get());
      return out.host();
    });
    check_same_bits("sum_axis_forward", a, c);
  }
  {
    auto [a, c] = twice([&] {
      DeviceArray<T> gb{std::vector<T>(C, T(0.5))};
      gpu::binary_backward<T>(BinaryOp::mul, dx.get(), rows * C, dw.get(), C, dd_y.get(), nullptr,
                              gb.get());
      return gb.host();
    });
    check_same_bits("binary_backward (broadcast operand)", a, c);
  }
  {
    std::vector<T> y(rows * C), mean(rows), rstd(rows);
    DeviceArray<T> dy(y), dmean(mean), drstd(rstd);
    gpu::layernorm_forward(dx.get(), dw.get(), db.get(), rows, C, T(1e-5), dy.get(), dmean.get(),
                           drstd.get());
    auto [a, c] = twice([&] {
      DeviceArray<T> gw{std::vector<T>(C)}, gb{std::vector<T>(C)};
      gpu::layernorm_backward<T>(dx.get(), dw.get(), dmean.get(), drstd.get(), dd_y.get(), rows, C,
                                 nullptr, gw.get(), gb.get());
      auto out = gw.host();
      const auto bias = gb.host();
      out.insert(out.end(), bias.begin(), bias.end());
      return out;
    });
    check_same_bits("layernorm_backward d_w, d_b", a, c);
  }
  {
    std::vector<int32_t> ids(rows);
    for (int64_t i = 0; i < rows; ++i) ids[i] = static_cast<int32_t>((i * 31) % 17);
    DeviceArray<int32_t> dids(ids);
    auto [a, c] = twice([&] {
      DeviceArray<T> table{std::vector<T>(17 * C)};
      gpu::embedding_backward(dids.get(), dd_y.get(), rows, C, table.get());
      return table.host();
    });
    check_same_bits("embedding_backward", a, c);
  }
  {
    std::vector<int32_t> targets(rows / 4);
    for (size_t r = 0; r < targets.size(); ++r) targets[r] = static_cast<int32_t>(r % C);
    DeviceArray<int32_t> dtargets(targets);
    auto [a, c] = twice([&] {
      DeviceArray<T> probs{std::vector<T>(rows / 4 * C)}, losses{std::vector<T>(rows / 4)},
          loss{std::vector<T>(1)};
      gpu::cross_entropy_forward<T>(dx.get(), dtargets.get(), nullptr, rows / 4, C, probs.get(),
                                    losses.get(), loss.get());
      return loss.host();
    });
    check_same_bits("cross_entropy_forward loss", a, c);
  }
  {
    auto [a, c] =
        twice([&] { return std::vector<double>{gpu::sum_of_squares(dx.get(), rows * C)}; });
    check_same_bits("sum_of_squares", a, c);
  }
}

#else

TEST_CASE("cuda parity suite") {
  MESSAGE("skipped: tapir was built without CUDA (TAPIR_CUDA=OFF or no nvcc)");
}

#endif  // TAPIR_HAS_CUDA
