// The options of the authors' model (RoPE, RMSNorm, QK norm, no biases, tied
// embeddings, zero-initialised projections): each builds with the parameters
// docs/model.md lists, computes what the doc says, round-trips through the
// config JSON and a checkpoint, and is refused where it cannot apply.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "autograd/ops.h"
#include "engine/safetensors.h"
#include "engine/workspace.h"
#include "nn/transformer.h"
#include "optim/run_folder.h"
#include "optim/train_config.h"
#include "tests/model_inputs.h"
#include "tests/test_support.h"

using namespace tapir;
using test_support::parameter_names;
using test_support::small_config;
using test_support::tokens;

namespace {

ModelConfig all_options() {
  ModelConfig c = small_config();
  c.pos = Positions::rope;
  c.norm = NormKind::rms;
  c.qk_norm = true;
  c.bias = false;
  c.tie_embeddings = true;
  c.zero_init_proj = true;
  return c;
}

Tensor filled(const Shape& s, double scale) {
  Tensor t = empty(s, DType::f64);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<double>()[i] = scale * std::sin(1.3 * double(i));
  return t;
}

double max_abs(Tensor t) {
  double worst = 0;
  for (int64_t i = 0; i < t.numel(); ++i) worst = std::max(worst, std::fabs(t.item(i)));
  return worst;
}

}  // namespace

TEST_CASE("rope rotates the half-split pairs of the reference, so q . k depends on i - j") {
  // D = 4: pairs (x0, x2) and (x1, x3), angles t and t / 100 (base 10000).
  Tensor x = filled({1, 3, 1, 4}, 1.0);
  Tensor y = rope(x, 10000.0);
  for (int64_t t = 0; t < 3; ++t)
    for (int64_t i = 0; i < 2; ++i) {
      const double angle = double(t) * std::pow(10000.0, -double(2 * i) / 4.0);
      const double a = x.item(t * 4 + i), b = x.item(t * 4 + 2 + i);
      CHECK(y.item(t * 4 + i) == doctest::Approx(a * std::cos(angle) + b * std::sin(angle)));
      CHECK(y.item(t * 4 + 2 + i) == doctest::Approx(-a * std::sin(angle) + b * std::cos(angle)));
    }
  // The same q and k at every position: the rotated dot products depend on
  // the distance only.
  const int64_t T = 7, D = 8;
  Tensor qk = empty({1, T, 2, D}, DType::f64);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t d = 0; d < 2 * D; ++d)
      qk.data<double>()[t * 2 * D + d] = std::cos(0.7 * double(d));
  Tensor r = rope(qk, 10.0);
  const auto dot = [&](int64_t i, int64_t j) {
    double s = 0;
    for (int64_t d = 0; d < D; ++d) s += r.item(i * 2 * D + d) * r.item(j * 2 * D + D + d);
    return s;
  };
  CHECK(dot(5, 2) == doctest::Approx(dot(3, 0)).epsilon(1e-12));
  CHECK(dot(6, 6) == doctest::Approx(dot(0, 0)).epsilon(1e-12));
  CHECK(std::fabs(dot(4, 1) - dot(4, 3)) > 1e-3);  // but it does depend on it
  reset_step();
}

TEST_CASE("QK transform: unit RMS per head of q and k, v untouched, rope after the norm") {
  const int64_t B = 2, T = 3, C = 8, H = 2, D = C / H;
  Tensor qkv = filled({B, T, 3 * C}, 3.0);
  const Tensor out = QkTransform{true, true, 10000.0}.apply(qkv, H);
  for (int64_t row = 0; row < B * T; ++row) {
    for (int64_t v = 2 * C; v < 3 * C; ++v)
      CHECK(out.item(row * 3 * C + v) == qkv.item(row * 3 * C + v));
    for (int64_t head = 0; head < 2 * H; ++head) {  // rotation keeps the norm
      double sq = 0;
      for (int64_t d = 0; d < D; ++d) sq += std::pow(out.item(row * 3 * C + head * D + d), 2);
      CHECK(std::sqrt(sq / double(D)) == doctest::Approx(1.0).epsilon(1e-6));
    }
  }
  CHECK(QkTransform{}.apply(qkv, H).impl() == qkv.impl());  // off: the same tensor
  reset_step();
}

