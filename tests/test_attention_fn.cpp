// The attention input function (nn/attention_fn.h): its gradient through a
// block's normalisation against finite differences (f64), its parameters
// and their names, an identity spline equal to the identity, architecture
// files that carry it, Stage I routing its gradient, and modular addition
// learned with it frozen from a file.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "nn/architecture.h"
#include "optim/search.h"
#include "optim/trainer.h"
#include "tests/seed_trials.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"

using namespace tapir;

namespace {

// An f64 tensor of smooth pseudo-random values in [-scale, scale].
Tensor wavy(const Shape& shape, double scale, double phase) {
  Tensor t = empty(shape, DType::f64);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<double>()[i] = scale * std::sin(1.7 * double(i) + phase);
  t.set_requires_grad(true);
  return t;
}

ModelConfig small_config(AttnFn fn, SplineScope scope = SplineScope::layer) {
  ModelConfig c;
  c.vocab = 11;
  c.context = 4;
  c.width = 8;
  c.heads = 2;
  c.layers = 2;
  c.attn_fn = fn;
  c.attn_fn_spline.scope = scope;
  return c;
}

std::vector<std::string> names_of(Transformer& m) {
  std::vector<std::string> names;
  for (Parameter* p : m.parameters()) names.push_back(p->name);
  return names;
}

bool has_name(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names)
    if (n == name) return true;
  return false;
}

Tensor logits_of(Transformer& m) {
  Tensor tokens = empty({2, 4}, DType::i32);
  for (int64_t i = 0; i < 8; ++i) tokens.data<int32_t>()[i] = int32_t((3 * i + 1) % 11);
  NoGrad no_grad;
  return m.forward(tokens);
}

std::vector<float> values_of(Parameter* p) {
  const Tensor t = p->tensor();
  return std::vector<float>(t.data<float>(), t.data<float>() + t.numel());
}

}  // namespace

TEST_CASE("attention function: f64 gradient through the block's norm, gain, bias and spline") {
  // The grid's range covers most inputs; some fall outside (constant).
  const SplineGrid grid(9, -1.5, 1.5, /*linear=*/false);
  for (bool learned : {true, false}) {
    CAPTURE(learned);
    std::vector<Tensor> inputs = {wavy({2, 3, 5}, 2.0, 0.1), wavy({5}, 0.5, 0.7),
                                  wavy({5}, 0.3, 1.3),       wavy(Shape{}, 0.9, 0.4),
                                  wavy(Shape{}, 0.2, 2.0),   wavy({9}, 1.0, 0.3)};
    fill(inputs[1], 1.0);  // LayerNorm weight near 1, as at init
    for (int64_t i = 0; i < 5; ++i) inputs[1].data<double>()[i] += 0.1 * double(i);
    if (!learned) inputs.pop_back();
    const GradcheckResult r = gradcheck(
        [&](const std::vector<Tensor>& v) {
          const Tensor n = layernorm(v[0], v[1], v[2]);
          return attention_fn_input(n, v[3], v[4], learned ? v[5] : Tensor(), grid);
        },
        inputs);
    INFO(r.worst);
    CHECK(r.checked > 40);
    CHECK(r.max_error < 1e-6);
    reset_step();
  }
}

TEST_CASE("attention function: n + f(a n + b) elementwise, f the spline or the identity") {
  const SplineGrid grid(3, -1, 1, /*linear=*/false);  // knots -1, 0, 1
  Tensor n = empty({4}, DType::f64), gain = empty(Shape{}, DType::f64),
         bias = empty(Shape{}, DType::f64), values = empty({3}, DType::f64);
  const double xs[] = {-3, -0.25, 0.5, 2};
  for (int i = 0; i < 4; ++i) n.data<double>()[i] = xs[i];
  fill(gain, 2.0);
  fill(bias, 0.5);
  const double v[] = {1, -1, 3};
  for (int i = 0; i < 3; ++i) values.data<double>()[i] = v[i];
  const Tensor y = attention_fn_input(n, gain, bias, values, grid);
  const Tensor id = attention_fn_input(n, gain, bias, Tensor(), grid);
  // u = 2 n + 0.5: -5.5 (below: 1), 0 (knot: -1), 1.5 (above: 3), 4.5 (above: 3).
  const double expected[] = {-3 + 1, -0.25 - 1, 0.5 + 3, 2 + 3};
  for (int i = 0; i < 4; ++i) {
    CHECK(y.data<double>()[i] == doctest::Approx(expected[i]).epsilon(1e-12));
    CHECK(id.data<double>()[i] == doctest::Approx(xs[i] + 2 * xs[i] + 0.5).epsilon(1e-12));
  }
  reset_step();
}

