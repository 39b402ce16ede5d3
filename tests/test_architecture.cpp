// Architecture files (nn/architecture.h): a model's learned functions saved
// and loaded with their description, applied to a new model (frozen or
// trainable) through the training config, refused where they do not fit;
// and the SVG figure of `tapir plot arch`.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "base/file_io.h"
#include "engine/safetensors.h"
#include "nn/architecture.h"
#include "optim/trainer.h"
#include "report/arch_plot.h"
#include "report/svg.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"
#include "tools/commands.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

using test_support::TempDir;

ModelConfig learned_config() {
  ModelConfig c;
  c.vocab = 25;
  c.context = 4;
  c.width = 16;
  c.heads = 4;
  c.layers = 2;
  c.mlp_act = MlpAct::spline;
  c.mlp_spline.grid = SplineGrid(33, -4, 4, /*linear=*/false);
  c.attn = AttentionKind::score_spline;
  c.attn_spline.scope = SplineScope::shared;
  c.score_per_head = true;
  return c;
}

// Gives every learned function distinct values, so a copy can be checked.
void scribble(Transformer& m) {
  float x = 0.25f;
  for (auto& f : m.learned_functions()) {
    Tensor v = f.spline->values().tensor();
    for (int64_t i = 0; i < v.numel(); ++i) v.data<float>()[i] = (x += 0.125f);
  }
}

TrainConfig tiny_run(const std::string& arch_file, bool trainable) {
  TrainConfig c = test_support::tiny_modadd(
      {.p = "23", .layers = 2, .heads = 4, .batch = 32, .steps = 3, .eval_every = 100});
  c.task_options.set("arch-frac", "0");
  c.arch_file = arch_file;
  c.arch_trainable = trainable;
  return c;
}

}  // namespace

TEST_CASE("architecture files round-trip the learned functions and their description") {
  TempDir dir;
  Transformer source(learned_config());
  scribble(source);
  save_architecture(dir.file("arch.safetensors"), architecture_of(source));
  const Architecture a = load_architecture(dir.file("arch.safetensors"));
  CHECK(a.mlp_learned);
  CHECK(a.mlp_spline.grid.knots() == 33);
  CHECK(!a.mlp_spline.grid.linear());
  CHECK(a.attn == AttentionKind::score_spline);
  CHECK(a.score_per_head);
  CHECK(a.attn_spline.scope == SplineScope::shared);
  REQUIRE(a.functions.size() == 3);
  CHECK(a.functions[0].name == "blocks.0.mlp.act.values");
  CHECK(a.functions[2].name == "attn_kernel.values");
  CHECK(a.functions[2].rows == 4);

  // Into a plain config: the learned slots are switched on, then the values
  // copied and frozen.
  ModelConfig target;
  target.vocab = 25;
  target.context = 4;
  target.width = 16;
  target.heads = 4;
  target.layers = 2;
  apply_architecture(a, target);
  CHECK(target.mlp_act == MlpAct::spline);
  CHECK(target.attn == AttentionKind::score_spline);
  Transformer copy(target);
  load_architecture_values(a, copy, /*trainable=*/false, "arch");
  for (const char* name : {"blocks.1.mlp.act.values", "attn_kernel.values"}) {
    Parameter* p = copy.find_parameter(name);
    Parameter* q = source.find_parameter(name);
    for (int64_t i = 0; i < p->tensor().numel(); ++i)
      REQUIRE(p->tensor().item(i) == q->tensor().item(i));
    CHECK(p->frozen);
  }

  // Per-layer functions need the same number of layers; per-head ones the
  // same heads.
  ModelConfig deeper = target;
  deeper.layers = 3;
  CHECK_THROWS_WITH_AS(apply_architecture(a, deeper),
                       doctest::Contains("per layer for 2 layers, but the model has 3"), Error);
  ModelConfig wider = target;
  wider.heads = 2;
  CHECK_THROWS_WITH_AS(apply_architecture(a, wider),
                       doctest::Contains("per head for 4 heads, but the model has 2"), Error);
  // A model without learned functions has nothing to save; other files are refused.
  ModelConfig plain = target;
  plain.mlp_act = MlpAct::gelu;
  plain.attn = AttentionKind::softmax;
  plain.score_per_head = false;
  Transformer gelu_model(plain);
  CHECK_THROWS_WITH_AS(save_architecture(dir.file("none.safetensors"), architecture_of(gelu_model)),
                       doctest::Contains("no learned function"), Error);
  save_safetensors(dir.file("other.safetensors"), {}, {{"format", "tapir.checkpoint.v1"}});
  CHECK_THROWS_WITH_AS(load_architecture(dir.file("other.safetensors")),
                       doctest::Contains("not a tapir architecture file"), Error);
}

