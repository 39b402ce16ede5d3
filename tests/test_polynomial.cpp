// Polynomial export: the fit (exact on a line, error falling with the
// degree, the reported error equal to the one measured here), the
// Polynomial activation against its own scalar evaluation and finite
// differences, the model's and the poly file's checks, and the range a run's
// inputs visit (lab/poly_fit.h) on a run trained for a few steps; and the
// roughness measures of `tapir arch stats` (lab/arch_stats.h).
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "autograd/tape.h"
#include "base/file_io.h"
#include "lab/arch_stats.h"
#include "lab/poly_fit.h"
#include "nn/architecture.h"
#include "nn/polynomial.h"
#include "nn/spline.h"
#include "optim/trainer.h"
#include "tests/tiny_config.h"

using namespace tapir;
namespace fs = std::filesystem;

namespace {

Tensor f64_tensor(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, DType::f64);
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}

// The spline's values at n evenly spaced inputs of [lo, hi], through the op.
std::vector<double> spline_at(const std::vector<float>& values, const SplineGrid& grid, double lo,
                              double hi, int n) {
  std::vector<double> x(static_cast<size_t>(n)), v(values.begin(), values.end());
  for (int i = 0; i < n; ++i) x[size_t(i)] = lo + (hi - lo) * i / double(n - 1);
  const Tensor y = spline(f64_tensor(x), f64_tensor(v), grid);
  std::vector<double> out(y.data<double>(), y.data<double>() + n);
  reset_step();
  return out;
}

std::vector<float> gelu_spline_values(const SplineConfig& c) {
  const std::vector<double> v = spline_init_values(c);
  return std::vector<float>(v.begin(), v.end());
}

}  // namespace

TEST_CASE("fit-poly: a line is fitted exactly, and the error falls with the degree") {
  const SplineGrid grid(41, -4, 4, true);
  std::vector<float> line;
  for (int64_t k = 0; k < grid.knots(); ++k) line.push_back(float(0.5 - 0.25 * grid.knot(k)));
  for (int degree : {1, 3}) {
    FitError e;
    const PolyFunction p = fit_polynomial(line, grid, -3, 2, degree, &e);
    CHECK(e.max_abs < 1e-6);  // the knots are f32: exact to their rounding
    CHECK(p(-3) == doctest::Approx(1.25).epsilon(1e-6));
    CHECK(p(2) == doctest::Approx(0.0).epsilon(1e-6));
  }
  SplineConfig gelu;
  gelu.grid = SplineGrid(121, -6, 6, true);
  const std::vector<float> values = gelu_spline_values(gelu);
  double previous = 1e9;
  for (int degree : {2, 4, 8}) {
    CAPTURE(degree);
    FitError e;
    const PolyFunction p = fit_polynomial(values, gelu.grid, -3, 3, degree, &e);
    CHECK(p.degree() == degree);
    CHECK(e.max_abs < previous);
    CHECK(e.rms <= e.max_abs);
    previous = e.max_abs;
    // The error reported is the error measured here, on the same points.
    const std::vector<double> s = spline_at(values, gelu.grid, -3, 3, 2001);
    double worst = 0;
    for (int i = 0; i < 2001; ++i)
      worst = std::max(worst, std::fabs(p(-3 + 6.0 * i / 2000) - s[size_t(i)]));
    CHECK(worst == doctest::Approx(e.max_abs).epsilon(1e-9));
  }
  CHECK(previous < 0.01);  // degree 8 follows GeLU on [-3, 3] within 0.01
  CHECK_THROWS_WITH_AS(fit_polynomial(values, gelu.grid, 1, 1, 3),
                       "fit-poly: the range needs finite lo < hi, got [1, 1]", Error);
  CHECK_THROWS_WITH_AS(fit_polynomial(values, gelu.grid, -1, 1, 21),
                       "fit-poly: the degree must be in [0, 20], got 21", Error);
}