TEST_CASE("rope gives the attention the order of the tokens, with softmax and score-spline") {
  // One block: without positions the last position's output depends on the
  // earlier tokens as a set, so swapping two of them changes nothing; with
  // RoPE it does.
  for (const std::string attn : {"softmax", "score-spline"})
    for (const Positions pos : {Positions::none, Positions::rope}) {
      CAPTURE(attn);
      CAPTURE(name_of(pos));
      ModelConfig c = small_config();
      c.layers = 1;
      c.attn = parse_name<AttentionKind>(attn);
      c.pos = pos;
      c.qk_norm = true;
      Transformer m(c);
      m.init(11);
      NoGrad no_grad;
      Tensor x = tokens(1, 5, c.vocab), swapped = tokens(1, 5, c.vocab);
      std::swap(swapped.data<int32_t>()[0], swapped.data<int32_t>()[1]);
      REQUIRE(x.data<int32_t>()[0] != x.data<int32_t>()[1]);
      const Tensor a = m.forward(x), b = m.forward(swapped);
      double change = 0;
      for (int64_t v = 0; v < c.vocab; ++v)
        change = std::max(change, std::fabs(a.item(4 * c.vocab + v) - b.item(4 * c.vocab + v)));
      if (pos == Positions::rope)
        CHECK(change > 1e-4);  // 4e-3 at this init
      else
        CHECK(change < 1e-6);  // rounding only (1e-8)
      reset_step();
    }
}

TEST_CASE("each option builds with the parameters of docs/model.md") {
  ModelConfig c = small_config();
  c.norm = NormKind::rms;
  Transformer rms_model(c);
  std::set<std::string> names = parameter_names(rms_model);
  for (const char* n : {"blocks.0.ln1.weight", "blocks.1.ln2.weight", "ln_f.weight"})
    CHECK(names.count(n) == 1);
  for (const char* n : {"blocks.0.ln1.bias", "ln_f.bias"}) CHECK(names.count(n) == 0);
  CHECK(names.count("blocks.0.attn.qkv.bias") == 1);

  c = small_config();
  c.bias = false;
  Transformer no_bias(c);
  for (Parameter* p : no_bias.parameters())
    CHECK_MESSAGE(p->name.find(".bias") == std::string::npos, p->name);
  CHECK(no_bias.find_parameter("blocks.0.ln1.weight") != nullptr);
  CHECK(no_bias.find_parameter("head.weight")->tensor().shape() == Shape{11, 16});

  c = small_config();
  c.pos = Positions::rope;
  c.qk_norm = true;
  Transformer rope_model(c);
  CHECK(rope_model.find_parameter("pos_emb.weight") == nullptr);
  CHECK(rope_model.parameters().size() == Transformer(small_config()).parameters().size() - 1);

  c = small_config();
  c.tie_embeddings = true;
  Transformer tied(c);
  names = parameter_names(tied);
  CHECK(names.count("head.weight") == 0);
  CHECK(names.count("head.bias") == 1);
  CHECK(names.count("tok_emb.weight") == 1);
}

TEST_CASE("zero-init-proj: projections start at 0, every other draw is unchanged") {
  ModelConfig c = small_config();
  Transformer plain(c);
  c.zero_init_proj = true;
  Transformer zeroed(c);
  plain.init(7);
  zeroed.init(7);
  for (Parameter* p : zeroed.parameters()) {
    CAPTURE(p->name);
    const Tensor before = plain.find_parameter(p->name)->tensor();
    const bool proj = p->name.find("proj.weight") != std::string::npos;
    CHECK(max_abs(p->tensor()) == (proj ? 0.0 : max_abs(before)));
    if (!proj)
      for (int64_t i = 0; i < before.numel(); ++i) REQUIRE(p->tensor().item(i) == before.item(i));
  }
}

