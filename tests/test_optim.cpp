// Tests of optim/optimizer and its kernels: every optimizer against steps
// worked out by hand (the arithmetic is in the comments), weight decay only
// where Parameter::decay says, frozen parameters untouched, and a resume
// through state_tensors() that reproduces the same bits.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/kernels.h"
#include "engine/threads.h"
#include "optim/optimizer.h"

using tapir::Adam;
using tapir::DType;
using tapir::HeapTensor;
using tapir::OptimizerKind;
using tapir::Parameter;
using tapir::SGD;
using tapir::Shape;

namespace {

// A trained f32 parameter of the given values with a gradient buffer.
void init(Parameter& p, const std::string& name, std::vector<float> values, bool decay = true) {
  p.name = name;
  p.value = HeapTensor(Shape{static_cast<int64_t>(values.size())}, DType::f32, true);
  p.decay = decay;
  std::memcpy(p.tensor().data<float>(), values.data(), values.size() * sizeof(float));
}

void set_grad(Parameter& p, std::vector<float> g) {
  REQUIRE(static_cast<int64_t>(g.size()) == p.tensor().numel());
  std::memcpy(p.tensor().grad<float>(), g.data(), g.size() * sizeof(float));
}

std::vector<float> values(const Parameter& p) {
  const float* w = p.tensor().data<float>();
  return std::vector<float>(w, w + p.tensor().numel());
}

void check_values(const Parameter& p, std::vector<double> expected) {
  const std::vector<float> got = values(p);
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(expected[i]).epsilon(1e-6));
  }
}

struct ThreadCountGuard {
  ~ThreadCountGuard() { tapir::set_num_threads(1); }
};

}  // namespace

TEST_CASE("SGD without momentum: w -= lr * g") {
  Parameter p;
  init(p, "w", {1.0f, -2.0f, 0.5f});
  SGD opt({&p});
  set_grad(p, {0.5f, 1.0f, -2.0f});
  opt.step(0.1);
  // 1 - 0.1*0.5 = 0.95; -2 - 0.1*1 = -2.1; 0.5 - 0.1*(-2) = 0.7
  check_values(p, {0.95, -2.1, 0.7});
  opt.step(0.1);  // same gradient again
  check_values(p, {0.9, -2.2, 0.9});
  CHECK(opt.steps() == 2);
  CHECK(opt.state_tensors().empty());
}

TEST_CASE("SGD with momentum 0.9") {
  Parameter p;
  init(p, "w", {1.0f, -2.0f});
  SGD opt({&p}, 0.9);
  set_grad(p, {0.5f, 1.0f});
  // step 1: v = g = (0.5, 1); w = (1 - 0.05, -2 - 0.1) = (0.95, -2.1)
  opt.step(0.1);
  check_values(p, {0.95, -2.1});
  // step 2: v = 0.9*(0.5, 1) + (0.5, 1) = (0.95, 1.9); w = (0.95 - 0.095, -2.1 - 0.19)
  opt.step(0.1);
  check_values(p, {0.855, -2.29});
  // step 3: v = 0.9*(0.95, 1.9) + (0.5, 1) = (1.355, 2.71); w = (0.855 - 0.1355, -2.29 - 0.271)
  opt.step(0.1);
  check_values(p, {0.7195, -2.561});
  const auto state = opt.state_tensors();
  REQUIRE(state.size() == 1);
  CHECK(state[0].name == "sgd.velocity.w");
  CHECK(state[0].tensor.item(0) == doctest::Approx(1.355));
  CHECK(state[0].tensor.item(1) == doctest::Approx(2.71));
}

TEST_CASE("SGD with Nesterov momentum") {
  Parameter p;
  init(p, "w", {1.0f, -2.0f});
  SGD opt({&p}, 0.9, 0.0, true);
  set_grad(p, {0.5f, 1.0f});
  // step 1: v = (0.5, 1); step = g + 0.9 v = (0.95, 1.9); w = (1 - 0.095, -2 - 0.19)
  opt.step(0.1);
  check_values(p, {0.905, -2.19});
  // step 2: v = (0.95, 1.9); step = (0.5 + 0.855, 1 + 1.71) = (1.355, 2.71)
  // w = (0.905 - 0.1355, -2.19 - 0.271)
  opt.step(0.1);
  check_values(p, {0.7695, -2.461});
}

