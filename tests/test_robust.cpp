// Per-layer evaluation and test-time perturbations (optim/layer_eval.h):
// the last layer's tally equals plain evaluation, gamma 0 changes nothing,
// each noise has the stated scale and touches only what it should, and the
// SVG writer's ticks and output.
#include <doctest/doctest.h>

#include <cmath>

#include "autograd/ops.h"
#include "lab/robust_report.h"
#include "optim/layer_eval.h"
#include "optim/trainer.h"
#include "report/svg.h"

using namespace tapir;

namespace {

TrainConfig small(const std::string& task) {
  TrainConfig c;
  c.task = task;
  c.task_options.set("eval-size", "96");
  if (task == "sorted") c.task_options.set("max-len", "8");
  c.model.width = 32;
  c.model.layers = 2;
  c.batch = 32;
  c.eval_batch = 40;  // several batches per split, the last one partial
  c.steps = 10;
  c.seed = 3;
  return c;
}

bool same_tally(const Tally& a, const Tally& b) {
  return a.examples == b.examples && a.correct == b.correct && a.tokens == b.tokens &&
         a.tokens_correct == b.tokens_correct && a.loss_sum == b.loss_sum;
}

}  // namespace

TEST_CASE("the last layer's readout is the model's output, and gamma 0 is plain evaluation") {
  for (const std::string task : {"sorted", "denoise"}) {
    CAPTURE(task);
    Trainer t(small(task), "");
    for (int i = 0; i < 10; ++i) t.train_step();
    const EvalTally plain = t.evaluator().evaluate_split("test").tally;
    const std::vector<EvalTally> layers = evaluate_layers(t.evaluator(), "test");
    REQUIRE(layers.size() == 3);
    CHECK(same_tally(layers.back().all, plain.all));
    CHECK_FALSE(same_tally(layers.front().all, plain.all));
    std::vector<std::string> kinds = {"gaussian", "uniform"};
    if (task == "sorted") kinds.push_back("discrete");
    for (const std::string& kind : kinds) {
      CAPTURE(kind);
      const NoiseKind k = parse_noise_kind(kind);
      const Perturbation none = make_perturbation(k, 0.0, t.model(), t.task(), 1);
      CHECK(same_tally(evaluate_perturbed(t.evaluator(), "test", none).all, plain.all));
      const Perturbation noisy = make_perturbation(k, 1.0, t.model(), t.task(), 1);
      CHECK_FALSE(same_tally(evaluate_perturbed(t.evaluator(), "test", noisy).all, plain.all));
      // Fresh perturbations with the same seed draw the same noise.
      const Perturbation a = make_perturbation(k, 1.0, t.model(), t.task(), 5);
      const Perturbation b = make_perturbation(k, 1.0, t.model(), t.task(), 5);
      CHECK(same_tally(evaluate_perturbed(t.evaluator(), "test", a).all,
                       evaluate_perturbed(t.evaluator(), "test", b).all));
    }
    const std::vector<RobustPoint> curve =
        robustness_curve(t.evaluator(), "test", NoiseKind::gaussian, {0.0, 2.0}, 2, 0);
    CHECK(curve[0].metric == task_metric(t.task(), plain.all));
    CHECK(curve[0].spread == 0.0);
  }
  Trainer denoise(small("denoise"), "");
  CHECK_THROWS_WITH_AS(
      make_perturbation(NoiseKind::discrete, 1.0, denoise.model(), denoise.task(), 0),
      doctest::Contains("real-valued frames"), Error);
}

TEST_CASE("noise kinds are read by name") {
  for (const NoiseKind kind : {NoiseKind::gaussian, NoiseKind::uniform, NoiseKind::discrete})
    CHECK(parse_noise_kind(name_of(kind)) == kind);
  CHECK_THROWS_WITH_AS(parse_noise_kind("pink"),
                       "unknown noise 'pink' (known: gaussian, uniform, discrete)", Error);
}

TEST_CASE("gaussian and uniform noise on h_0 have std gamma * rms of the embedding table") {
  Trainer t(small("sorted"), "");
  const double rms = perturbation_scale(t.model());
  CHECK(rms == doctest::Approx(0.02).epsilon(0.1));  // the init std
  for (const NoiseKind kind : {NoiseKind::gaussian, NoiseKind::uniform}) {
    const Perturbation p = make_perturbation(kind, 1.5, t.model(), t.task(), 7);
    REQUIRE(p.on_embeddings);
    CHECK_FALSE(p.on_batch);
    NoGrad no_grad;
    Tensor noise = p.on_embeddings(zeros(Shape{8, 50, 64}));
    double sum = 0, square = 0, largest = 0;
    const float* v = noise.data<float>();
    for (int64_t i = 0; i < noise.numel(); ++i) {
      sum += v[i];
      square += double(v[i]) * double(v[i]);
      largest = std::max(largest, std::abs(double(v[i])));
    }
    const double n = double(noise.numel());
    CHECK(std::abs(sum / n) < 0.05 * 1.5 * rms);
    CHECK(std::sqrt(square / n) == doctest::Approx(1.5 * rms).epsilon(0.03));
    if (kind == NoiseKind::uniform) CHECK(largest <= std::sqrt(3.0) * 1.5 * rms * (1 + 1e-6));
    reset_step();
  }
}

TEST_CASE("discrete noise replaces unscored, non-pad tokens at rate min(gamma, 1) / 2") {
  Trainer t(small("sorted"), "");
  const Task& task = t.task();
  Batch clean;
  task.eval_batch("test", 0, 96, clean);
  for (const double gamma : {0.4, 3.0}) {
    CAPTURE(gamma);
    const Perturbation p = make_perturbation(NoiseKind::discrete, gamma, t.model(), task, 2);
    REQUIRE(p.on_batch);
    int64_t eligible = 0, changed = 0;
    for (int rep = 0; rep < 20; ++rep) {
      Batch batch = clean;
      p.on_batch(batch);
      for (size_t i = 0; i < batch.tokens.size(); ++i) {
        CHECK(batch.targets[i] == clean.targets[i]);
        if (clean.tokens[i] == task.pad_token() || clean.mask[i] != 0.0f) {
          REQUIRE(batch.tokens[i] == clean.tokens[i]);
          continue;
        }
        REQUIRE(batch.tokens[i] != task.pad_token());
        ++eligible;
        changed += batch.tokens[i] != clean.tokens[i];
      }
    }
    // A replacement keeps the token with chance 1 / (V - 1).
    const double V = double(task.vocab().size());
    const double expected = std::min(gamma, 1.0) / 2 * (V - 2) / (V - 1);
    CHECK(double(changed) / double(eligible) == doctest::Approx(expected).epsilon(0.08));
  }
}

TEST_CASE("svg plot: round ticks, escaped names, one polyline per series") {
  const std::vector<double> ticks = plot_ticks(0, 1, 5), want = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
  REQUIRE(ticks.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(ticks[i] == doctest::Approx(want[i]));
  CHECK(plot_ticks(3, 47, 5) == std::vector<double>{10, 20, 30, 40});
  const std::string svg = svg_line_plot(
      {"a <title>", "x", "y", true}, {{"erm & co", {0, 1, 2}, {1.0, 0.5, 0.25}, {}},
                                      {"descent", {0, 1, 2}, {0.8, 0.4, 0.1}, {0.1, 0.1, 0.05}}});
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("a &lt;title&gt;") != std::string::npos);
  CHECK(svg.find("erm &amp; co") != std::string::npos);
  size_t polylines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos;
       at = svg.find("<polyline", at + 1))
    ++polylines;
  CHECK(polylines == 2);
}
