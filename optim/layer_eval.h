// Evaluation beyond the final output, for the per-layer descent method
// (docs/constraints.md): the metrics of every layer's readout (`tapir
// layers`) and of the final output under test-time perturbations of the input
// (`tapir robust`). Both run the evaluator's loop (optim/evaluator.h) over a
// task's fixed evaluation set.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/names.h"
#include "optim/evaluator.h"

namespace tapir {

// A test-time change to what the model reads; either part may be empty.
struct Perturbation {
  std::function<void(Batch&)> on_batch;  // edits the host batch (tokens or frames)
  EmbeddingHook on_embeddings;           // edits h_0 (B, T, C) before the first block
};

// Tallies of the readout of every layer l = 0..L (layer 0 the embeddings) on
// an evaluation split, from one forward pass per batch. The last equals
// evaluator.evaluate_split(split) when nothing is perturbed.
std::vector<EvalTally> evaluate_layers(const Evaluator& evaluator, const std::string& split,
                                       const Perturbation& perturb = {});
// The final layer's tally alone.
EvalTally evaluate_perturbed(const Evaluator& evaluator, const std::string& split,
                             const Perturbation& perturb);

// What `tapir robust` adds to the inputs (docs/constraints.md):
//   gaussian  N(0, (gamma s)^2) on every entry of h_0, s = perturbation_scale;
//   uniform   U(-a, a), a = sqrt(3) gamma s: the same variance;
//   discrete  each non-pad input token whose position is not scored is
//             replaced, with probability min(gamma, 1) / 2, by a token drawn
//             uniformly from the vocabulary less the pad token.
// For a frames model (denoise), gaussian and uniform noise go onto the input
// frames instead, with s = 1 (the clean frames' RMS), and discrete is refused.
enum class NoiseKind { gaussian, uniform, discrete };
template <>
struct Names<NoiseKind> {
  static constexpr const char* what = "noise";
  static constexpr std::pair<NoiseKind, const char*> table[] = {{NoiseKind::gaussian, "gaussian"},
                                                                {NoiseKind::uniform, "uniform"},
                                                                {NoiseKind::discrete, "discrete"}};
};
// The kind named `name`; anything else fails with Names' one-line message.
inline NoiseKind parse_noise_kind(const std::string& name) {
  return parse_name<NoiseKind>(name);
}
// The RMS of the token embedding table's entries (tok_emb.weight); 1 for a
// frames model.
double perturbation_scale(Transformer& model);
// Noise of strength gamma drawn from Rng(seed, 0), continuing across batches
// in evaluation order. gamma = 0 gives an empty perturbation.
Perturbation make_perturbation(NoiseKind kind, double gamma, Transformer& model, const Task& task,
                               uint64_t seed);

}  // namespace tapir
