// The transformer's variants: position schemes (ALiBi slopes against the
// published values, the sinusoidal table, running past the training length
// without a position table), where the learned functions sit and what their
// parameters are called, and the configuration checks.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <string>

#include "autograd/ops.h"
#include "engine/workspace.h"
#include "nn/positions.h"
#include "nn/transformer.h"
#include "tests/model_inputs.h"

using namespace tapir;
using test_support::parameter_names;
using test_support::small_config;
using test_support::tokens;

namespace {}  // namespace

TEST_CASE("ALiBi slopes match the published values for 4, 8 and 6 heads") {
  // Press et al. 2022 (get_slopes in the authors' code).
  const std::vector<double> four = {0.25, 0.0625, 0.015625, 0.00390625};
  const std::vector<double> eight = {0.5,     0.25,     0.125,     0.0625,
                                     0.03125, 0.015625, 0.0078125, 0.00390625};
  const std::vector<double> six = {0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125};
  for (const auto& [n, want] : {std::pair{4, four}, std::pair{8, eight}, std::pair{6, six}}) {
    const std::vector<double> got = alibi_slopes(n);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i)
      CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-15));
  }
  CHECK(alibi_slopes(1) == std::vector<double>{std::pow(2.0, -8.0)});
}

TEST_CASE("sinusoidal table: scaled sin on even columns, cos on odd ones") {
  std::vector<float> table(5 * 8);
  sinusoidal_table(5, 8, 0.5, table.data());
  CHECK(table[0] == 0.0f);                                 // t = 0: sin 0
  CHECK(table[1] == 0.5f);                                 // cos 0
  const double slow = 3.0 / std::pow(10000.0, 4.0 / 8.0);  // column pair i = 2
  CHECK(table[3 * 8 + 0] == doctest::Approx(0.5 * std::sin(3.0)));
  CHECK(table[3 * 8 + 1] == doctest::Approx(0.5 * std::cos(3.0)));
  CHECK(table[3 * 8 + 4] == doctest::Approx(0.5 * std::sin(slow)));
  CHECK(table[3 * 8 + 5] == doctest::Approx(0.5 * std::cos(slow)));
}

TEST_CASE("learned functions are parameters with stable names, per layer or shared") {
  ModelConfig c = small_config();
  c.mlp_act = MlpAct::spline;
  c.attn = AttentionKind::score_spline;
  Transformer per_layer(c);
  std::set<std::string> names = parameter_names(per_layer);
  for (const char* n :
       {"blocks.0.mlp.act.values", "blocks.1.mlp.act.values", "blocks.0.attn.kernel.values",
        "blocks.1.attn.kernel.values", "pos_emb.weight"})
    CHECK(names.count(n) == 1);
  CHECK(per_layer.find_parameter("blocks.1.mlp.act.values")->tensor().shape() == Shape{121});
  CHECK_FALSE(per_layer.find_parameter("blocks.1.mlp.act.values")->decay);
  CHECK(per_layer.learned_functions().size() == 4);

  c.mlp_spline.scope = SplineScope::shared;
  c.attn_spline.scope = SplineScope::shared;
  c.score_per_head = true;
  c.pos = Positions::alibi;
  Transformer shared(c);
  names = parameter_names(shared);
  CHECK(names.count("mlp_act.values") == 1);
  CHECK(names.count("attn_kernel.values") == 1);
  CHECK(names.count("blocks.0.mlp.act.values") == 0);
  CHECK(names.count("pos_emb.weight") == 0);
  CHECK(shared.find_parameter("attn_kernel.values")->tensor().shape() == Shape{4, 121});
  const auto learned = shared.learned_functions();
  REQUIRE(learned.size() == 2);
  CHECK(learned[0].slot == "mlp");
  CHECK(learned[0].layer == -1);
  CHECK(learned[1].spline->values().name == "attn_kernel.values");

  // One shared spline receives the gradient of every layer.
  shared.init(1);
  Tensor loss = cross_entropy(shared.forward(tokens(2, 5, c.vocab)), tokens(2, 5, c.vocab));
  backward(loss);
  Tensor g = shared.find_parameter("mlp_act.values")->tensor();
  double norm = 0;
  for (int64_t k = 0; k < g.numel(); ++k) norm += std::fabs(g.grad<float>()[k]);
  CHECK(norm > 0);
  reset_step();
}