TEST_CASE("attention function: parameters per block, the spline per layer or shared") {
  Transformer off(small_config(AttnFn::off));
  for (const std::string& name : names_of(off)) CHECK(name.find("attn_fn") == std::string::npos);

  Transformer identity(small_config(AttnFn::identity));
  const std::vector<std::string> names = names_of(identity);
  CHECK(names.size() == names_of(off).size() + 4);  // gain and bias of 2 blocks
  CHECK(names[2] == "blocks.0.ln1.weight");
  CHECK(names[4] == "blocks.0.attn_fn.gain");
  CHECK(names[5] == "blocks.0.attn_fn.bias");
  CHECK(names[6] == "blocks.0.attn.qkv.weight");
  CHECK(identity.find_parameter("blocks.1.attn_fn.gain")->tensor().item(0) == 1.0);
  CHECK(identity.find_parameter("blocks.1.attn_fn.bias")->tensor().item(0) == 0.0);
  CHECK(identity.find_parameter("blocks.1.attn_fn.gain")->tensor().rank() == 0);
  CHECK(identity.learned_functions().empty());

  Transformer per_layer(small_config(AttnFn::spline));
  const auto learned = per_layer.learned_functions();
  REQUIRE(learned.size() == 2);
  CHECK(learned[1].slot == "attn_fn");
  CHECK(learned[1].layer == 1);
  CHECK(learned[1].spline->values().name == "blocks.1.attn_fn.f.values");
  const Tensor v = learned[0].spline->values().tensor();
  CHECK(v.numel() == 64);  // the authors' grid: 64 knots on [-15, 15], all 0.01
  CHECK(v.item(0) == doctest::Approx(0.01));
  CHECK(v.item(63) == doctest::Approx(0.01));

  Transformer shared(small_config(AttnFn::spline, SplineScope::shared));
  const auto one = shared.learned_functions();
  REQUIRE(one.size() == 1);
  CHECK(one[0].layer == -1);
  CHECK(one[0].spline->values().name == "attn_fn.values");
  CHECK(has_name(names_of(shared), "blocks.1.attn_fn.gain"));
}

TEST_CASE("attention function: config JSON round trip; configs without it have it off") {
  ModelConfig c = small_config(AttnFn::spline, SplineScope::shared);
  c.attn_fn_spline.grid = SplineGrid(9, -2, 3, /*linear=*/true);
  c.attn_fn_spline.init = "identity";
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.to_json() == c.to_json());
  CHECK(back.attn_fn == AttnFn::spline);
  CHECK(back.attn_fn_spline.grid == c.attn_fn_spline.grid);
  CHECK(back.attn_fn_spline.scope == SplineScope::shared);

  const Json off = small_config(AttnFn::off).to_json();
  Json older = Json::object();
  for (auto& [k, v] : off.as_object())
    if (k != "attn_fn" && k != "attn_fn_spline") older.set(k, v);
  const ModelConfig loaded = ModelConfig::from_json(older);
  CHECK(loaded.attn_fn == AttnFn::off);
  CHECK(loaded.attn_fn_spline.grid == default_attn_fn_spline().grid);

  Json bad = c.to_json();
  bad.set("attn_fn", "relu");
  CHECK(test_support::error_of([&] { ModelConfig::from_json(bad); }).find("relu") !=
        std::string::npos);
  ModelConfig bad_init = small_config(AttnFn::spline);
  bad_init.attn_fn_spline.init = "const:x";
  CHECK(test_support::error_of([&] {
          bad_init.validate();
        }).find("model: attention function spline: spline init 'const:x'") == 0);
}