TEST_CASE("an architecture file's description is read strictly, naming the file and the key") {
  TempDir dir;
  Transformer source(learned_config());
  const std::string good = dir.file("arch.safetensors");
  save_architecture(good, architecture_of(source));
  const SafeTensorsFile file = SafeTensorsFile::load(good);
  std::vector<SafeTensorWrite> tensors;
  for (const SafeTensorView& v : file.tensors())
    tensors.push_back({v.name, v.dtype, v.shape, v.data});
  // The file with its description changed by `edit`; the error loading it.
  const auto load_error = [&](auto&& edit) {
    Json arch = parse_json(file.metadata_value("arch"));
    edit(arch);
    const std::string bad = dir.file("bad.safetensors");
    save_safetensors(bad, tensors, {{"format", "tapir.arch.v1"}, {"arch", to_json(arch)}});
    try {
      load_architecture(bad);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(load_error([](Json&) {}) == "");
  const std::string bad = dir.file("bad.safetensors");
  CHECK(
      load_error([](Json& a) { a.set("layer", 2); }) ==
      bad +
          ": metadata 'arch': JSON: unknown key 'layer' (known: layers, heads, mlp, attn, attn_fn, "
          "functions)");
  CHECK(load_error([](Json& a) {
          Json attn = a.at("attn");
          attn.set("per-head", true);
          a.set("attn", attn);
        }) == bad +
                  ": metadata 'arch': JSON: unknown key 'attn.per-head' (known: knots, lo, hi, "
                  "extrapolate, init, scope, kernel, per_head)");
  CHECK(load_error([](Json& a) { a.set("heads", "4"); }) ==
        bad + ": metadata 'arch': JSON: key 'heads': expected integer, got string");
  CHECK(load_error([](Json& a) { a.set("heads", 1 << 20); }) ==
        bad + ": metadata 'arch': key 'heads': expected 1 to 65536, got 1048576");
}

TEST_CASE("an architecture file that contradicts itself or the model is refused, naming both") {
  TempDir dir;
  // Per-layer MLP functions for 2 layers, a shared per-head score kernel.
  Transformer source(learned_config());
  scribble(source);
  const std::string good = dir.file("arch.safetensors");
  save_architecture(good, architecture_of(source));
  const SafeTensorsFile file = SafeTensorsFile::load(good);
  const std::string bad = dir.file("bad.safetensors");
  // The error loading the file with its description changed by `edit` and
  // without the tensor `drop` (and its entry in `functions`).
  const auto load_error = [&](auto&& edit, const std::string& drop = "") {
    Json arch = parse_json(file.metadata_value("arch"));
    Json functions = Json::array();
    for (const Json& f : arch.at("functions").as_array())
      if (f.at("name").as_string() != drop) functions.push_back(f);
    arch.set("functions", functions);
    edit(arch);
    std::vector<SafeTensorWrite> tensors;
    for (const SafeTensorView& v : file.tensors())
      if (v.name != drop) tensors.push_back({v.name, v.dtype, v.shape, v.data});
    save_safetensors(bad, tensors, {{"format", "tapir.arch.v1"}, {"arch", to_json(arch)}});
    return test_support::error_of([&] { load_architecture(bad); });
  };
  // Sets key of function k of the description.
  const auto set_function = [](Json& a, size_t k, const std::string& key, Json value) {
    Json functions = a.at("functions");
    functions.as_array()[k].set(key, std::move(value));
    a.set("functions", functions);
  };
  CHECK(load_error([](Json&) {}) == "");
  CHECK(load_error([&](Json& a) { set_function(a, 1, "name", "blocks.0.mlp.act.values"); }) ==
        bad + ": function 'blocks.0.mlp.act.values' is described twice, expected each name once");
  CHECK(load_error([&](Json& a) { set_function(a, 1, "layer", 2); }) ==
        bad +
            ": function 'blocks.1.mlp.act.values' is for layer 2, expected 0 to 1 (its mlp "
            "spline is per layer, 2 layers)");
  CHECK(load_error([&](Json& a) { set_function(a, 1, "layer", 0); }) ==
        bad + ": function 'blocks.1.mlp.act.values' is a second mlp function for layer 0");
  CHECK(load_error([&](Json& a) { set_function(a, 2, "layer", 0); }) ==
        bad +
            ": function 'attn_kernel.values' is for layer 0, expected -1 (its attn spline is "
            "shared)");
  CHECK(load_error([&](Json& a) { set_function(a, 2, "rows", 1); }) ==
        bad +
            ": function 'attn_kernel.values' has 1 rows, expected 4 (per-head score splines, "
            "4 heads)");
  CHECK(load_error([&](Json& a) { set_function(a, 0, "rows", 4); }) ==
        bad + ": function 'blocks.0.mlp.act.values' has 4 rows, expected 1");
  CHECK(load_error([](Json& a) {
          Json attn = a.at("attn");
          attn.set("kernel", "feature-spline");
          a.set("attn", attn);
        }) == bad +
                  ": metadata 'arch': per_head is true for kernel 'feature-spline', expected "
                  "it only with score-spline");
  CHECK(load_error([](Json& a) { a.set("layers", 3); }) ==
        bad + ": describes 2 mlp functions, expected 3 (one per layer, 3 layers)");
  // A file without one layer's function: that layer would keep its
  // initial function.
  CHECK(load_error([](Json&) {}, "blocks.1.mlp.act.values") ==
        bad + ": describes 1 mlp functions, expected 2 (one per layer, 2 layers)");
  const std::string out = dir.file("run");
  CHECK_THROWS_WITH_AS(
      Trainer(tiny_run(bad, false), out),
      (bad + ": describes 1 mlp functions, expected 2 (one per layer, 2 layers)").c_str(), Error);
  CHECK(!fs::exists(out));

  // In memory the same: the model's functions must all be there, each in
  // its own place.
  ModelConfig target = learned_config();
  Transformer model(target);
  Architecture missing = architecture_of(source);
  missing.functions.erase(missing.functions.begin() + 1);
  CHECK(test_support::error_of([&] { load_architecture_values(missing, model, false, "arch"); }) ==
        "arch: has no function 'blocks.1.mlp.act.values' (mlp layer 1), which the model learns");
  Architecture swapped = architecture_of(source);
  std::swap(swapped.functions[0].layer, swapped.functions[1].layer);
  CHECK(test_support::error_of([&] { load_architecture_values(swapped, model, false, "arch"); }) ==
        "arch: function 'blocks.0.mlp.act.values' is for mlp layer 1 with 1 rows, expected mlp "
        "layer 0 with 1 rows as in the model");
}

TEST_CASE("train --arch: the functions are frozen by default, trainable on request") {
  TempDir dir;
  ModelConfig c = learned_config();
  c.vocab = 25;
  Transformer source(c);
  scribble(source);
  const std::string path = dir.file("arch.safetensors");
  save_architecture(path, architecture_of(source));
  for (bool trainable : {false, true}) {
    CAPTURE(trainable);
    Trainer t(tiny_run(path, trainable), "");
    CHECK(t.config().model.mlp_act == MlpAct::spline);
    CHECK(t.config().model.attn == AttentionKind::score_spline);
    t.run();
    bool unchanged = true;
    for (const char* name : {"blocks.0.mlp.act.values", "attn_kernel.values"}) {
      Tensor now = t.model().find_parameter(name)->tensor();
      Tensor before = source.find_parameter(name)->tensor();
      for (int64_t i = 0; i < now.numel(); ++i)
        unchanged = unchanged && now.item(i) == before.item(i);
    }
    CHECK(unchanged == !trainable);
  }
  CHECK_THROWS_WITH_AS(Trainer(tiny_run(dir.file("missing.safetensors"), false), ""),
                       doctest::Contains("does not exist"), Error);
}

TEST_CASE("svg figures: ticks, escaping, one polyline per series") {
  const std::vector<double> ticks = nice_ticks(-20, 20, 5);
  CHECK(ticks == std::vector<double>{-20, -10, 0, 10, 20});
  CHECK(nice_ticks(0, 0.9, 4).size() >= 4);
  CHECK(svg_escape("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;");
  SvgPanel p;
  p.title = "g <1>";
  p.series.push_back({"learned", {0, 1, 2}, {0, 1, 0}, "", false, {}, {}});
  p.series.push_back({"ref", {0, 2}, {0, 2}, "#888", true, {}, {}});
  const std::string svg = svg_figure("t", {p, p, p});
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("g &lt;1&gt;") != std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1))
    ++lines;
  CHECK(lines == 6);
}

TEST_CASE("tapir plot arch writes an SVG with each function and its reference") {
  TempDir dir;
  Transformer source(learned_config());
  save_architecture(dir.file("arch.safetensors"), architecture_of(source));
  CLI::App app;
  Command plot = add_plot_command(app);
  const std::string file = dir.file("arch.safetensors"), out = dir.file("arch.svg");
  std::vector<std::string> args = {out, "-o", file, "arch", "plot"};  // reversed for CLI11
  app.parse(args);
  REQUIRE(plot.run() == 0);
  const std::string svg = read_file(out);
  CHECK(svg.find("layer 1, MLP activation") != std::string::npos);
  CHECK(svg.find("shared, score kernel g(s)") != std::string::npos);
  CHECK(svg.find("GeLU") != std::string::npos);
  CHECK(svg.find("head 3") != std::string::npos);
}

TEST_CASE("plot arch --run: a function drawn where its inputs went, that range shaded") {
  Transformer source(learned_config());
  scribble(source);
  const Architecture arch = architecture_of(source);
  const Architecture::Function& f = arch.functions.front();
  REQUIRE(f.slot == "mlp");
  const SplineGrid& grid = arch.spline_of(f).grid;  // 33 knots on [-4, 4], 0.25 apart
  const UsedRange used{-0.6, 1.0, "central 99% of the inputs"};
  const SvgPanel p = function_panel(arch, f, &used);
  REQUIRE(p.series.size() == 3);  // learned, GeLU, the used range
  // The used range widened by half its width (0.8) each side: [-1.4, 1.8].
  const SvgSeries& learned = p.series[0];
  CHECK(learned.x.front() == doctest::Approx(-1.4));
  CHECK(learned.x.back() == doctest::Approx(1.8));
  CHECK(learned.x.size() == 2 + 13);  // the two ends and the knots -1.25 .. 1.75
  // Each end lies on the spline's segment between the knots around it.
  const auto on_segment = [&](double x, double y) {
    const int64_t k = static_cast<int64_t>(std::floor((x - grid.lo()) / 0.25));
    const double w = (x - grid.knot(k)) / 0.25;
    return y == doctest::Approx(f.values[k] * (1 - w) + f.values[k + 1] * w);
  };
  CHECK(on_segment(learned.x.front(), learned.y.front()));
  CHECK(on_segment(learned.x.back(), learned.y.back()));
  CHECK(p.series[1].x.front() == doctest::Approx(-1.4));  // GeLU over the same x
  const SvgSeries& band = p.series[2];
  CHECK(band.label == used.label);
  CHECK(band.x == std::vector<double>{-0.6, 1.0});
  CHECK(band.band_lo.front() <= band.band_hi.front());

  // A range wider than the knots is cut to them; no range: the whole grid.
  const UsedRange wide{-3.5, 3.5, "all the inputs"};
  CHECK(function_panel(arch, f, &wide).series[0].x.front() == grid.lo());
  const SvgPanel whole = function_panel(arch, f);
  CHECK(whole.series.size() == 2);
  CHECK(whole.series[0].x.size() == 33);
  CHECK(whole.series[0].x.back() == grid.hi());
}
