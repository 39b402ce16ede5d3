// CPU/CUDA parity: every registered op run forward and backward on both
// devices from the same random inputs, values and gradients compared within
// a per-op tolerance; then a few training steps of each benchmark
// configuration on both devices, and a checkpoint trained on cuda evaluated
// on cpu. The coverage case always runs (an op in the registry without a
// parity entry fails it, GPU or not); the GPU cases skip with a message
// where cuda_available() is false.
//
// Run on a GPU machine with: ctest --test-dir build/release -R cuda
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "engine/cuda/runtime.h"
#include "engine/rng.h"
#include "nn/transformer.h"
#include "optim/clip.h"
#include "optim/model_run.h"
#include "optim/optimizer.h"
#include "optim/trainer.h"
#include "tests/op_inputs.h"
#include "tests/spline_ops.h"

using namespace tapir;
using namespace tapir::test;

namespace {

// --- tolerances ------------------------------------------------------------------
// Errors are |cpu - cuda| / max(1, |cpu|, |cuda|) per element.
//
// f64: the GPU sums in fixed trees where the CPU sums serially, and CUDA's
// double exp/log/erf are within 1-2 ulp of glibc's: differences of order
// 1e-15 per term, so 1e-10 leaves room for sums of a few hundred terms.
constexpr double kF64 = 1e-10;
// f32 elementwise maps: only libm differences (CUDA's expf, logf, tanhf,
// erff are within 2 ulp, ~2.4e-7 relative), plus one rounding of the update.
constexpr double kF32Map = 2e-6;
// f32 ops that sum (GEMM, reductions, softmax, layernorm, attention, spline
// knot gradients): a different summation order moves each sum by up to
// ~n * 6e-8 relative for n terms; the cases here sum at most ~100 terms of
// mixed sign, so 1e-4 is a bound, not an estimate.
constexpr double kF32Sum = 1e-4;

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

struct ParityCase {
  std::string op;  // registry name
  std::string label;
  std::vector<Input> inputs;
  Fn fn;
  double f32_tol;  // kF32Map or kF32Sum (why: above)
};

// One entry per op variant; every registered op appears at least once.
std::vector<ParityCase> cases() {
  using V = const std::vector<Tensor>&;
  std::vector<ParityCase> c;
  // Elementwise.
  c.push_back(
      {"add", "suffix", {U({2, 3, 4}), U({4})}, [](V x) { return add(x[0], x[1]); }, kF32Sum});
  c.push_back({"add",
               "prefix operand",
               {U({3, 4}), U({2, 3, 4})},
               [](V x) { return add(x[0], x[1]); },
               kF32Sum});
  c.push_back({"sub", "scalar", {U({2, 3}), U({})}, [](V x) { return sub(x[0], x[1]); }, kF32Sum});
  c.push_back(
      {"mul", "same shape", {U({3, 5}), U({3, 5})}, [](V x) { return mul(x[0], x[1]); }, kF32Map});
  c.push_back(
      {"mul", "suffix", {U({2, 3, 4}), U({3, 4})}, [](V x) { return mul(x[0], x[1]); }, kF32Sum});
  c.push_back(
      {"div", "suffix", {U({2, 3, 4}), P({4})}, [](V x) { return div(x[0], x[1]); }, kF32Sum});
  c.push_back({"affine", "", {U({2, 5})}, [](V x) { return affine(x[0], -1.7, 0.3); }, kF32Map});
  c.push_back({"exp", "", {U({2, 5})}, [](V x) { return tapir::exp(x[0]); }, kF32Map});
  c.push_back({"log", "", {P({2, 5})}, [](V x) { return tapir::log(x[0]); }, kF32Map});
  c.push_back({"tanh", "", {U({2, 5})}, [](V x) { return tapir::tanh(x[0]); }, kF32Map});
  c.push_back({"sqrt", "", {P({2, 5})}, [](V x) { return tapir::sqrt(x[0]); }, kF32Map});
  c.push_back({"relu", "", {A({3, 7})}, [](V x) { return relu(x[0]); }, kF32Map});
  c.push_back({"gelu", "", {U({3, 7})}, [](V x) { return gelu(affine(x[0], 3.0)); }, kF32Map});
  // Matrix products: every transpose combination, batched and shared.
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      const std::string flags = "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb);
      Shape a = ta ? Shape{2, 8, 6} : Shape{2, 6, 8}, b = tb ? Shape{5, 8} : Shape{8, 5};
      Shape bb = tb ? Shape{2, 5, 8} : Shape{2, 8, 5};
      c.push_back({"matmul",
                   "shared b " + flags,
                   {U(a), U(b)},
                   [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); },
                   kF32Sum});
      c.push_back({"matmul",
                   "batched " + flags,
                   {U(a), U(bb)},
                   [ta, tb](V x) { return matmul(x[0], x[1], ta, tb); },
                   kF32Sum});
    }
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
  // Reductions.
  for (int axis : {0, 1, -1})
    c.push_back({"sum",
                 "axis " + std::to_string(axis),
                 {U({4, 6, 5})},
                 [axis](V x) { return sum(x[0], axis); },
                 kF32Sum});
  c.push_back({"mean", "axis 1", {U({2, 7, 4})}, [](V x) { return mean(x[0], 1); }, kF32Sum});
  c.push_back({"sum_all", "", {U({3, 40})}, [](V x) { return sum_all(x[0]); }, kF32Sum});
  c.push_back({"max_last", "", {U({4, 9})}, [](V x) { return max_last(x[0]); }, kF32Map});
  // Softmax family.
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
  c.push_back(
      {"slice", "middle axis", {U({2, 5, 3})}, [](V x) { return slice(x[0], 1, 1, 4); }, kF32Map});
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
               "ALiBi slopes",
               {U({2, 5, 18}), Const({3})},
               [](V x) { return attention(affine(x[0], 2.0), 3, x[1]); },
               kF32Sum});
  // Learned nonlinearities.
  for (bool linear : {true, false}) {
    const std::string mode = linear ? "linear extrapolation" : "constant extrapolation";
    c.push_back({"spline",
                 mode,
                 {U({6, 20}), U({9})},
                 [linear](V x) { return spline(affine(x[0], 1.5), x[1], -1.0, 1.0, linear); },
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
                 {U({2, 5, 12}), U({7})},
                 [linear](V x) {
                   return feature_spline_attention(x[0], 2, affine(x[1], 2.0), -1.0, 1.0, linear);
                 },
                 kF32Sum});
  }
  c.push_back({"score_spline_attention",
               "per head, ALiBi",
               {U({2, 4, 18}), U({3, 9}), Const({3})},
               [](V x) {
                 return score_spline_attention(affine(x[0], 2.0), 3, x[1], -2.0, 2.0, true, x[2]);
               },
               kF32Sum});
  return c;
}