TEST_CASE("attention function: an identity spline gives the identity's model, off another") {
  ModelConfig spline_config = small_config(AttnFn::spline);
  spline_config.attn_fn_spline.grid = SplineGrid(5, -2, 2, /*linear=*/true);
  spline_config.attn_fn_spline.init = "identity";
  Transformer identity(small_config(AttnFn::identity)), spline(spline_config),
      off(small_config(AttnFn::off));
  identity.init(7);
  spline.init(7);
  off.init(7);
  const Tensor a = logits_of(identity), b = logits_of(spline), c = logits_of(off);
  double same = 0, other = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    same = std::max(same, std::fabs(a.item(i) - b.item(i)));
    other = std::max(other, std::fabs(a.item(i) - c.item(i)));
  }
  CHECK(same < 1e-5);
  CHECK(other > 1e-6);  // n + (a n + b) = 2 n feeds Q/K/V, not n
  reset_step();
}

TEST_CASE("architecture files carry the attention function, per layer or shared") {
  test_support::TempDir dir;
  for (SplineScope scope : {SplineScope::layer, SplineScope::shared}) {
    CAPTURE(name_of(scope));
    ModelConfig c = small_config(AttnFn::spline, scope);
    c.mlp_act = MlpAct::spline;
    c.attn_fn_spline.grid = SplineGrid(17, -3, 5, /*linear=*/true);
    Transformer source(c);
    float x = 0.5f;
    for (auto& f : source.learned_functions()) {
      Tensor v = f.spline->values().tensor();
      for (int64_t i = 0; i < v.numel(); ++i) v.data<float>()[i] = (x += 0.25f);
    }
    const std::string path = dir.file("arch.safetensors");
    save_architecture(path, architecture_of(source));
    const Architecture arch = load_architecture(path);
    CHECK(arch.learns("attn_fn"));
    CHECK(arch.attn_fn_spline.grid == c.attn_fn_spline.grid);
    CHECK(arch.attn_fn_spline.scope == scope);
    CHECK(arch.functions.size() == (scope == SplineScope::shared ? 3u : 4u));

    ModelConfig target = small_config(AttnFn::off);
    apply_architecture(arch, target);
    CHECK(target.attn_fn == AttnFn::spline);
    CHECK(target.attn_fn_spline.grid == c.attn_fn_spline.grid);
    Transformer model(target);
    load_architecture_values(arch, model, /*trainable=*/false, "arch");
    for (auto& f : model.learned_functions()) {
      CAPTURE(f.spline->values().name);
      CHECK(values_of(&f.spline->values()) ==
            values_of(source.find_parameter(f.spline->values().name)));
      CHECK(f.spline->values().frozen);
    }
    ModelConfig three = small_config(AttnFn::off);
    three.layers = 3;
    CHECK(test_support::error_of([&] { apply_architecture(arch, three); }) ==
          "the architecture's MLP functions are per layer for 2 layers, but the model has 3");
  }
  // Only the attention function: the MLP stays as configured.
  Transformer only_fn(small_config(AttnFn::spline));
  const Architecture arch = architecture_of(only_fn);
  ModelConfig target = small_config(AttnFn::off);
  target.layers = 3;
  CHECK(test_support::error_of([&] { apply_architecture(arch, target); }) ==
        "the architecture's attention input functions are per layer for 2 layers, but the model "
        "has 3");
  target.layers = 2;
  apply_architecture(arch, target);
  CHECK(target.mlp_act == MlpAct::gelu);
}