TEST_CASE("fit-poly weighted by the inputs: exact where they fall, clamped outside its range") {
  // |x| on [-3, 3]: no line follows it everywhere, one follows its right half.
  const SplineGrid grid(61, -3, 3, true);
  std::vector<float> vee;
  for (int64_t k = 0; k < grid.knots(); ++k) vee.push_back(float(std::fabs(grid.knot(k))));
  std::vector<double> right(kPolyFitPoints, 0.0);
  for (int i = kPolyFitPoints / 2 + 50; i < kPolyFitPoints; ++i) right[size_t(i)] = 1 + i % 3;
  FitError uniform_error, weighted_error;
  fit_polynomial(vee, grid, -3, 3, 1, &uniform_error);
  const PolyFunction p = fit_polynomial(vee, grid, -3, 3, 1, &weighted_error, right);
  CHECK(uniform_error.max_abs > 0.5);
  CHECK(weighted_error.max_abs < 1e-6);  // measured where the weight is not 0 only
  CHECK(weighted_error.rms < 1e-6);
  CHECK(p(2) == doctest::Approx(2).epsilon(1e-6));
  // Clamped: constant beyond the fitted range, as the spline's constant extrapolation.
  CHECK(p.clamp);
  CHECK(p(10) == doctest::Approx(p(3)));
  CHECK(p(-10) == doctest::Approx(p(-3)));
  PolyFunction unclamped = p;
  unclamped.clamp = false;
  CHECK(unclamped(10) == doctest::Approx(10).epsilon(1e-6));

  CHECK_THROWS_WITH_AS(fit_polynomial(vee, grid, -3, 3, 1, nullptr, std::vector<double>(5, 1.0)),
                       "fit-poly: 5 weights, expected one per fit point (2001)", Error);
  CHECK_THROWS_WITH_AS(
      fit_polynomial(vee, grid, -3, 3, 1, nullptr, std::vector<double>(kPolyFitPoints, 0.0)),
      "fit-poly: every weight is 0 (no input fell in [-3, 3])", Error);
}

TEST_CASE("the Polynomial activation: its values and its gradient against finite differences") {
  PolyFunction f;
  f.lo = -2;
  f.hi = 3;
  f.coefficients = {0.3, -1.2, 0.7, 0.25, -0.1};
  Polynomial poly(f);
  const std::vector<double> x = {-2.5, -2, -0.3, 0, 0.8, 2.9, 4};
  const Tensor y = poly.forward(f64_tensor(x));
  for (size_t i = 0; i < x.size(); ++i) {
    const double t = (2 * x[i] - f.lo - f.hi) / (f.hi - f.lo);
    double direct = 0;
    for (size_t k = 0; k < f.coefficients.size(); ++k) direct += f.coefficients[k] * std::pow(t, k);
    CHECK(y.data<double>()[i] == doctest::Approx(direct).epsilon(1e-12));
    CHECK(f(x[i]) == doctest::Approx(direct).epsilon(1e-12));
  }
  reset_step();
  for (const std::vector<double>& c :
       std::vector<std::vector<double>>{{1.5}, {0.2, -1}, f.coefficients}) {
    PolyFunction g = f;
    g.coefficients = c;
    Polynomial p(g);
    Tensor in = f64_tensor(x);
    in.set_requires_grad(true);
    const GradcheckResult r =
        gradcheck([&](const std::vector<Tensor>& v) { return p.forward(v[0]); }, {in});
    INFO("degree " << g.degree() << ": " << r.worst);
    CHECK(r.max_error < 1e-6);
    reset_step();
  }
}