TEST_CASE("SGD weight decay adds wd * w to the gradient of decaying parameters only") {
  Parameter p, bias;
  init(p, "w", {1.0f, -2.0f});
  init(bias, "b", {1.0f, -2.0f}, /*decay=*/false);
  SGD opt({&p, &bias}, 0.0, 0.1);
  set_grad(p, {0.5f, 1.0f});
  set_grad(bias, {0.5f, 1.0f});
  // step 1: g' = (0.5 + 0.1*1, 1 + 0.1*(-2)) = (0.6, 0.8); w = (1 - 0.06, -2 - 0.08)
  opt.step(0.1);
  check_values(p, {0.94, -2.08});
  check_values(bias, {0.95, -2.1});  // plain SGD: no decay
  // step 2: g' = (0.5 + 0.094, 1 - 0.208) = (0.594, 0.792); w = (0.94 - 0.0594, -2.08 - 0.0792)
  opt.step(0.1);
  check_values(p, {0.8806, -2.1592});
  check_values(bias, {0.9, -2.2});
}

TEST_CASE("Adam bias correction on steps 1 and 2") {
  Parameter p;
  init(p, "w", {1.0f, -2.0f, 0.5f});
  Adam opt({&p}, 0.9, 0.999, 1e-8);
  // Step 1, g = (0.5, -1, 2): m = 0.1 g, v = 0.001 g^2, so m_hat = g and
  // v_hat = g^2: the step is lr * g / (|g| + eps) = 0.1 * sign(g) (to 1e-8).
  // Without bias correction it would be 0.1 * 0.1 g / sqrt(0.001 g^2) = 0.316 sign(g).
  set_grad(p, {0.5f, -1.0f, 2.0f});
  opt.step(0.1);
  check_values(p, {0.9, -1.9, 0.4});
  // Step 2, g = (1, -1, 0); 1 - 0.9^2 = 0.19, 1 - 0.999^2 = 0.001999.
  //  w[0]: m = 0.9*0.05 + 0.1*1 = 0.145, v = 0.999*0.00025 + 0.001*1 = 0.00124975
  //        m_hat = 0.145/0.19 = 0.7631579, v_hat = 0.00124975/0.001999 = 0.6251876,
  //        sqrt = 0.7906881; w = 0.9 - 0.1*0.7631579/0.7906881 = 0.9 - 0.0965182 = 0.8034818
  //  w[1]: m = -0.09 - 0.1 = -0.19, v = 0.000999 + 0.001 = 0.001999: m_hat = -1, v_hat = 1;
  //        w = -1.9 + 0.1 = -1.8
  //  w[2]: m = 0.9*0.2 = 0.18, v = 0.999*0.004 = 0.003996: m_hat = 0.9473684,
  //        v_hat = 1.9989995, sqrt = 1.4138598; w = 0.4 - 0.1*0.6700582 = 0.3329942
  set_grad(p, {1.0f, -1.0f, 0.0f});
  opt.step(0.1);
  check_values(p, {0.8034818, -1.8, 0.3329942});
  CHECK(opt.steps() == 2);
}

TEST_CASE("Adam with L2 decay and AdamW with decoupled decay differ as expected") {
  // lr = 0.1, wd = 0.5, one step; a first Adam step moves each weight by
  // lr * sign(gradient it sees).
  Parameter coupled, decoupled;
  init(coupled, "w", {2.0f, 1.0f, 3.0f});
  init(decoupled, "w", {2.0f, 1.0f, 3.0f});
  set_grad(coupled, {0.5f, -1.0f, -1.0f});
  set_grad(decoupled, {0.5f, -1.0f, -1.0f});
  Adam adam({&coupled}, 0.9, 0.999, 1e-8, 0.5, false);
  Adam adamw({&decoupled}, 0.9, 0.999, 1e-8, 0.5, true);
  adam.step(0.1);
  adamw.step(0.1);
  // L2: g' = g + 0.5 w = (1.5, -0.5, 0.5), signs (+, -, +): w = (1.9, 1.1, 2.9).
  // The third weight moves down although its loss gradient points down too.
  check_values(coupled, {1.9, 1.1, 2.9});
  // AdamW: w *= 1 - 0.1*0.5 = 0.95 -> (1.9, 0.95, 2.85), then the step on g
  // with signs (+, -, -): w = (1.8, 1.05, 2.95).
  check_values(decoupled, {1.8, 1.05, 2.95});
}

