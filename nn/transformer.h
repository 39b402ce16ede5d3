// The GPT-style decoder: token embeddings plus positions (learned,
// sinusoidal, ALiBi, rotary or none), L pre-norm blocks (causal multi-head
// self-attention, then a 4x MLP, each in a residual branch), a final norm
// and an output head (untied unless tie_embeddings). Options: LayerNorm or
// RMSNorm, QK norm, no biases, zero-initialised output projections. The MLP
// activation and the attention kernel may be learned splines (nn/spline.h).
// docs/model.md gives the exact forward pass, every parameter's name and
// shape, and the init.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/json.h"
#include "nn/attention_fn.h"
#include "nn/layers.h"
#include "nn/norms.h"
#include "nn/polynomial.h"
#include "nn/spline.h"

namespace tapir {

// The closed choices of a model, each read once from its name (base/names.h).
enum class MlpAct { gelu, relu, spline, poly };
enum class AttentionKind { softmax, score_spline, feature_spline };
enum class Positions { learned, sinusoidal, none, alibi, rope };
enum class ModelInput { tokens, frames };
template <>
struct Names<MlpAct> {
  static constexpr const char* what = "MLP activation";
  static constexpr std::pair<MlpAct, const char*> table[] = {{MlpAct::gelu, "gelu"},
                                                             {MlpAct::relu, "relu"},
                                                             {MlpAct::spline, "spline"},
                                                             {MlpAct::poly, "poly"}};
};
template <>
struct Names<AttentionKind> {
  static constexpr const char* what = "attention";
  static constexpr std::pair<AttentionKind, const char*> table[] = {
      {AttentionKind::softmax, "softmax"},
      {AttentionKind::score_spline, "score-spline"},
      {AttentionKind::feature_spline, "feature-spline"}};
};
template <>
struct Names<Positions> {
  static constexpr const char* what = "position scheme";
  static constexpr std::pair<Positions, const char*> table[] = {
      {Positions::learned, "learned"},
      {Positions::sinusoidal, "sinusoidal"},
      {Positions::none, "none"},
      {Positions::alibi, "alibi"},
      {Positions::rope, "rope"}};
};
template <>
struct Names<ModelInput> {
  static constexpr const char* what = "model input";
  static constexpr std::pair<ModelInput, const char*> table[] = {{ModelInput::tokens, "tokens"},
                                                                 {ModelInput::frames, "frames"}};
};

struct ModelConfig {
  int64_t vocab = 0;    // V
  int64_t context = 0;  // longest sequence (T_max) the position table holds
  int64_t width = 128;  // C
  int64_t heads = 4;    // H; C must be a multiple
  int64_t layers = 2;   // L
  int64_t mlp_ratio = 4;
  MlpAct mlp_act = MlpAct::gelu;
  AttentionKind attn = AttentionKind::softmax;
  Positions pos = Positions::learned;
  double init_std = 0.02;
  double rope_base = 10000.0;       // pos = rope: angle t * base^(-2i/D)
  NormKind norm = NormKind::layer;  // ln1, ln2, ln_f
  bool qk_norm = false;             // weightless RMSNorm of each head's q and k
  bool bias = true;                 // biases in every Linear and LayerNorm
  bool tie_embeddings = false;      // the head's weight is tok_emb.weight
  bool zero_init_proj = false;      // attn.proj and mlp.proj weights start at 0
  // The learned functions: the MLP spline (mlp_act = spline) and the
  // attention kernel's spline g (attn = score-spline or feature-spline).
  SplineConfig mlp_spline;
  SplineConfig attn_spline = default_attn_spline();
  bool score_per_head = false;  // score-spline: one g per head
  // The attention input function (nn/attention_fn.h): off, or
  // n + f(a n + b) before the Q/K/V projection with f the identity or the
  // spline attn_fn_spline.
  AttnFn attn_fn = AttnFn::off;
  SplineConfig attn_fn_spline = default_attn_fn_spline();
  // mlp_act = poly: fixed polynomials (nn/polynomial.h), one for every
  // block (layer -1) or one per block in block order.
  std::vector<PolyFunction> mlp_poly;