std::string case_name(const ParityCase& c) {
  return c.op + (c.label.empty() ? "" : " (" + c.label + ")");
}

double rel_diff(double a, double b) {
  return std::fabs(a - b) / std::max({1.0, std::fabs(a), std::fabs(b)});
}

std::vector<double> host_values(Tensor t) {
  const Tensor h = to_host(t);
  std::vector<double> out(static_cast<size_t>(h.numel()));
  for (int64_t i = 0; i < h.numel(); ++i) out[static_cast<size_t>(i)] = h.item(i);
  return out;
}

// The output's values and the gradients of L = sum(y * w) (w fixed) for every
// input that takes one, all read back to the host.
struct Run {
  std::vector<double> values;
  std::vector<std::vector<double>> grads;
};

Run run_on(const ParityCase& c, const std::vector<Tensor>& host_inputs, Tensor host_w,
           Device device) {
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < host_inputs.size(); ++k) {
    Tensor t = to_device(host_inputs[k], device);
    if (t.impl() == host_inputs[k].impl()) t = alias(t, t.shape());  // a fresh handle
    t.impl()->requires_grad = c.inputs[k].grad;
    inputs.push_back(t);
  }
  Tensor y = c.fn(inputs);
  Run r;
  r.values = host_values(y);
  backward(sum_all(mul(y, to_device(host_w, device))));
  for (const Tensor& t : inputs)
    r.grads.push_back(t.requires_grad() && t.has_grad() ? host_values(grad_view(t))
                                                        : std::vector<double>());
  return r;
}

void compare(const std::string& what, const std::vector<double>& cpu,
             const std::vector<double>& gpu, double tol) {
  REQUIRE(cpu.size() == gpu.size());
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double e = rel_diff(cpu[i], gpu[i]);
    if (e > worst) {
      worst = e;
      at = i;
    }
  }
  INFO(what << ": max error " << worst << " at element " << at << " (cpu "
            << (cpu.empty() ? 0.0 : cpu[at]) << ", cuda " << (gpu.empty() ? 0.0 : gpu[at]) << ")");
  CHECK(worst <= tol);
}

