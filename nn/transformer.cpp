#include "nn/transformer.h"

#include <cmath>

#include "autograd/ops.h"

namespace tapir {

// --- config ----------------------------------------------------------------------

void ModelConfig::validate() const {
  TAPIR_CHECK(input == "tokens" || input == "frames", "model: unknown input '", input,
              "' (expected tokens or frames)");
  if (input == "tokens")
    TAPIR_CHECK(vocab >= 1, "model: vocab must be at least 1, got ", vocab);
  else
    TAPIR_CHECK(frame_dim >= 1, "model: frame_dim must be at least 1 for frames, got ", frame_dim);
  TAPIR_CHECK(context >= 1, "model: context must be at least 1, got ", context);
  TAPIR_CHECK(width >= 1 && width <= 65536, "model: width must be in [1, 65536], got ", width);
  TAPIR_CHECK(heads >= 1 && width % heads == 0, "model: width ", width,
              " must be a multiple of heads (", heads, ")");
  TAPIR_CHECK(layers >= 0 && layers <= 256, "model: layers must be in [0, 256], got ", layers);
  TAPIR_CHECK(mlp_ratio >= 1 && mlp_ratio <= 64, "model: mlp ratio must be in [1, 64], got ",
              mlp_ratio);
  TAPIR_CHECK(mlp_act == "gelu" || mlp_act == "relu", "model: unknown MLP activation '", mlp_act,
              "' (expected gelu or relu)");
  TAPIR_CHECK(attn == "softmax", "model: unknown attention '", attn, "' (expected softmax)");
  TAPIR_CHECK(pos == "learned", "model: unknown position scheme '", pos, "' (expected learned)");
  TAPIR_CHECK(init_std > 0 && std::isfinite(init_std), "model: init std must be positive, got ",
              init_std);
}

Json ModelConfig::to_json() const {
  Json j = Json::object();
  j.set("vocab", vocab);
  j.set("context", context);
  j.set("width", width);
  j.set("heads", heads);
  j.set("layers", layers);
  j.set("mlp_ratio", mlp_ratio);
  j.set("mlp_act", mlp_act);
  j.set("attn", attn);
  j.set("pos", pos);
  j.set("init_std", init_std);
  j.set("input", input);
  j.set("frame_dim", frame_dim);
  return j;
}

ModelConfig ModelConfig::from_json(const Json& j) {
  ModelConfig c;
  c.vocab = j.at("vocab").as_int();
  c.context = j.at("context").as_int();
  c.width = j.at("width").as_int();
  c.heads = j.at("heads").as_int();
  c.layers = j.at("layers").as_int();
  c.mlp_ratio = j.at("mlp_ratio").as_int();
  c.mlp_act = j.at("mlp_act").as_string();
  c.attn = j.at("attn").as_string();
  c.pos = j.at("pos").as_string();
  c.init_std = j.at("init_std").as_double();
  if (const Json* in = j.find("input")) c.input = in->as_string();
  if (const Json* n = j.find("frame_dim")) c.frame_dim = n->as_int();
  c.validate();
  return c;
}

// --- modules ---------------------------------------------------------------------

CausalSelfAttention::CausalSelfAttention(int64_t width, int64_t heads)
    : heads_(heads), qkv_(width, 3 * width), proj_(width, width) {
  add_child("qkv", qkv_);
  add_child("proj", proj_);
}

Tensor CausalSelfAttention::forward(Tensor x) {
  return proj_.forward(attention(qkv_.forward(x), heads_));
}

MLP::MLP(int64_t width, int64_t hidden, Activation& act)
    : fc_(width, hidden), proj_(hidden, width), act_(&act) {
  add_child("fc", fc_);
  add_child("proj", proj_);
}

Tensor MLP::forward(Tensor x) { return proj_.forward(act_->forward(fc_.forward(x))); }

Block::Block(const ModelConfig& c, Activation& act)
    : ln1_(c.width), attn_(c.width, c.heads), ln2_(c.width), mlp_(c.width, c.mlp_ratio * c.width, act) {
  add_child("ln1", ln1_);
  add_child("attn", attn_);
  add_child("ln2", ln2_);
  add_child("mlp", mlp_);
}

Tensor Block::forward(Tensor x) {
  x = add(x, attn_.forward(ln1_.forward(x)));
  return add(x, mlp_.forward(ln2_.forward(x)));
}

namespace {
std::unique_ptr<Activation> make_activation(const std::string& kind) {
  if (kind == "relu") return std::make_unique<Relu>();
  return std::make_unique<Gelu>();
}
}  // namespace

Transformer::Transformer(const ModelConfig& config)
    : config_((config.validate(), config)),
      tok_emb_(config.input == "frames" ? 1 : config.vocab, config.width),
      pos_emb_(config.context, config.width),
      ln_f_(config.width),
      head_(config.width, config.input == "frames" ? config.frame_dim : config.vocab) {
  if (config.input == "frames") {
    in_proj_ = std::make_unique<Linear>(config.frame_dim, config.width);
    add_child("in_proj", *in_proj_);
  } else {
    add_child("tok_emb", tok_emb_);
  }
  add_child("pos_emb", pos_emb_);
  activations_.push_back(make_activation(config.mlp_act));
  for (int64_t l = 0; l < config.layers; ++l) {
    blocks_.push_back(std::make_unique<Block>(config, *activations_.back()));
    add_child("blocks." + std::to_string(l), *blocks_.back());
  }
  add_child("ln_f", ln_f_);
  add_child("head", head_);
}

void Transformer::init(uint64_t seed) {
  Rng rng(seed, 0);
  const double std = config_.init_std;
  const double residual_std = std / std::sqrt(2.0 * static_cast<double>(config_.layers > 0 ? config_.layers : 1));
  if (in_proj_)
    in_proj_->init(rng, std);
  else
    tok_emb_.init(rng, std);
  pos_emb_.init(rng, std);
  for (auto& block : blocks_) {
    block->attn().qkv().init(rng, std);
    block->attn().proj().init(rng, residual_std);
    block->mlp().fc().init(rng, std);
    block->mlp().proj().init(rng, residual_std);
  }
  head_.init(rng, std);
}

Tensor Transformer::forward(Tensor tokens, std::vector<Tensor>* hidden,
                            const EmbeddingHook& perturb) {
  if (in_proj_)
    TAPIR_CHECK(
        tokens.dtype() == DType::f32 && tokens.rank() == 3 && tokens.dim(2) == config_.frame_dim,
        "model input must be f32 frames (B, T, ", config_.frame_dim, "), got ", tokens.describe());
  else
    TAPIR_CHECK(tokens.dtype() == DType::i32 && tokens.rank() == 2,
                "model input must be i32 tokens (B, T), got ", tokens.describe());
  const int64_t T = tokens.dim(1);
  TAPIR_CHECK(T >= 1 && T <= config_.context, "sequence length ", T,
              " does not fit the model's context of ", config_.context);
  Tensor x = add(in_proj_ ? in_proj_->forward(tokens) : tok_emb_.forward(tokens),
                 slice(pos_emb_.weight().tensor(), 0, 0, T));
  if (perturb) x = perturb(x);
  if (hidden) {
    hidden->clear();
    hidden->push_back(x);
  }
  for (auto& block : blocks_) {
    x = block->forward(x);
    if (hidden) hidden->push_back(x);
  }
  return readout(x);
}

Tensor Transformer::readout(Tensor h) { return head_.forward(ln_f_.forward(h)); }

}  // namespace tapir