  static SplineConfig default_attn_spline();
  // Whether the model has a position table and so a maximum length.
  bool has_position_table() const {
    return pos == Positions::learned || pos == Positions::sinusoidal;
  }
  // What the model reads and writes: "tokens" (ids through tok_emb, logits
  // over the vocabulary) or "frames" (frame_dim real values per position
  // through the linear in_proj, frame_dim outputs from the head).
  ModelInput input = ModelInput::tokens;
  int64_t frame_dim = 0;

  void validate() const;                    // one-line error naming the bad field
  void validate_reference_options() const;  // validate()'s part for rope_base .. zero_init_proj
  Json to_json() const;
  static ModelConfig from_json(const Json& j);  // validated
  // The JSON fields, in the order written (base/json_fields.h).
  template <class Self, class Fields>
  static void fields(Self& c, Fields& f) {
    f.required("vocab", c.vocab);
    f.required("context", c.context);
    f.required("width", c.width);
    f.required("heads", c.heads);
    f.required("layers", c.layers);
    f.required("mlp_ratio", c.mlp_ratio);
    f.required("mlp_act", c.mlp_act);
    f.required("attn", c.attn);
    f.required("pos", c.pos);
    f.required("init_std", c.init_std);
    // Added with the learned nonlinearities and frame input; older configs lack them.
    f.optional("mlp_spline", c.mlp_spline);
    f.optional("attn_spline", c.attn_spline);
    f.optional("score_per_head", c.score_per_head);
    f.optional("input", c.input);
    f.optional("frame_dim", c.frame_dim);
    f.optional("mlp_poly", c.mlp_poly);
    // Added with the reference model's options; absent: the defaults, the model as before.
    f.optional("rope_base", c.rope_base);
    f.optional("norm", c.norm);
    f.optional("qk_norm", c.qk_norm);
    f.optional("bias", c.bias);
    f.optional("tie_embeddings", c.tie_embeddings);
    f.optional("zero_init_proj", c.zero_init_proj);
    // Added with the attention input function; older configs have it off.
    f.optional("attn_fn", c.attn_fn);
    f.optional("attn_fn_spline", c.attn_fn_spline);
  }
};

// What a block's attention and MLP use beyond their own weights. Learned
// functions of a single block are registered as its children ("act",
// "kernel"); shared ones belong to the Transformer.
struct BlockShared {
  Activation* act = nullptr;          // the MLP activation
  bool act_is_child = false;          // registered as mlp.act
  Spline* kernel = nullptr;           // the attention spline g (null: softmax)
  bool kernel_is_child = false;       // registered as attn.kernel
  const HeapTensor* alibi = nullptr;  // ALiBi slopes (H), or null
  Spline* attn_fn = nullptr;          // the attention input function's f (null: identity)
  bool attn_fn_is_child = false;      // registered as attn_fn.f
};

class CausalSelfAttention : public Module {
 public:
  CausalSelfAttention(const ModelConfig& c, const BlockShared& shared);
  // (B, T, C) -> (B, T, C); plus residual (B, T, C) when given, added by
  // the output projection (one fused op).
  Tensor forward(Tensor x, Tensor residual = Tensor());
  Linear& qkv() { return qkv_; }
  Linear& proj() { return proj_; }

 private:
  int64_t heads_;
  AttentionKind kind_;
  Linear qkv_;
  Spline* kernel_;
  const HeapTensor* alibi_;
  QkTransform qk_;
  Linear proj_;
};

class MLP : public Module {
 public:
  MLP(int64_t width, int64_t hidden, Activation& act, bool act_is_child, bool bias = true);
  Tensor forward(Tensor x, Tensor residual = Tensor());  // as the attention's
  Linear& fc() { return fc_; }
  Linear& proj() { return proj_; }

 private:
  Linear fc_;
  Activation* act_;
  Linear proj_;
};

class Block : public Module {
 public:
  Block(const ModelConfig& c, const BlockShared& shared);
  // x + attn(ln1(x)), then + mlp(ln2(.)); with the attention input
  // function, x + attn(attn_fn(ln1(x))).
  Tensor forward(Tensor x);
  CausalSelfAttention& attn() { return attn_; }
  MLP& mlp() { return mlp_; }