TEST_CASE("Adam and AdamW apply no decay to decay = false parameters") {
  for (bool is_adamw : {false, true}) {
    CAPTURE(is_adamw);
    Parameter w, embedding;
    init(w, "w", {2.0f});
    init(embedding, "emb", {2.0f}, /*decay=*/false);
    set_grad(w, {0.5f});
    set_grad(embedding, {0.5f});
    Adam opt({&w, &embedding}, 0.9, 0.999, 1e-8, 0.5, is_adamw);
    opt.step(0.1);
    check_values(embedding, {1.9});           // 2 - 0.1 * sign(0.5)
    check_values(w, {is_adamw ? 1.8 : 1.9});  // AdamW: 2 * 0.95 - 0.1
  }
}

TEST_CASE("frozen parameters are never updated and hold no state") {
  Parameter p, frozen, later;
  init(p, "w", {1.0f});
  init(frozen, "f", {1.0f});
  init(later, "l", {1.0f});
  frozen.set_frozen(true);
  for (Parameter* q : {&p, &frozen, &later}) set_grad(*q, {0.5f});
  Adam opt({&p, &frozen, &later}, 0.9, 0.999, 1e-8, 0.1, true);
  REQUIRE(opt.params().size() == 2);
  CHECK(opt.params()[0] == &p);
  CHECK(opt.params()[1] == &later);
  later.set_frozen(true);  // frozen after the optimizer was built: skipped by step()
  opt.step(0.1);
  CHECK(values(frozen)[0] == 1.0f);
  CHECK(values(later)[0] == 1.0f);
  CHECK(values(p)[0] != 1.0f);
  for (const auto& s : opt.state_tensors()) CHECK(s.name.find(".f") == std::string::npos);
}

TEST_CASE("zero_grad clears the trained parameters' gradients") {
  Parameter p;
  init(p, "w", {1.0f, 2.0f});
  set_grad(p, {3.0f, 4.0f});
  SGD opt({&p});
  opt.zero_grad();
  CHECK(p.tensor().grad<float>()[0] == 0.0f);
  CHECK(p.tensor().grad<float>()[1] == 0.0f);
}

TEST_CASE("state_tensors round trip: a resumed optimizer repeats the same bits") {
  auto grads = [](int k, Parameter& a, Parameter& b) {
    set_grad(a, {0.3f * k - 0.5f, 1.0f / (k + 1), -0.25f * k});
    set_grad(b, {0.7f - 0.2f * k, 0.1f * k * k});
  };
  for (const OptimizerKind kind : {OptimizerKind::sgd, OptimizerKind::adam, OptimizerKind::adamw}) {
    CAPTURE(tapir::name_of(kind));
    tapir::OptimizerConfig config;
    config.kind = kind;
    Parameter a, b;
    init(a, "a", {0.5f, -1.5f, 2.0f});
    init(b, "b", {1.0f, 3.0f}, /*decay=*/false);
    auto opt = tapir::make_optimizer(config, {&a, &b});
    for (int k = 0; k < 3; ++k) {
      grads(k, a, b);
      opt->step(0.05);
    }

    // Save weights, state and step count, then run three more steps.
    const std::vector<float> saved_a = values(a), saved_b = values(b);
    std::vector<std::vector<float>> saved_state;
    for (const auto& s : opt->state_tensors()) {
      const float* x = s.tensor.data<float>();
      saved_state.emplace_back(x, x + s.tensor.numel());
    }
    const int64_t saved_steps = opt->steps();
    for (int k = 3; k < 6; ++k) {
      grads(k, a, b);
      opt->step(0.05);
    }
    const std::vector<float> final_a = values(a), final_b = values(b);

    // Resume into a fresh optimizer, once without its state (which must differ,
    // or the test proves nothing) and once with it.
    for (bool restore : {false, true}) {
      CAPTURE(restore);
      std::memcpy(a.tensor().data<float>(), saved_a.data(), saved_a.size() * sizeof(float));
      std::memcpy(b.tensor().data<float>(), saved_b.data(), saved_b.size() * sizeof(float));
      auto resumed = tapir::make_optimizer(config, {&a, &b});
      const auto state = resumed->state_tensors();
      REQUIRE(state.size() == saved_state.size());
      if (restore) {
        for (size_t i = 0; i < state.size(); ++i)
          std::memcpy(state[i].tensor.data<float>(), saved_state[i].data(),
                      saved_state[i].size() * sizeof(float));
        resumed->set_steps(saved_steps);
      }
      for (int k = 3; k < 6; ++k) {
        grads(k, a, b);
        resumed->step(0.05);
      }
      const bool same = std::memcmp(values(a).data(), final_a.data(), 3 * sizeof(float)) == 0 &&
                        std::memcmp(values(b).data(), final_b.data(), 2 * sizeof(float)) == 0;
      CHECK(same == restore);
    }
  }
}

