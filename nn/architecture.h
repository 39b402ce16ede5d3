// Architecture files: a model's set of learned nonlinearities (which slots
// are learned, MLP and/or attention, per layer or shared, their grids and
// their values) as a safetensors file of its own, so that functions learned
// in one run can be frozen into another (`tapir train --arch FILE`) and
// plotted (`tapir plot arch FILE`). docs/nonlinearities.md gives the format.
//
// The tensors are named as the model's parameters (blocks.0.mlp.act.values,
// mlp_act.values, blocks.0.attn.kernel.values, attn_kernel.values,
// blocks.0.attn_fn.f.values, attn_fn.values); the
// metadata holds format = tapir.arch.v1 and `arch`, the description as JSON.
#pragma once
#include <string>
#include <vector>

#include "base/json.h"
#include "nn/transformer.h"

namespace tapir {

struct Architecture {
  // Slots. mlp_spline is used when mlp_learned; attn_spline and
  // score_per_head when attn is score-spline or feature-spline.
  bool mlp_learned = false;
  SplineConfig mlp_spline;
  AttentionKind attn = AttentionKind::softmax;
  SplineConfig attn_spline = ModelConfig::default_attn_spline();
  bool score_per_head = false;
  // The attention input function's spline (nn/attention_fn.h), slot "attn_fn".
  bool attn_fn_learned = false;
  SplineConfig attn_fn_spline = default_attn_fn_spline();
  int64_t layers = 0, heads = 0;  // of the model it came from

  // One per learned function, in parameter order.
  struct Function {
    std::string name;           // parameter name
    std::string slot;           // mlp | attn | attn_fn
    int64_t layer;              // -1: shared by all blocks
    int64_t rows;               // 1, or heads for a per-head score spline
    std::vector<float> values;  // (rows, knots)
  };
  std::vector<Function> functions;

  // Whether the architecture learns the functions of a slot, and their spline.
  bool learns(const std::string& slot) const;
  const SplineConfig& spline_of(const std::string& slot) const;
  const SplineConfig& spline_of(const Function& f) const { return spline_of(f.slot); }
  Json describe() const;  // the `arch` metadata (everything but the values)
};

// The learned functions of a model, with their current values.
Architecture architecture_of(Transformer& model);
// Fails if the model has no learned function. Written atomically.
void save_architecture(const std::string& path, const Architecture& arch);
Architecture load_architecture(const std::string& path);

// Sets the learned-function fields of a model config (MLP activation,
// attention kernel, attention input function, their splines) from the
// architecture. Slots the
// architecture does not learn are left as configured. Fails, naming both
// counts, if per-layer functions do not match the config's layers or
// per-head ones its heads.
void apply_architecture(const Architecture& arch, ModelConfig& config);
// Copies the values into a model built from such a config, and freezes them
// unless trainable. The model's learned functions must be exactly those of
// the architecture.
void load_architecture_values(const Architecture& arch, Transformer& model, bool trainable,
                              const std::string& label);

}  // namespace tapir
