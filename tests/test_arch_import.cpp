// `tapir arch import` (nn/arch_import.h): the authors' three published CSV
// files (data/lm-afs/) become architecture files whose splines equal the
// CSV at the knots, interpolate linearly between them and are constant
// outside; damaged CSVs are refused with one line naming the file and the
// line; a model trained with an imported file keeps its functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "base/file_io.h"
#include "nn/arch_import.h"
#include "optim/trainer.h"
#include "tests/test_support.h"
#include "tests/tiny_config.h"
#include "tools/commands.h"

using namespace tapir;

namespace {

using test_support::TempDir;
using Rows = std::vector<std::vector<double>>;

const std::string kDir = TAPIR_LM_AFS_DIR;
const std::string kMlp = kDir + "/ptAf-optimizedMlp-layerSpecific-phase1-step20000.csv";
const std::string kShared = kDir + "/ptAf-optimizedMlpAtt-layerShared-phase1-step20000.csv";
const std::string kSpecific = kDir + "/ptAf-optimizedMlpAtt-layerSpecific-phase1-step20000.csv";

// The CSV read directly: one vector of numbers per line.
Rows read_csv(const std::string& path) {
  std::ifstream in(path);
  Rows rows;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream s(line);
    std::string field;
    while (std::getline(s, field, ',')) row.push_back(std::stod(field));
    rows.push_back(row);
  }
  return rows;
}

// f(x) for every x of `xs`, through the Spline module tapir trains with.
std::vector<double> evaluate(const Architecture& arch, const Architecture::Function& f,
                             const std::vector<double>& xs) {
  Spline spline(arch.spline_of(f));
  write_bytes(spline.values().tensor(), f.values.data());
  Tensor x = empty({int64_t(xs.size())}, DType::f32);
  for (size_t i = 0; i < xs.size(); ++i) x.data<float>()[i] = float(xs[i]);
  NoGrad no_grad;
  const Tensor y = spline.forward(x);
  std::vector<double> out;
  for (int64_t i = 0; i < y.numel(); ++i) out.push_back(y.item(i));
  reset_step();
  return out;
}

// Every function of `arch` against CSV values `csv` (pair p: line 2p + 1).
void check_against_csv(const Architecture& arch, const Rows& csv, int64_t layers) {
  const std::vector<double>& knots = csv[0];
  const auto K = knots.size();
  for (const Architecture::Function& f : arch.functions) {
    CAPTURE(f.name);
    const int64_t layer = f.layer < 0 ? 0 : f.layer;
    const std::vector<double>& v = csv[size_t(2 * ((f.slot == "mlp" ? 0 : layers) + layer) + 1)];
    std::vector<double> xs, expected;
    for (size_t k = 0; k < K; ++k) {
      xs.push_back(knots[k]);
      expected.push_back(v[k]);
      if (k + 1 < K) {  // a quarter of the way to the next knot
        xs.push_back(0.75 * knots[k] + 0.25 * knots[k + 1]);
        expected.push_back(0.75 * v[k] + 0.25 * v[k + 1]);
      }
    }
    for (double x : {-15.2, -40.0, -1e4}) {
      xs.push_back(x);
      expected.push_back(v.front());
    }
    for (double x : {15.2, 40.0, 1e4}) {
      xs.push_back(x);
      expected.push_back(v.back());
    }
    // x is rounded to f32 on its way in: allow the steepest slope times
    // that rounding (the published functions jump by 11 between two knots).
    double steepest = 0;
    for (size_t k = 0; k + 1 < K; ++k)
      steepest = std::max(steepest, std::fabs(v[k + 1] - v[k]) / (knots[k + 1] - knots[k]));
    const std::vector<double> y = evaluate(arch, f, xs);
    for (size_t i = 0; i < xs.size(); ++i) {
      CAPTURE(xs[i]);
      const double tolerance = 1e-6 * std::max(1.0, std::fabs(expected[i])) +
                               steepest * 2e-6 * std::min(std::fabs(xs[i]), 16.0);
      CHECK(std::fabs(y[i] - expected[i]) <= tolerance);
    }
  }
}

