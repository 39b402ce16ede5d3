// The GPT-style decoder: token + learned position embeddings, L pre-LN blocks
// (causal multi-head self-attention, then a 4x MLP, each in a residual
// branch), a final LayerNorm and an untied output head. docs/model.md gives
// the exact forward pass, every parameter's name and shape, and the init.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/json.h"
#include "nn/layers.h"

namespace tapir {

struct ModelConfig {
  int64_t vocab = 0;    // V
  int64_t context = 0;  // longest sequence (T_max) the position table holds
  int64_t width = 128;  // C
  int64_t heads = 4;    // H; C must be a multiple
  int64_t layers = 2;   // L
  int64_t mlp_ratio = 4;
  std::string mlp_act = "gelu";  // gelu | relu
  std::string attn = "softmax";
  std::string pos = "learned";
  double init_std = 0.02;
  // What the model reads and writes: "tokens" (ids through tok_emb, logits
  // over the vocabulary) or "frames" (frame_dim real values per position
  // through the linear in_proj, frame_dim outputs from the head).
  std::string input = "tokens";
  int64_t frame_dim = 0;

  void validate() const;  // one-line error naming the bad field
  Json to_json() const;
  static ModelConfig from_json(const Json& j);
};

class CausalSelfAttention : public Module {
 public:
  CausalSelfAttention(int64_t width, int64_t heads);
  Tensor forward(Tensor x);  // (B, T, C) -> (B, T, C)
  Linear& qkv() { return qkv_; }
  Linear& proj() { return proj_; }

 private:
  int64_t heads_;
  Linear qkv_, proj_;
};

class MLP : public Module {
 public:
  MLP(int64_t width, int64_t hidden, Activation& act);
  Tensor forward(Tensor x);
  Linear& fc() { return fc_; }
  Linear& proj() { return proj_; }

 private:
  Linear fc_, proj_;
  Activation* act_;
};

class Block : public Module {
 public:
  Block(const ModelConfig& c, Activation& act);
  Tensor forward(Tensor x);  // x + attn(ln1(x)), then + mlp(ln2(.))
  CausalSelfAttention& attn() { return attn_; }
  MLP& mlp() { return mlp_; }

 private:
  LayerNorm ln1_;
  CausalSelfAttention attn_;
  LayerNorm ln2_;
  MLP mlp_;
};

// A change to the embeddings h_0 (B, T, C) before the first block, e.g. the
// test-time noise of `tapir robust`. Returns the new h_0.
using EmbeddingHook = std::function<Tensor(Tensor h0)>;

class Transformer : public Module {
 public:
  explicit Transformer(const ModelConfig& config);
  // Weights ~ N(0, init_std^2); the two residual output projections of each
  // block (attn.proj, mlp.proj) ~ N(0, (init_std / sqrt(2 L))^2); biases 0;
  // LayerNorm weight 1, bias 0. Draws come from Rng(seed, stream 0) in
  // parameter order.
  void init(uint64_t seed);

  // tokens (B, T) i32 -> logits (B, T, V), or for input "frames" f32 frames
  // (B, T, n) -> outputs (B, T, n). With `hidden`, also returns the L+1 hidden
  // states (B, T, C): hidden[0] the embeddings, hidden[l] the output of block
  // l (before the final LayerNorm). `perturb`, if set, replaces h_0 before the
  // first block (and in hidden[0]).
  Tensor forward(Tensor tokens, std::vector<Tensor>* hidden = nullptr,
                 const EmbeddingHook& perturb = {});
  // The shared readout: final LayerNorm then the output head, (..., C) -> (..., V).
  Tensor readout(Tensor h);

  const ModelConfig& config() const { return config_; }

 private:
  ModelConfig config_;
  Embedding tok_emb_, pos_emb_;      // tok_emb_ is not a parameter for input "frames"
  std::unique_ptr<Linear> in_proj_;  // input "frames" only
  std::vector<std::unique_ptr<Activation>> activations_;
  std::vector<std::unique_ptr<Block>> blocks_;
  LayerNorm ln_f_;
  Linear head_;
};

}  // namespace tapir