 private:
  std::unique_ptr<Norm> ln1_;
  std::unique_ptr<AttentionFunction> attn_fn_;  // attn_fn off: null
  CausalSelfAttention attn_;
  std::unique_ptr<Norm> ln2_;
  MLP mlp_;
};

// A change to the embeddings h_0 (B, T, C) before the first block, e.g. the
// test-time noise of `tapir robust`. Returns the new h_0.
using EmbeddingHook = std::function<Tensor(Tensor h0)>;

// Model FLOPs of one training step (forward and backward), per token: the
// measure MFU is taken against (docs/performance.md). 6 x N, where N is the
// number of weights a token meets in matrix products (each block's
// attention and MLP matrices and the output head; not embeddings, biases or
// norms), plus the attention's part that grows with the sequence length T:
// 12 x L x T x C (QK^T and AV over the full T x T square, forward and
// backward). The same count for every MLP activation and attention kernel,
// so a slower kernel shows as a lower MFU.
double model_flops_per_token(const ModelConfig& c, int64_t T);
// The same for a step that needs no weight gradients (a search's D_arch
// pass: forward and the inputs' gradients): 4 N + 12 L T C per token.
double model_flops_per_token_frozen(const ModelConfig& c, int64_t T);

class Transformer : public Module {
 public:
  explicit Transformer(const ModelConfig& config);
  // Weights ~ N(0, init_std^2); the two residual output projections of each
  // block (attn.proj, mlp.proj) ~ N(0, (init_std / sqrt(2 L))^2), or 0 with
  // zero_init_proj (their draws are still taken); biases 0; norm weights 1,
  // biases 0. Draws come from Rng(seed, stream 0) in parameter order.
  void init(uint64_t seed);

  // tokens (B, T) i32 -> logits (B, T, V), or for input "frames" f32 frames
  // (B, T, n) -> outputs (B, T, n). With `hidden`, also returns the L+1 hidden
  // states (B, T, C): hidden[0] the embeddings, hidden[l] the output of block
  // l (before the final LayerNorm). `perturb`, if set, replaces h_0 before the
  // first block (and in hidden[0]).
  Tensor forward(Tensor tokens, std::vector<Tensor>* hidden = nullptr,
                 const EmbeddingHook& perturb = {});
  // The shared readout: final norm then the output head, (..., C) -> (..., V).
  Tensor readout(Tensor h);

  const ModelConfig& config() const { return config_; }

  // The learned functions, in parameter order: slot "mlp", "attn" (the
  // score kernel) or "attn_fn" (the attention input function), the
  // block it belongs to (-1 when shared by all blocks) and the spline.
  struct LearnedFunction {
    std::string slot;
    int64_t layer;
    Spline* spline;
  };
  std::vector<LearnedFunction> learned_functions();

 private:
  void move_buffers(Device device) override;

  ModelConfig config_;
  Embedding tok_emb_;
  std::unique_ptr<Embedding> pos_emb_;  // pos = learned
  HeapTensor pos_table_;                // pos = sinusoidal: (T_max, C), fixed
  HeapTensor alibi_slopes_;             // pos = alibi: (H)
  // MLP activations and attention splines: one per block, or one shared.
  std::unique_ptr<Linear> in_proj_;  // input "frames": frames -> width (tok_emb_ unused)
  std::vector<std::unique_ptr<Activation>> activations_;
  std::vector<std::unique_ptr<Spline>> kernels_;
  std::vector<std::unique_ptr<Spline>> attn_fns_;  // attention input functions' splines
  std::vector<std::unique_ptr<Block>> blocks_;
  std::unique_ptr<Norm> ln_f_;
  std::unique_ptr<Linear> head_;           // untied
  std::unique_ptr<TiedLinear> tied_head_;  // tie_embeddings: tok_emb.weight
  std::vector<LearnedFunction> learned_;
};

}  // namespace tapir
