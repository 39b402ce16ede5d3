// The naive reference kernels as a backend (engine/reference.h): with
// set_cpu_kernels(CpuKernels::reference), every row of the op table
// (tests/op_table.h) runs forward and backward on the references and is
// compared with the same row on the tuned kernels, in f64 and f32; then
// whole training runs on each set of kernels are compared step by step:
// modadd as the README trains it (smaller), and a model with every learned
// function, rotary positions, RMSNorm and QK norm.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "engine/reference.h"
#include "engine/rng.h"
#include "optim/trainer.h"
#include "tests/op_runs.h"
#include "tests/op_table.h"
#include "tests/tiny_config.h"

using namespace tapir;
using namespace tapir::test;

namespace {

// Restores the tuned kernels when a case ends, however it ends.
struct KernelsScope {
  explicit KernelsScope(CpuKernels k) { set_cpu_kernels(k); }
  ~KernelsScope() { set_cpu_kernels(CpuKernels::tuned); }
};

// f64: the two differ by summation order and by rounding once (the
// references) against rounding per operation; 1e-10 leaves room for sums of
// a few hundred terms, as in the CUDA parity test. f32: each row's tolerance.
constexpr double kF64 = 1e-10;

}  // namespace

TEST_CASE("the kernel switch: TAPIR_KERNELS's words, and the switch sends gemm to the reference") {
  CHECK(parse_cpu_kernels("tuned", "TAPIR_KERNELS") == CpuKernels::tuned);
  CHECK(parse_cpu_kernels("reference", "TAPIR_KERNELS") == CpuKernels::reference);
  CHECK_THROWS_WITH_AS(parse_cpu_kernels("naive", "TAPIR_KERNELS"),
                       "TAPIR_KERNELS: expected tuned or reference, got 'naive'", Error);
  CHECK_THROWS_AS(parse_cpu_kernels("", "TAPIR_KERNELS"), Error);
  CHECK(std::string(name_of(CpuKernels::reference)) == "reference");

  // A product of 300 terms per element in f32: the reference's result (in
  // double, rounded once) is what matmul gives while the switch is on.
  const int64_t M = 7, K = 300, N = 5;
  Rng rng(3, 0);
  Tensor a = empty(Shape{M, K}), b = empty(Shape{K, N});
  rng.fill_uniform<float>(a.host_data<float>(), M * K, -1.0f, 1.0f);
  rng.fill_uniform<float>(b.host_data<float>(), K * N, -1.0f, 1.0f);
  std::vector<float> want(static_cast<size_t>(M * N));
  reference::gemm<float>(false, false, M, N, K, 1.0f, a.host_data<float>(), b.host_data<float>(),
                         0.0f, want.data());
  KernelsScope scope(CpuKernels::reference);
  CHECK(reference_kernels_on());
  const Tensor c = matmul(a, b);
  for (int64_t i = 0; i < M * N; ++i) CHECK(c.host_data<float>()[i] == want[size_t(i)]);
  reset_step();
}

TEST_CASE("reference kernels against the tuned ones: every op of the table, values and gradients") {
  for (const OpCase& c : op_cases()) {
    for (DType dtype : {DType::f64, DType::f32}) {
      const double tol = dtype == DType::f64 ? kF64 : c.f32_tol;
      const std::string name = case_name(c) + (dtype == DType::f64 ? " f64" : " f32");
      Rng rng(42, 0);
      std::vector<Tensor> inputs;
      for (const Input& in : c.inputs) inputs.push_back(make_input(in, dtype, rng));
      Shape out_shape;
      {
        NoGrad no_grad;
        out_shape = c.fn(inputs).shape();
      }
      const Tensor w = make_input(U(out_shape), dtype, rng);
      OpRun tuned, reference;
      {
        KernelsScope scope(CpuKernels::tuned);
        tuned = run_op_case(c, inputs, w, Device::cpu);
      }
      {
        KernelsScope scope(CpuKernels::reference);
        reference = run_op_case(c, inputs, w, Device::cpu);
      }
      check_runs_close(name, tuned, reference, tol, "tuned", "reference");
      reset_step();
    }
  }
}