std::string import_error(const std::string& csv_text, CsvImportOptions options = {}) {
  TempDir dir;
  const std::string path = dir.file("bad.csv");
  write_file_atomic(path, csv_text);
  return test_support::error_of([&] { import_lm_afs_csv(path, options); });
}

CsvImportOptions with_layers(int64_t n) {
  CsvImportOptions o;
  o.layers = n;
  return o;
}

CsvImportOptions with_scope(SplineScope scope) {
  CsvImportOptions o;
  o.scope = scope;
  return o;
}

// Whether `text` (an error message) holds `part`.
void check_has(const std::string& text, const std::string& part) {
  INFO(text);
  CHECK(text.find(part) != std::string::npos);
}

// A well-formed file of `pairs` functions on 3 knots -1, 0, 1.
std::string small_csv(int pairs) {
  std::string text;
  for (int p = 0; p < pairs; ++p) text += "-1,0,1\n" + std::to_string(p) + ",0.5,2\n";
  return text;
}

}  // namespace

TEST_CASE("arch import: the three published files, their scopes and their values") {
  const Architecture mlp = import_lm_afs_csv(kMlp, {});
  CHECK(mlp.mlp_learned);
  CHECK_FALSE(mlp.attn_fn_learned);
  CHECK(mlp.mlp_spline.scope == SplineScope::layer);
  CHECK(mlp.functions.size() == 4);
  CHECK(mlp.mlp_spline.grid == SplineGrid(64, -15, 15, /*linear=*/false));
  check_against_csv(mlp, read_csv(kMlp), 4);

  const Architecture shared = import_lm_afs_csv(kShared, {});
  CHECK(shared.mlp_spline.scope == SplineScope::shared);
  CHECK(shared.attn_fn_spline.scope == SplineScope::shared);
  REQUIRE(shared.functions.size() == 2);
  CHECK(shared.functions[0].name == "mlp_act.values");
  CHECK(shared.functions[1].name == "attn_fn.values");
  check_against_csv(shared, read_csv(kShared), 4);

  const Architecture specific = import_lm_afs_csv(kSpecific, {});
  CHECK(specific.mlp_spline.scope == SplineScope::layer);
  CHECK(specific.attn_fn_spline.scope == SplineScope::layer);
  REQUIRE(specific.functions.size() == 8);
  CHECK(specific.functions[0].name == "blocks.0.attn_fn.f.values");
  CHECK(specific.functions[1].name == "blocks.0.mlp.act.values");
  check_against_csv(specific, read_csv(kSpecific), 4);

  // --scope layer keeps the shared file's four equal copies apart.
  const Architecture copies = import_lm_afs_csv(kShared, with_scope(SplineScope::layer));
  CHECK(copies.functions.size() == 8);
  check_against_csv(copies, read_csv(kShared), 4);
}

TEST_CASE("arch import writes a file that loads, plots and fits only a 4-layer model") {
  TempDir dir;
  CLI::App app;
  Command arch = add_arch_command(app);
  const std::string out = dir.file("shared.arch.safetensors");
  std::vector<std::string> args = {out, "-o", kShared, "import", "arch"};  // reversed for CLI11
  app.parse(args);
  REQUIRE(arch.run() == 0);
  const Architecture loaded = load_architecture(out);
  const Architecture direct = import_lm_afs_csv(kShared, {});
  REQUIRE(loaded.functions.size() == direct.functions.size());
  for (size_t i = 0; i < loaded.functions.size(); ++i)
    CHECK(loaded.functions[i].values == direct.functions[i].values);
  CHECK(loaded.attn_fn_spline.grid == direct.attn_fn_spline.grid);

  const Architecture specific = import_lm_afs_csv(kSpecific, {});
  ModelConfig two;
  two.vocab = 11;
  two.context = 4;
  two.layers = 2;
  CHECK(test_support::error_of([&] { apply_architecture(specific, two); }) ==
        "the architecture's MLP functions are per layer for 4 layers, but the model has 2");
}