bool skip_without_gpu() {
  if (cuda::cuda_available()) return false;
  MESSAGE("skipped: no usable GPU (" << cuda::device_description() << ")");
  return true;
}

}  // namespace

TEST_CASE("every registered op has a cuda parity entry") {
  std::set<std::string> covered;
  for (const ParityCase& c : cases()) covered.insert(c.op);
  std::set<std::string> registered;
  for (const OpInfo* op : op_registry()) {
    registered.insert(op->name);
    INFO("op without a cuda parity entry: " << op->name);
    CHECK(covered.count(op->name) == 1);
  }
  for (const std::string& name : covered) {
    INFO("parity entry for an unregistered op: " << name);
    CHECK(registered.count(name) == 1);
  }
}

TEST_CASE("device plumbing without a GPU: checks that never touch device memory") {
  CHECK(parse_device("cpu") == Device::cpu);
  CHECK(parse_device("cuda") == Device::cuda);
  CHECK_THROWS_WITH_AS(parse_device("tpu"), "unknown device 'tpu' (known: cpu, cuda)", Error);
  CHECK(current_device() == Device::cpu);
  {
    DeviceScope scope(Device::cuda);
    CHECK(current_device() == Device::cuda);
  }
  CHECK(current_device() == Device::cpu);
  // A handle that claims to be on cuda (no memory behind it): every check
  // below fails before any data is read.
  TensorImpl fake;
  fake.shape = Shape{3};
  fake.device = Device::cuda;
  const Tensor on_cuda(&fake);
  CHECK(on_cuda.describe() == "f32 (3) on cuda");
  CHECK_THROWS_AS(on_cuda.host_data<float>(), Error);
  Tensor a = zeros(Shape{3});
  CHECK(a.device() == Device::cpu);
  CHECK(to_host(a).impl() == a.impl());  // already there: no copy
  CHECK_THROWS_WITH_AS(add(a, on_cuda), "add: inputs are on different devices (cpu and cuda)",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(on_cuda, alias(a, Shape{3, 1})),
                       "matmul: inputs are on different devices (cuda and cpu)", Error);
  if (!cuda::cuda_available()) {
    CHECK_THROWS_AS(require_device(Device::cuda), Error);
    CHECK_THROWS_AS(zeros(Shape{3}, DType::f32, Device::cuda), Error);
    TrainConfig config;
    config.device = Device::cuda;
    CHECK_THROWS_AS(make_trainer(config, ""), Error);
  }
#if !TAPIR_HAS_CUDA
  CHECK_THROWS_WITH_AS(tapir::exp(on_cuda),
                       "exp: input is on cuda but tapir was built without CUDA", Error);
#endif
  reset_step();
}

TEST_CASE("cuda parity table: values and gradients, f64 and f32") {
  if (skip_without_gpu()) return;
  for (const ParityCase& c : cases()) {
    for (DType dtype : {DType::f64, DType::f32}) {
      const double tol = dtype == DType::f64 ? kF64 : c.f32_tol;
      const std::string name = case_name(c) + (dtype == DType::f64 ? " f64" : " f32");
      Rng rng(42, 0);
      std::vector<Tensor> host_inputs;
      for (const Input& in : c.inputs) host_inputs.push_back(make_input(in, dtype, rng));
      // The output's shape, to draw the weights of L = sum(y * w).
      Shape out_shape;
      {
        NoGrad no_grad;
        out_shape = c.fn(host_inputs).shape();
      }
      Tensor w = make_input(U(out_shape), dtype, rng);
      const Run cpu = run_on(c, host_inputs, w, Device::cpu);
      const Run gpu = run_on(c, host_inputs, w, Device::cuda);
      compare(name + " values", cpu.values, gpu.values, tol);
      for (size_t k = 0; k < cpu.grads.size(); ++k)
        compare(name + " gradient of input " + std::to_string(k), cpu.grads[k], gpu.grads[k], tol);
      reset_step();
    }
  }
}