TEST_CASE("state tensor names") {
  Parameter a, b;
  init(a, "blocks.0.w", {1.0f});
  init(b, "head.b", {1.0f, 2.0f});
  Adam adam({&a, &b});
  std::vector<std::string> names;
  for (const auto& s : adam.state_tensors()) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"adam.m.blocks.0.w", "adam.v.blocks.0.w", "adam.m.head.b",
                                          "adam.v.head.b"});
  CHECK(adam.state_tensors()[2].tensor.shape() == Shape{2});
  SGD sgd({&a, &b}, 0.5);
  CHECK(sgd.state_tensors()[1].name == "sgd.velocity.head.b");
}

TEST_CASE("make_optimizer picks by kind; names are read strictly; bad settings are refused") {
  Parameter p;
  init(p, "w", {1.0f});
  tapir::OptimizerConfig config;
  config.kind = OptimizerKind::sgd;
  CHECK(dynamic_cast<SGD*>(tapir::make_optimizer(config, {&p}).get()) != nullptr);
  config.kind = OptimizerKind::adam;
  CHECK(dynamic_cast<Adam*>(tapir::make_optimizer(config, {&p}).get()) != nullptr);
  CHECK(tapir::parse_name<OptimizerKind>("adamw") == OptimizerKind::adamw);
  CHECK_THROWS_WITH_AS(tapir::parse_name<OptimizerKind>("lion"),
                       "unknown optimizer 'lion' (known: sgd, adam, adamw)", tapir::Error);
  CHECK_THROWS_AS(SGD({&p}, 0.0, 0.0, /*nesterov=*/true), tapir::Error);
  CHECK_THROWS_AS(Adam({&p}, 1.0), tapir::Error);
  Parameter no_grad;
  no_grad.name = "x";
  no_grad.value = HeapTensor(Shape{2}, DType::f32, false);
  CHECK_THROWS_WITH_AS(SGD({&no_grad}), "parameter 'x' has no gradient buffer", tapir::Error);
}

TEST_CASE("kernels give the same bits at every thread count") {
  ThreadCountGuard guard;
  const int64_t n = 300001;
  std::vector<float> g(n);
  for (int64_t i = 0; i < n; ++i) g[i] = static_cast<float>((i * 7919) % 1000) * 0.001f - 0.5f;
  double serial = 0.0;
  for (float x : g) serial += static_cast<double>(x) * x;

  std::vector<double> sums;
  std::vector<std::vector<float>> weights;
  for (int threads : {1, 2, 3, 4}) {
    tapir::set_num_threads(threads);
    sums.push_back(tapir::cpu::sum_of_squares(g.data(), n));
    std::vector<float> w(n, 1.0f), m(n, 0.0f), v(n, 0.0f);
    for (int64_t step = 1; step <= 2; ++step)
      tapir::cpu::adam_update(w.data(), g.data(), m.data(), v.data(), n, 0.01f, 0.9f, 0.999f, 1e-8f,
                              0.1f, true, step);
    weights.push_back(w);
  }
  CHECK(sums[0] == doctest::Approx(serial).epsilon(1e-12));
  for (size_t k = 1; k < sums.size(); ++k) {
    CHECK(sums[k] == sums[0]);
    CHECK(weights[k] == weights[0]);
  }
  const float small[3] = {1.0f, -2.0f, 3.0f};
  CHECK(tapir::cpu::sum_of_squares(small, 3) == 14.0);
}