TEST_CASE("without a position table the model runs past its training length") {
  for (const char* pos : {"alibi", "none"}) {
    CAPTURE(pos);
    ModelConfig c = small_config();
    c.pos = parse_name<Positions>(pos);
    c.attn = AttentionKind::score_spline;
    Transformer m(c);
    m.init(3);
    NoGrad no_grad;
    // Twice the context: runs, stays finite, and (causal, no table) the first
    // T positions see exactly what they saw in a sequence of length T.
    Tensor long_tokens = tokens(2, 2 * c.context, c.vocab);
    Tensor short_tokens = empty({2, c.context}, DType::i32);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < c.context; ++t)
        short_tokens.data<int32_t>()[b * c.context + t] =
            long_tokens.data<int32_t>()[b * 2 * c.context + t];
    Tensor long_logits = m.forward(long_tokens), short_logits = m.forward(short_tokens);
    double worst = 0;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = 0; t < c.context; ++t)
        for (int64_t v = 0; v < c.vocab; ++v)
          worst =
              std::max(worst, std::fabs(long_logits.item((b * 2 * c.context + t) * c.vocab + v) -
                                        short_logits.item((b * c.context + t) * c.vocab + v)));
    CHECK(worst < 1e-5);
    for (int64_t i = 0; i < long_logits.numel(); ++i) REQUIRE(std::isfinite(long_logits.item(i)));
    reset_step();
  }
  for (const char* pos : {"learned", "sinusoidal"}) {
    ModelConfig c = small_config();
    c.pos = parse_name<Positions>(pos);
    Transformer m(c);
    NoGrad no_grad;
    CHECK_THROWS_WITH_AS(m.forward(tokens(1, 2 * c.context, c.vocab)),
                         doctest::Contains("does not fit the model's context"), Error);
    reset_step();
  }
}

TEST_CASE("model config: invalid combinations are refused with a clear message") {
  ModelConfig c = small_config();
  c.attn = AttentionKind::feature_spline;
  c.pos = Positions::alibi;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("feature-spline cannot be combined"), Error);
  c = small_config();
  c.score_per_head = true;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("score-per-head needs"), Error);
  c = small_config();
  // A name outside a closed choice cannot be held by the config; it is
  // refused where it is read.
  Json named = c.to_json();
  named.set("pos", "rotary");
  CHECK_THROWS_WITH_AS(ModelConfig::from_json(named),
                       doctest::Contains("unknown position scheme 'rotary'"), Error);
  named = c.to_json();
  named.set("attn", "linear");
  CHECK_THROWS_WITH_AS(ModelConfig::from_json(named),
                       doctest::Contains("unknown attention 'linear'"), Error);
  c = small_config();
  c.mlp_act = MlpAct::spline;
  c.mlp_spline.init = "sine";
  CHECK_THROWS_WITH_AS(
      c.validate(),
      doctest::Contains("MLP spline: unknown spline init 'sine' (known: gelu, identity, const)"),
      Error);
}

TEST_CASE("model config: JSON round trip of the new fields, and older configs still load") {
  ModelConfig c = small_config();
  c.mlp_act = MlpAct::spline;
  c.attn = AttentionKind::score_spline;
  c.pos = Positions::alibi;
  c.score_per_head = true;
  c.mlp_spline.grid = SplineGrid(64, -15, 15, /*linear=*/false);
  c.mlp_spline.init = "const:0.01";
  c.attn_spline.scope = SplineScope::shared;
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.to_json() == c.to_json());
  CHECK(back.mlp_spline.init == "const:0.01");
  CHECK(back.attn_spline.init == "identity");

  Json old = small_config().to_json();
  Json::Object kept;
  for (auto& [k, v] : old.as_object())
    if (k != "mlp_spline" && k != "attn_spline" && k != "score_per_head") kept.emplace_back(k, v);
  Json older = Json::object();
  for (auto& [k, v] : kept) older.set(k, v);
  const ModelConfig loaded = ModelConfig::from_json(older);
  CHECK(loaded.mlp_spline.grid.knots() == 121);
  CHECK(loaded.attn_spline.init == "identity");
}

TEST_CASE("model FLOPs per token: 6 N + 12 L T C, and 4 N + 12 L T C without weight gradients") {
  ModelConfig c;
  c.vocab = 99;
  c.width = 128;
  c.layers = 2;
  c.mlp_ratio = 4;
  // tiny of `tapir bench`: N = 2 (4 + 8) 128^2 + 128 x 99 = 405,888 weights.
  const double N = 405888.0, attention = 12.0 * 2 * 4 * 128;
  CHECK(model_flops_per_token(c, 4) == doctest::Approx(6 * N + attention));
  CHECK(model_flops_per_token(c, 4) == doctest::Approx(2.448e6).epsilon(1e-3));  // the docs' 2.45
  CHECK(model_flops_per_token_frozen(c, 4) == doctest::Approx(4 * N + attention));
}
