#include "optim/layer_eval.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "autograd/ops.h"

namespace tapir {

namespace {

std::vector<EvalTally> evaluate(const Evaluator& evaluator, const std::string& split,
                                const Perturbation& perturb, bool all_layers) {
  Transformer& model = evaluator.model();
  const size_t layers = all_layers ? static_cast<size_t>(model.config().layers) + 1 : 1;
  std::vector<EvalTally> tallies(layers);
  std::vector<Tensor> hidden;
  evaluator.for_each_batch(split, perturb.on_batch, [&](const Batch& batch, const BatchTensors& t) {
    Tensor outputs = model.forward(t.inputs, all_layers ? &hidden : nullptr, perturb.on_embeddings);
    for (size_t l = 0; l < layers; ++l)
      evaluator.score(batch, l + 1 < layers ? model.readout(hidden[l]) : outputs, tallies[l]);
  });
  return tallies;
}

}  // namespace

std::vector<EvalTally> evaluate_layers(const Evaluator& evaluator, const std::string& split,
                                       const Perturbation& perturb) {
  return evaluate(evaluator, split, perturb, true);
}

EvalTally evaluate_perturbed(const Evaluator& evaluator, const std::string& split,
                             const Perturbation& perturb) {
  return evaluate(evaluator, split, perturb, false).front();
}

double perturbation_scale(Transformer& model) {
  if (model.config().input == ModelInput::frames) return 1.0;
  const Tensor table = model.find_parameter("tok_emb.weight")->tensor();
  std::vector<float> w(static_cast<size_t>(table.numel()));
  read_bytes(table, w.data());
  double sum = 0;
  for (int64_t i = 0; i < table.numel(); ++i) sum += double(w[i]) * double(w[i]);
  return std::sqrt(sum / double(table.numel()));
}

Perturbation make_perturbation(NoiseKind kind, double gamma, Transformer& model, const Task& task,
                               uint64_t seed) {
  TAPIR_CHECK(gamma >= 0 && std::isfinite(gamma), "gamma must be a non-negative number, got ",
              gamma);
  const bool frames = model.config().input == ModelInput::frames;
  TAPIR_CHECK(!(frames && kind == NoiseKind::discrete), "discrete noise replaces tokens; task ",
              task.name(), " reads real-valued frames");
  Perturbation p;
  if (gamma == 0) return p;
  auto rng = std::make_shared<Rng>(seed, 0);
  const double std = gamma * perturbation_scale(model);
  const double half_width = std::sqrt(3.0) * std;
  // Fills n values of noise with the chosen distribution and scale.
  auto draw = [rng, kind, std, half_width](float* out, int64_t n) {
    if (kind == NoiseKind::gaussian)
      rng->fill_normal(out, n, 0.0f, static_cast<float>(std));
    else
      rng->fill_uniform(out, n, static_cast<float>(-half_width), static_cast<float>(half_width));
  };
  if (kind == NoiseKind::discrete) {
    const double rate = std::min(gamma, 1.0) / 2;
    const auto V = task.vocab().size();
    const int32_t pad = task.pad_token();
    p.on_batch = [rng, rate, V, pad](Batch& batch) {
      for (size_t i = 0; i < batch.tokens.size(); ++i) {
        if (batch.tokens[i] == pad || batch.mask[i] != 0.0f) continue;
        if (rng->uniform_f64() >= rate) continue;
        auto token = static_cast<int32_t>(rng->randint(V - 1));
        batch.tokens[i] = token >= pad ? token + 1 : token;
      }
    };
  } else if (frames) {
    p.on_batch = [draw](Batch& batch) {
      std::vector<float> noise(batch.inputs.size());
      draw(noise.data(), static_cast<int64_t>(noise.size()));
      for (size_t i = 0; i < noise.size(); ++i) batch.inputs[i] += noise[i];
    };
  } else {
    p.on_embeddings = [draw](Tensor h0) {
      Tensor noise = empty(h0.shape(), DType::f32, Device::cpu);
      draw(noise.host_data<float>(), noise.numel());
      return add(h0, to_device(noise, h0.device()));
    };
  }
  return p;
}

}  // namespace tapir