TEST_CASE("a model with polynomial activations: its checks and its config") {
  ModelConfig c;
  c.vocab = 10;
  c.context = 8;
  c.width = 16;
  c.heads = 2;
  c.layers = 2;
  c.mlp_act = MlpAct::poly;
  CHECK_THROWS_WITH_AS(c.validate(),
                       "model: mlp act poly needs one polynomial for every block (layer -1) or "
                       "one per block (2), got 0 (give them with --mlp-poly FILE)",
                       Error);
  PolyFunction f;
  f.coefficients = {0.1, 0.5, 0.2};
  c.mlp_poly = {f};  // layer -1: every block
  CHECK_NOTHROW(c.validate());
  // One polynomial of block 0 (a per-block spline of a one-block model) fits one block only.
  c.mlp_poly[0].layer = 0;
  CHECK_THROWS_WITH_AS(c.validate(),
                       "model: mlp act poly needs one polynomial for every block (layer -1) or "
                       "one per block (2), got 1 (give them with --mlp-poly FILE)",
                       Error);
  ModelConfig one_block = c;
  one_block.layers = 1;
  CHECK_NOTHROW(one_block.validate());
  const Transformer built(one_block);
  CHECK(built.config().mlp_poly.size() == 1);
  c.mlp_poly = {f, f};
  CHECK_THROWS_WITH_AS(c.validate(), "model: MLP polynomial 0 is for layer -1, expected 0", Error);
  c.mlp_poly[0].layer = 0;
  c.mlp_poly[1].layer = 1;
  c.mlp_poly[1].coefficients = {0.0, 1.0, 0.0, 0.3};
  CHECK_NOTHROW(c.validate());
  const ModelConfig back = ModelConfig::from_json(c.to_json());
  REQUIRE(back.mlp_poly.size() == 2);
  CHECK(back.mlp_poly[1].coefficients == c.mlp_poly[1].coefficients);
  // Built, each block uses its own polynomial; the model has no parameter for them.
  Transformer model(c);
  for (Parameter* p : model.parameters()) CHECK(p->name.find("act") == std::string::npos);
  ModelConfig gelu = c;
  gelu.mlp_act = MlpAct::gelu;
  CHECK_THROWS_WITH_AS(gelu.validate(),
                       "model: MLP polynomials given, but mlp act is 'gelu', not poly", Error);
}