namespace {

// The loss of every step of a run of `steps` steps, and its final test
// accuracy, on the given kernels.
struct Trained {
  std::vector<double> losses;
  double test_accuracy = 0;
};

Trained train_with(CpuKernels kernels, TrainConfig config) {
  KernelsScope scope(kernels);
  Trained t;
  auto trainer = make_trainer(config, "");
  for (int64_t s = 0; s < config.steps; ++s) t.losses.push_back(trainer->train_step().loss);
  for (const EvalResult& r : trainer->evaluate())
    if (r.split == "test") t.test_accuracy = r.tally.all.accuracy();
  return t;
}

// Step by step, the two runs' losses agree within `tol` relative: f32 end
// to end, each step's rounding differences carried into the next. The
// runs learn (the last loss is under `learned` times the first), so the
// comparison is of a real run, not of one that stands still.
void compare_runs(const TrainConfig& config, double tol, double learned) {
  const Trained tuned = train_with(CpuKernels::tuned, config);
  const Trained reference = train_with(CpuKernels::reference, config);
  MESSAGE("loss from " << reference.losses.front() << " to " << reference.losses.back());
  CHECK(reference.losses.back() < learned * reference.losses.front());
  REQUIRE(tuned.losses.size() == reference.losses.size());
  // The first loss differs by the forward's rounding alone.
  CHECK(rel_diff(tuned.losses[0], reference.losses[0]) <= 1e-6);
  double worst = 0;
  for (size_t s = 0; s < tuned.losses.size(); ++s) {
    INFO("step " << s + 1 << ": tuned loss " << tuned.losses[s] << ", reference loss "
                 << reference.losses[s]);
    CHECK(rel_diff(tuned.losses[s], reference.losses[s]) <= tol);
    worst = std::max(worst, rel_diff(tuned.losses[s], reference.losses[s]));
  }
  MESSAGE("largest relative difference of a step's loss: " << worst << "; test accuracy tuned "
                                                           << tuned.test_accuracy << ", reference "
                                                           << reference.test_accuracy);
  CHECK(std::fabs(tuned.test_accuracy - reference.test_accuracy) <= 0.02);
}

}  // namespace

TEST_CASE("a modadd run on the reference kernels follows the tuned run step by step") {
  // The README's modadd run (the task's recommended batch, learning rate,
  // weight decay and schedule) at p = 23, one narrow layer, 300 steps.
  TrainConfig config =
      test_support::tiny_modadd({.p = "23", .width = 32, .batch = 512, .steps = 300});
  config.schedule.base_lr = 3e-3;
  config.optimizer.weight_decay = 1;
  config.schedule.kind = Schedule::Kind::cosine;
  config.schedule.min_ratio = 0.05;
  config.eval_limit = 264;
  compare_runs(config, 1e-4, 0.5);
}

TEST_CASE("runs with the learned functions, RoPE, RMSNorm and QK norm on the reference kernels") {
  for (AttentionKind attn : {AttentionKind::score_spline, AttentionKind::feature_spline}) {
    TrainConfig config =
        test_support::tiny_modadd({.p = "11", .width = 16, .layers = 2, .batch = 32, .steps = 40});
    config.model.mlp_act = MlpAct::spline;
    config.model.attn = attn;
    // The feature kernel depends on i - j only without rotated q and k.
    config.model.pos = attn == AttentionKind::score_spline ? Positions::rope : Positions::learned;
    config.model.norm = NormKind::rms;
    config.model.qk_norm = attn == AttentionKind::score_spline;
    config.schedule.base_lr = 1e-2;
    config.eval_limit = 64;
    INFO("attention " << std::string(name_of(attn)));
    // At lr 1e-2 the runs drift apart faster: Adam's normalised step moves
    // an element whose gradient is rounding noise by up to lr either way.
    // Measured: the feature-spline run's losses differ by 1e-7 at step 1
    // and by up to 2.6e-4 by step 40; the score-spline run's by 3e-6.
    compare_runs(config, 1e-3, 0.9);
  }
}