namespace {

// The benchmark configurations of lab/bench.cpp (tiny, small, lm) with
// smaller batches, so three steps stay quick.
struct StepConfig {
  const char* name;
  int64_t vocab, context, batch, width, heads, layers;
};
constexpr StepConfig kStepConfigs[] = {
    {"tiny", 99, 4, 32, 128, 4, 2},
    {"small", 128, 64, 4, 128, 4, 2},
    {"lm", 96, 256, 2, 256, 8, 4},
};

// Three AdamW steps (clip 1.0) on one fixed random batch; the losses.
std::vector<double> train_steps(const StepConfig& sc, Device device) {
  ModelConfig mc;
  mc.vocab = sc.vocab;
  mc.context = sc.context;
  mc.width = sc.width;
  mc.heads = sc.heads;
  mc.layers = sc.layers;
  Transformer model(mc);
  model.init(0);
  model.to_device(device);
  OptimizerConfig oc;
  oc.name = "adamw";
  oc.weight_decay = 0.01;
  auto params = model.parameters();
  auto optimizer = make_optimizer(oc, params);
  Rng rng(0, 1);
  const int64_t B = sc.batch, T = sc.context;
  HeapTensor tokens(Shape{B, T}, DType::i32), targets(Shape{B, T}, DType::i32);
  for (int64_t i = 0; i < B * T; ++i) {
    tokens.view().host_data<int32_t>()[i] = static_cast<int32_t>(rng.randint(sc.vocab));
    targets.view().host_data<int32_t>()[i] = static_cast<int32_t>(rng.randint(sc.vocab));
  }
  tokens.to_device(device);
  targets.to_device(device);
  std::vector<double> losses;
  for (int step = 0; step < 3; ++step) {
    optimizer->zero_grad();
    Tensor loss = cross_entropy(model.forward(tokens), targets);
    losses.push_back(loss.item());
    backward(loss);
    clip_grad_norm(params, 1.0);
    optimizer->step(1e-3);
    reset_step();
  }
  return losses;
}

}  // namespace

TEST_CASE("cuda parity: three training steps of each benchmark configuration") {
  if (skip_without_gpu()) return;
  for (const StepConfig& sc : kStepConfigs) {
    const std::vector<double> cpu = train_steps(sc, Device::cpu);
    const std::vector<double> gpu = train_steps(sc, Device::cuda);
    // f32 end to end: every op's rounding differences carried through three
    // AdamW updates. Adam normalises each element's step, so an element whose
    // gradient is rounding noise moves by up to lr either way. The first
    // loss differs by forward rounding alone; 1e-3 relative on losses of
    // ~log V ~ 4.6 still catches a wrong kernel. (Not yet measured on a GPU.)
    for (size_t i = 0; i < cpu.size(); ++i) {
      INFO(sc.name << " step " << i + 1 << ": cpu loss " << cpu[i] << ", cuda loss " << gpu[i]);
      CHECK(rel_diff(cpu[i], gpu[i]) < 1e-3);
    }
  }
}

TEST_CASE("a checkpoint trained on cuda loads and evaluates on cpu") {
  if (skip_without_gpu()) return;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "tapir_cuda_parity_run";
  fs::remove_all(dir);
  TrainConfig config;
  config.task = "modadd";
  config.model.layers = 1;
  config.model.width = 32;
  config.model.heads = 2;
  config.steps = 5;
  config.batch = 16;
  config.eval_every = 5;
  config.eval_limit = 64;
  config.device = Device::cuda;
  auto trained = make_trainer(config, dir.string());
  trained->start_fresh(true);
  trained->run();
  const std::vector<EvalResult> on_cuda = trained->evaluate();

  ModelRun loaded = open_run(dir.string(), {}, Device::cpu);
  CHECK(loaded.device() == Device::cpu);
  loaded.config.eval_limit = 64;
  const std::vector<EvalResult> on_cpu = loaded.evaluator().evaluate();
  REQUIRE(on_cpu.size() == on_cuda.size());
  for (size_t i = 0; i < on_cpu.size(); ++i) {
    INFO("split " << on_cpu[i].split);
    CHECK(rel_diff(on_cpu[i].tally.all.loss(), on_cuda[i].tally.all.loss()) < 1e-4);
    // An example whose top two logits nearly tie may flip between devices.
    CHECK(std::fabs(on_cpu[i].tally.all.accuracy() - on_cuda[i].tally.all.accuracy()) <=
          1.0 / 64 + 1e-12);
  }
  fs::remove_all(dir);
}