TEST_CASE("poly files: written and read back whole, damaged ones refused by name") {
  const fs::path dir = fs::temp_directory_path() / ("tapir_poly_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  PolyFile file;
  file.source = "arch.safetensors";
  file.degree = 2;
  FittedPoly a;
  a.name = "blocks.0.mlp.act.values";
  a.poly.layer = 0;
  a.poly.coefficients = {0.1, 0.2, 0.3};
  a.range_from = "--range";
  a.error = {0.01, 0.005};
  FittedPoly b = a;
  b.name = "blocks.1.mlp.act.values";
  b.poly.layer = 1;
  file.functions = {a, b};
  const std::string path = (dir / "p.json").string();
  save_poly_file(path, file);
  const PolyFile back = load_poly_file(path);
  CHECK(back.degree == 2);
  CHECK(back.functions.size() == 2);
  CHECK(back.functions[1].poly.coefficients == b.poly.coefficients);
  CHECK(back.functions[0].error.rms == 0.005);
  CHECK(poly_functions(back).size() == 2);
  file.functions = {b, a};
  save_poly_file(path, file);
  CHECK_THROWS_WITH_AS(load_poly_file(path),
                       (path + ": function 0 is for layer 1, expected 0 (one polynomial for every "
                               "block, or one per block in order)")
                           .c_str(),
                       Error);
  write_file_atomic(path,
                    "{\"format\": \"tapir.arch.v1\", \"source\": \"x\", \"degree\": 1, "
                    "\"functions\": []}");
  CHECK_THROWS_WITH_AS(load_poly_file(path),
                       (path + ": format is 'tapir.arch.v1', expected 'tapir.poly.v1'").c_str(),
                       Error);
  fs::remove_all(dir);
}

TEST_CASE("poly files whose degree, range or errors contradict themselves are refused") {
  const fs::path dir =
      fs::temp_directory_path() / ("tapir_poly_impossible_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "p.json").string();
  PolyFile good;
  good.source = "arch.safetensors";
  good.degree = 2;
  FittedPoly f;
  f.name = "mlp_act.values";
  f.poly.layer = -1;
  f.poly.coefficients = {0.1, 0.2, 0.3};
  f.range_from = "--range";
  f.error = {0.01, 0.005};
  good.functions = {f};
  // The error loading `good` after `edit`.
  const auto load_error = [&](auto&& edit) {
    PolyFile file = good;
    edit(file);
    save_poly_file(path, file);
    try {
      load_poly_file(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(load_error([](PolyFile&) {}) == "");
  CHECK(load_error([](PolyFile& p) { p.degree = 3; }) ==
        path + ": function 0 has 3 coefficients, expected 4 for degree 3");
  CHECK(load_error([](PolyFile& p) { p.degree = 1; }) ==
        path + ": function 0 has 3 coefficients, expected 2 for degree 1");
  CHECK(load_error([](PolyFile& p) { p.degree = -1; }) == path + ": degree -1: expected 0 to 20");
  CHECK(load_error([](PolyFile& p) {
          p.functions[0].poly.lo = -1e308;
          p.functions[0].poly.hi = 1e308;
        }) == path + ": function 0: the range [-1e+308, 1e+308] is too wide to map onto [-1, 1]");
  CHECK(load_error([](PolyFile& p) {
          p.functions[0].poly.lo = 0;
          p.functions[0].poly.hi = 1e-320;
        }).find("is too narrow to map onto [-1, 1]") != std::string::npos);
  CHECK(load_error([](PolyFile& p) { p.functions[0].error.max_abs = -0.01; }) ==
        path +
            ": function 0: max_abs_error -0.01 and rms_error 0.005, expected finite errors >= 0");
  fs::remove_all(dir);
}

TEST_CASE(
    "fit-poly over a run: the range is where the run's inputs went, and must be its functions") {
  const fs::path dir = fs::temp_directory_path() / ("tapir_polyrun_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // An architecture with one GeLU-shaped MLP spline per block.
  TrainConfig c = test_support::tiny_modadd({.layers = 2, .steps = 3, .eval_every = 100});
  c.model.mlp_act = MlpAct::spline;
  c.model.mlp_spline.grid = SplineGrid(41, -8, 8, true);
  c.eval_every = 3;
  {
    const ModelRun r = build_run(c);
    save_architecture((dir / "arch.safetensors").string(), architecture_of(*r.model));
  }
  const std::string arch_path = (dir / "arch.safetensors").string();
  TrainConfig stage2 = c;
  stage2.model.mlp_act = MlpAct::gelu;
  stage2.arch_file = arch_path;
  {
    Trainer t(stage2, (dir / "run").string());
    t.start_fresh(false);
    t.run();
  }
  ModelRun opened = open_run((dir / "run").string());
  PolyRangeSource source;
  source.run = (dir / "run").string();
  source.batches = 4;
  const auto ranges = record_mlp_inputs(opened, source);
  REQUIRE(ranges.size() == 2);
  PolyRangeSource central = source;
  central.central = 0.9;
  const auto central_ranges = record_mlp_inputs(opened, central);
  for (const auto& [name, range] : ranges) {
    CAPTURE(name);
    CHECK(range.lo < 0);  // layer-normed inputs through an N(0, 0.02^2) layer: both signs
    CHECK(range.hi > 0);
    CHECK(range.hi - range.lo < 2);
    // One weight per fit point: every input, counted once (the range holds them all).
    REQUIRE(range.weights.size() == size_t(kPolyFitPoints));
    double inputs = 0;
    for (double w : range.weights) inputs += w;
    CHECK(inputs == 4.0 * 16 * 4 * 64);  // batches x batch x positions x hidden width
    // The central 90%: inside the whole range, and narrower.
    const RecordedInputs& mid = central_ranges.at(name);
    CHECK(mid.lo > range.lo);
    CHECK(mid.hi < range.hi);
    double inside = 0;
    for (double w : mid.weights) inside += w;
    CHECK(inside / inputs == doctest::Approx(0.9).epsilon(0.02));
  }
  const Architecture arch = load_architecture(arch_path);
  const PolyFile fitted = fit_architecture(arch, arch_path, 3, source);
  REQUIRE(fitted.functions.size() == 2);
  CHECK(fitted.functions[0].poly.lo == ranges.at(fitted.functions[0].name).lo);
  CHECK(fitted.functions[0].poly.clamp);
  CHECK(fitted.functions[1].poly.layer == 1);
  CHECK(fitted.functions[0].range_from ==
        "run " + source.run + ", 4 train batches, weighted by the inputs");
  // A run with other functions says nothing about these.
  Architecture other = arch;
  other.functions[0].values[20] += 1;
  CHECK_THROWS_WITH_AS(
      fit_architecture(other, "other.safetensors", 3, source),
      ("fit-poly: " + source.run +
       " did not train with the function 'blocks.0.mlp.act.values' of other.safetensors (give a "
       "run made with --arch of that file, or --range LO,HI)")
          .c_str(),
      Error);
  // A run with the polynomials trains and keeps them in its config.
  save_poly_file((dir / "p.json").string(), fitted);
  TrainConfig poly = c;
  poly.model.mlp_act = MlpAct::poly;
  poly.model.mlp_poly = poly_functions(load_poly_file((dir / "p.json").string()));
  {
    Trainer t(poly, (dir / "poly").string());
    t.start_fresh(false);
    t.run();
  }
  const TrainConfig stored =
      read_json_file((dir / "poly" / "config.json").string(), TrainConfig::from_json);
  CHECK(stored.model.mlp_act == MlpAct::poly);
  CHECK(stored.model.mlp_poly[1].coefficients == fitted.functions[1].poly.coefficients);
  fs::remove_all(dir);
}

TEST_CASE("arch stats: curvature of x^2 is 2 at any spacing; a zigzag is rough and fits badly") {
  tapir::Architecture arch;
  arch.mlp_learned = true;
  arch.mlp_spline.grid = tapir::SplineGrid(25, -6, 6, true);  // spacing 0.5
  std::vector<float> square, zigzag;
  for (int64_t k = 0; k < 25; ++k) {
    const double x = arch.mlp_spline.grid.knot(k);
    square.push_back(static_cast<float>(x * x));
    zigzag.push_back(k % 2 ? 1.0f : -1.0f);
  }
  arch.functions.push_back({"blocks.0.mlp.act.values", "mlp", 0, 1, square});
  arch.functions.push_back({"blocks.1.mlp.act.values", "mlp", 1, 1, zigzag});
  const auto stats = tapir::arch_roughness(arch, -3, 3);
  REQUIRE(stats.size() == 2);
  CHECK(stats[0].knots_in_range == 13);  // -3, -2.5, ..., 3
  CHECK(stats[0].spacing == doctest::Approx(0.5));
  CHECK(stats[0].curvature_rms == doctest::Approx(2.0));  // (x-h)^2 - 2x^2 + (x+h)^2 = 2h^2
  CHECK(stats[0].poly8_rms < 0.02);  // the piecewise-linear x^2, nearly a polynomial
  CHECK(stats[1].curvature_rms == doctest::Approx(16.0));  // |d2| = 4, / 0.25
  CHECK(stats[1].poly8_rms > 0.5);
  const std::string text = tapir::roughness_text(stats, -3, 3);
  CHECK(text.find("blocks.1.mlp.act.values: 13 knots in [-3, 3] (spacing 0.5): curvature rms 16") !=
        std::string::npos);
  CHECK(text.find("mean of 2 functions: curvature rms 9") != std::string::npos);
  CHECK_THROWS_WITH_AS(tapir::arch_roughness(arch, 0.1, 1.1),
                       doctest::Contains("has 2 knots in [0.1, 1.1]"), tapir::Error);
  CHECK_THROWS_WITH_AS(tapir::arch_roughness(arch, 1, -1), doctest::Contains("LO < HI"),
                       tapir::Error);
}