TEST_CASE("Stage I routes D_arch only to the attention function, D_wts to gain, bias, weights") {
  SearchConfig s;
  s.base = test_support::tiny_modadd(
      {.width = 32, .layers = 2, .batch = 32, .steps = 6, .eval_every = 3});
  s.base.model.attn_fn = AttnFn::spline;
  s.base.schedule.base_lr = 3e-3;
  s.models = 2;
  Search search(s, "");
  std::vector<Parameter*> shared = search.shared_parameters();
  REQUIRE(shared.size() == 2);  // one attention function per layer
  CHECK(shared[0]->name == "blocks.0.attn_fn.f.values");
  Trainer& t0 = search.models().trainer(0);
  std::vector<Parameter*> weights;
  for (Parameter* p : t0.model().parameters())
    if (p->name.find(".f.values") == std::string::npos) weights.push_back(p);
  REQUIRE(t0.model().find_parameter("blocks.0.attn_fn.gain") != nullptr);
  Parameter* qkv = t0.model().find_parameter("blocks.0.attn.qkv.weight");
  const std::vector<float> qkv_before = values_of(qkv);

  for (Parameter* p : shared) p->value.zero_grad();
  search.arch_backward(0);
  bool weights_quiet = true;
  for (Parameter* p : weights)
    if (p->tensor().has_grad())
      for (int64_t i = 0; i < p->tensor().numel(); ++i)
        weights_quiet = weights_quiet && p->tensor().grad<float>()[i] == 0.0f;
  CHECK(weights_quiet);  // gain and bias too: they are weights, as in the reference
  CHECK(values_of(qkv) == qkv_before);
  bool moved = false;
  for (Parameter* p : shared)
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      moved = moved || p->tensor().grad<float>()[i] != 0.0f;
  CHECK(moved);

  const std::vector<float> spline_before = values_of(shared[0]);
  search.weights_step(0);
  CHECK(values_of(qkv) != qkv_before);
  CHECK(values_of(shared[0]) == spline_before);
  for (const auto& f : t0.model().learned_functions()) {
    const Tensor v = f.spline->values().tensor();
    bool zero = true;
    if (v.has_grad())
      for (int64_t i = 0; i < v.numel(); ++i) zero = zero && v.grad<float>()[i] == 0.0f;
    CHECK(zero);
  }
}

// End to end: modular addition (p = 23) with a tanh attention function per
// layer, frozen from an architecture file, reaches 99% test accuracy within
// 3000 steps in at least 2 of 3 seeds (as tests/test_train_variants.cpp;
// the build changes a seed's trajectory), and the function does not move.
TEST_CASE("modadd to 99%: --attn-fn spline frozen from an architecture file") {
  test_support::TempDir dir;
  ModelConfig source_config = small_config(AttnFn::spline);
  source_config.layers = 1;
  source_config.attn_fn_spline.grid = SplineGrid(33, -4, 4, /*linear=*/false);
  Transformer source(source_config);
  Spline& f = *source.learned_functions().at(0).spline;
  for (int64_t k = 0; k < 33; ++k)
    f.values().tensor().data<float>()[k] = float(std::tanh(f.config().grid.knot(k)));
  const std::string path = dir.file("tanh.arch.safetensors");
  save_architecture(path, architecture_of(source));
  const std::vector<float> frozen = values_of(&f.values());

  constexpr int64_t kStepCap = 3000;
  CHECK_SEEDS(2, 3, [&](uint64_t seed, std::ostream& out) {
    TrainConfig c = test_support::grokking_modadd();
    c.model.pos = Positions::none;
    c.arch_file = path;
    c.steps = kStepCap;
    c.eval_every = 25;
    c.stop_at = 0.99;
    c.seed = seed;
    Trainer t(c, "");
    t.run();
    const double accuracy = t.evaluator().evaluate_split("test").tally.all.accuracy();
    const bool kept = values_of(t.model().find_parameter("blocks.0.attn_fn.f.values")) == frozen;
    out << "attn-fn tanh (frozen): test accuracy " << accuracy << " after " << t.step()
        << " steps, function " << (kept ? "kept" : "moved");
    return accuracy >= 0.99 && t.step() < kStepCap && kept &&
           t.config().model.attn_fn == AttnFn::spline;
  });
}