TEST_CASE("tied embeddings: one parameter whose gradient is the sum of both uses") {
  ModelConfig c = small_config();
  c.tie_embeddings = true;
  Transformer tied(c);
  tied.init(3);
  c.tie_embeddings = false;
  Transformer untied(c);
  for (Parameter* p : untied.parameters()) {
    const Parameter* src =
        tied.find_parameter(p->name == "head.weight" ? "tok_emb.weight" : p->name);
    REQUIRE(src != nullptr);
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      p->tensor().data<float>()[i] = src->tensor().data<float>()[i];
  }
  // One step each (backward consumes the tape).
  const auto loss_and_backward = [&](Transformer& m) {
    const Tensor x = tokens(2, 6, c.vocab);
    const Tensor loss = cross_entropy(m.forward(x), x);
    const double value = loss.item(0);
    backward(loss);
    reset_step();
    return value;
  };
  const double loss_tied = loss_and_backward(tied);
  CHECK(loss_tied == doctest::Approx(loss_and_backward(untied)).epsilon(1e-6));
  const Tensor g = tied.find_parameter("tok_emb.weight")->tensor();
  const Tensor g_emb = untied.find_parameter("tok_emb.weight")->tensor();
  const Tensor g_head = untied.find_parameter("head.weight")->tensor();
  double emb_part = 0, head_part = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const float want = g_emb.grad<float>()[i] + g_head.grad<float>()[i];
    CHECK(g.grad<float>()[i] == doctest::Approx(want).epsilon(1e-4).scale(1e-6));
    emb_part += std::fabs(g_emb.grad<float>()[i]);
    head_part += std::fabs(g_head.grad<float>()[i]);
  }
  CHECK(emb_part > 0);  // both uses contribute
  CHECK(head_part > 0);
  reset_step();
}

TEST_CASE("all options: config JSON and checkpoint round trip, older configs load as before") {
  ModelConfig c = all_options();
  c.rope_base = 500.0;
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  CHECK(back.to_json() == c.to_json());
  CHECK(back.pos == Positions::rope);
  CHECK(back.norm == NormKind::rms);
  CHECK(back.rope_base == 500.0);
  CHECK((back.qk_norm && !back.bias && back.tie_embeddings && back.zero_init_proj));

  Json older = Json::object();
  const Json current = small_config().to_json();
  for (auto& [k, v] : current.as_object())
    if (k != "rope_base" && k != "norm" && k != "qk_norm" && k != "bias" && k != "tie_embeddings" &&
        k != "zero_init_proj")
      older.set(k, v);
  CHECK(ModelConfig::from_json(older).to_json() == small_config().to_json());

  test_support::TempDir dir;
  TrainConfig tc;
  tc.task = "modadd";
  tc.model = c;
  Transformer model(c);
  model.init(5);
  for (Parameter* p : model.parameters())  // make the zero projections non-zero
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      p->tensor().data<float>()[i] += 0.01f * float(i % 7);
  RunFolder(dir.path().string()).save_checkpoint(model, tc, 9);
  const std::string path = dir.file("checkpoint.safetensors");
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  CHECK(file.find("head.weight") == nullptr);
  CHECK(file.find("tok_emb.weight") != nullptr);
  Transformer loaded(back);
  load_parameters(SafeTensorsFile::load(path), loaded.parameters(), path);
  NoGrad no_grad;
  const Tensor x = tokens(2, 2 * c.context, c.vocab);  // rope: past the context
  const Tensor a = model.forward(x), b = loaded.forward(x);
  for (int64_t i = 0; i < a.numel(); ++i) REQUIRE(a.item(i) == b.item(i));
  reset_step();
}

TEST_CASE("reference options: combinations that cannot apply are refused in one line") {
  ModelConfig c = small_config();
  c.pos = Positions::rope;
  c.attn = AttentionKind::feature_spline;
  CHECK_THROWS_WITH_AS(c.validate(),
                       doctest::Contains("feature-spline cannot be combined with positions rope"),
                       Error);
  c = small_config();
  c.pos = Positions::rope;
  c.width = 12;
  c.heads = 4;  // D = 3
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("rope needs an even head width"), Error);
  c = small_config();
  c.rope_base = 1.0;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("rope base must be finite and above 1"),
                       Error);
  c = small_config();
  c.tie_embeddings = true;
  c.input = ModelInput::frames;
  c.frame_dim = 3;
  CHECK_THROWS_WITH_AS(c.validate(), doctest::Contains("tie-embeddings needs token input"), Error);
  Json named = small_config().to_json();
  named.set("norm", "batch");
  CHECK_THROWS_WITH_AS(ModelConfig::from_json(named), doctest::Contains("unknown norm 'batch'"),
                       Error);
}