TEST_CASE("arch import refuses damaged CSVs with one line naming the file and the line") {
  check_has(import_error(""), "holds no line");
  check_has(import_error(small_csv(4) + "-1,0\n1,2\n"),
            "line 9: has 2 numbers, expected 3 as line 1");
  check_has(import_error("-1,0,1\n0,x,2\n" + small_csv(3)),
            "line 2 number 2: expected a finite number, got 'x'");
  check_has(import_error("-1,0,1\n0,,2\n" + small_csv(3)),
            "line 2 number 2: expected a finite number, got ''");
  check_has(import_error("-1,0,1\n0,nan,2\n" + small_csv(3)), "got 'nan'");
  check_has(import_error(small_csv(4) + "-1,0,1\n"), "has 9 lines, expected an even count");
  check_has(import_error(small_csv(3)),
            "holds 3 functions, expected 4 (MLP) or 8 (MLP, then attention)");
  CHECK(import_error(small_csv(3), with_layers(3)).empty());  // right for 3 layers
  check_has(import_error(small_csv(2) + "\n" + small_csv(2)),
            "line 5: is empty, expected comma-separated numbers");
  CHECK(import_error(small_csv(4) + "\n\n").empty());  // blank lines at the end
  check_has(import_error("0,-1,1\n1,2,3\n" + small_csv(3)),
            "line 1: knot 2 (-1) does not exceed knot 1 (0)");
  check_has(import_error("-1,0.5,1\n1,2,3\n" + small_csv(3)),
            "line 1: knot 2 is 0.5, expected 0 (equally spaced knots from -1 to 1)");
  check_has(import_error(small_csv(3) + "-1,0.1,1\n1,2,3\n"),
            "line 7: the knots differ from those of line 1");
  check_has(import_error(small_csv(4), with_scope(SplineScope::shared)),
            "the mlp functions differ between layers, so they cannot be shared");
  check_has(import_error("5\n1\n5\n1\n5\n1\n5\n1\n"), "has 1 knots, expected 2");
  CHECK(import_error(small_csv(4), with_layers(0)) == "--layers must be in [1, 256], got 0");
}

TEST_CASE("train --arch with an imported file: 4 layers learn, the functions stay as imported") {
  TempDir dir;
  const std::string path = dir.file("specific.arch.safetensors");
  save_architecture(path, import_lm_afs_csv(kSpecific, {}));
  TrainConfig c = test_support::tiny_modadd(
      {.p = "23", .width = 16, .layers = 4, .heads = 2, .batch = 16, .steps = 4});
  c.task_options.set("arch-frac", "0");
  c.arch_file = path;
  Trainer t(c, "");
  CHECK(t.config().model.mlp_act == MlpAct::spline);
  CHECK(t.config().model.attn_fn == AttnFn::spline);
  const std::vector<float> qkv_before = [&] {
    const Tensor w = t.model().find_parameter("blocks.3.attn.qkv.weight")->tensor();
    return std::vector<float>(w.data<float>(), w.data<float>() + w.numel());
  }();
  t.run();
  const Architecture now = architecture_of(t.model());
  const Architecture imported = import_lm_afs_csv(kSpecific, {});
  REQUIRE(now.functions.size() == imported.functions.size());
  for (const Architecture::Function& f : imported.functions) {
    CAPTURE(f.name);
    const Tensor v = t.model().find_parameter(f.name)->tensor();
    CHECK(std::vector<float>(v.data<float>(), v.data<float>() + v.numel()) == f.values);
  }
  const Tensor w = t.model().find_parameter("blocks.3.attn.qkv.weight")->tensor();
  CHECK(std::vector<float>(w.data<float>(), w.data<float>() + w.numel()) != qkv_before);
}
