#include "nn/transformer.h"

#include <cmath>

#include "autograd/ops.h"
#include "base/json_fields.h"
#include "nn/positions.h"

namespace tapir {

// --- config ----------------------------------------------------------------------

namespace {

// N: the weights a token meets in a matrix product. Per block: Q, K, V and
// the output projection (4 C^2), the MLP's two matrices (2 r C^2); the head.
double product_weights(const ModelConfig& c) {
  const double C = double(c.width), L = double(c.layers);
  const double out = double(c.input == ModelInput::frames ? c.frame_dim : c.vocab);
  return L * (4.0 + 2.0 * double(c.mlp_ratio)) * C * C + C * out;
}

double attention_flops(const ModelConfig& c, int64_t T) {
  return 12.0 * double(c.layers) * double(T) * double(c.width);
}

}  // namespace

double model_flops_per_token(const ModelConfig& c, int64_t T) {
  return 6.0 * product_weights(c) + attention_flops(c, T);
}

double model_flops_per_token_frozen(const ModelConfig& c, int64_t T) {
  return 4.0 * product_weights(c) + attention_flops(c, T);
}

void ModelConfig::validate() const {
  if (input == ModelInput::tokens)
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
  mlp_spline.validate("MLP spline");
  if (mlp_act == MlpAct::poly) {
    const auto n = static_cast<int64_t>(mlp_poly.size());
    const bool shared = n == 1 && mlp_poly.front().layer == -1;
    TAPIR_CHECK(shared || n == layers,
                "model: mlp act poly needs one polynomial for every block (layer -1) or one per "
                "block (",
                layers, "), got ", n, " (give them with --mlp-poly FILE)");
    for (int64_t l = 0; l < n; ++l) {
      const PolyFunction& f = mlp_poly[size_t(l)];
      f.validate("model: MLP polynomial " + std::to_string(l));
      TAPIR_CHECK(f.layer == (shared ? -1 : l), "model: MLP polynomial ", l, " is for layer ",
                  f.layer, ", expected ", shared ? -1 : l);
    }
  } else {
    TAPIR_CHECK(mlp_poly.empty(), "model: MLP polynomials given, but mlp act is '",
                name_of(mlp_act), "', not poly");
  }
  attn_spline.validate("attention spline");
  attn_fn_spline.validate("attention function spline");
  TAPIR_CHECK(!(attn == AttentionKind::feature_spline && pos == Positions::alibi),
              "model: attention feature-spline cannot be combined with positions alibi (linear "
              "attention forms no scores to add the ALiBi bias to); use score-spline or softmax");
  TAPIR_CHECK(!score_per_head || attn == AttentionKind::score_spline,
              "model: score-per-head needs attention score-spline, got '", name_of(attn), "'");
  TAPIR_CHECK(init_std > 0 && std::isfinite(init_std), "model: init std must be positive, got ",
              init_std);
  validate_reference_options();
}

// The options of the authors' model (rotary positions, norms, biases, tying).
void ModelConfig::validate_reference_options() const {
  TAPIR_CHECK(rope_base > 1 && std::isfinite(rope_base),
              "model: rope base must be finite and above 1, got ", rope_base);
  if (pos == Positions::rope) {
    TAPIR_CHECK((width / heads) % 2 == 0,
                "model: positions rope needs an even head width C/H, got ", width, "/", heads,
                " = ", width / heads);
    TAPIR_CHECK(attn != AttentionKind::feature_spline,
                "model: attention feature-spline cannot be combined with positions rope (phi(q) . "
                "phi(k) of rotated q and k does not depend on i - j alone); use score-spline or "
                "softmax");
  }
  TAPIR_CHECK(!(tie_embeddings && input == ModelInput::frames),
              "model: tie-embeddings needs token input (a frame model has no token table to tie "
              "the head to)");
}

Json ModelConfig::to_json() const {
  return fields_to_json(*this);
}

ModelConfig ModelConfig::from_json(const Json& j) {
  ModelConfig c;
  fields_from_json(j, c);
  c.validate();
  return c;
}

SplineConfig ModelConfig::default_attn_spline() {
  SplineConfig c;
  c.init = "identity";  // score-spline starts as softmax, feature-spline as softplus
  return c;
}

// --- modules ---------------------------------------------------------------------

CausalSelfAttention::CausalSelfAttention(const ModelConfig& c, const BlockShared& shared)
    : heads_(c.heads),
      kind_(c.attn),
      qkv_(c.width, 3 * c.width, c.bias),
      kernel_(shared.kernel),
      alibi_(shared.alibi),
      qk_{c.qk_norm, c.pos == Positions::rope, c.rope_base},
      proj_(c.width, c.width, c.bias) {
  add_child("qkv", qkv_);
  if (kernel_ && shared.kernel_is_child) add_child("kernel", *kernel_);
  add_child("proj", proj_);
}

Tensor CausalSelfAttention::forward(Tensor x, Tensor residual) {
  Tensor qkv = qk_.apply(qkv_.forward(x), heads_);
  Tensor slopes = alibi_ ? alibi_->view() : Tensor();
  Tensor o;
  if (kind_ == AttentionKind::softmax) {
    o = attention(qkv, heads_, slopes);
  } else {
    const SplineGrid& grid = kernel_->config().grid;
    const Tensor g = kernel_->values().tensor();
    o = kind_ == AttentionKind::score_spline ? score_spline_attention(qkv, heads_, g, grid, slopes)
                                             : feature_spline_attention(qkv, heads_, g, grid);
  }
  return proj_.forward(o, residual);
}

MLP::MLP(int64_t width, int64_t hidden, Activation& act, bool act_is_child, bool bias)
    : fc_(width, hidden, bias), act_(&act), proj_(hidden, width, bias) {
  add_child("fc", fc_);
  if (act_is_child) add_child("act", act);
  add_child("proj", proj_);
}

Tensor MLP::forward(Tensor x, Tensor residual) {
  return proj_.forward(act_->forward(fc_.forward(x)), residual);
}

Block::Block(const ModelConfig& c, const BlockShared& shared)
    : ln1_(make_norm(c.norm, c.width, c.bias)),
      attn_(c, shared),
      ln2_(make_norm(c.norm, c.width, c.bias)),
      mlp_(c.width, c.mlp_ratio * c.width, *shared.act, shared.act_is_child, c.bias) {
  add_child("ln1", *ln1_);
  if (c.attn_fn != AttnFn::off) {
    attn_fn_ = std::make_unique<AttentionFunction>(shared.attn_fn, shared.attn_fn_is_child);
    add_child("attn_fn", *attn_fn_);
  }
  add_child("attn", attn_);
  add_child("ln2", *ln2_);
  add_child("mlp", mlp_);
}

// x + attn(ln1(x)), then x + mlp(ln2(x)); each sum is made by the output
// projection itself (linear's residual input), not by a separate add.
Tensor Block::forward(Tensor x) {
  Tensor n = ln1_->forward(x);
  if (attn_fn_) n = attn_fn_->forward(n);
  x = attn_.forward(n, x);
  return mlp_.forward(ln2_->forward(x), x);
}

namespace {
// The MLP activation of block l (any block when the activation is shared).
// One case per MlpAct and no default: a value added to the enum and not
// here fails the build (-Wswitch under -Werror), never turns into GeLU.
std::unique_ptr<Activation> make_activation(const ModelConfig& c, int64_t l) {
  switch (c.mlp_act) {
    case MlpAct::gelu:
      return std::make_unique<Gelu>();
    case MlpAct::relu:
      return std::make_unique<Relu>();
    case MlpAct::spline:
      return std::make_unique<Spline>(c.mlp_spline);
    case MlpAct::poly:
      return std::make_unique<Polynomial>(c.mlp_poly[c.mlp_poly.size() == 1 ? 0 : size_t(l)]);
  }
  fail("MLP activation ", static_cast<int>(c.mlp_act), " is none that the model builds");
}

std::string block_name(int64_t l) {
  std::string name = "blocks.";
  name += std::to_string(l);
  return name;
}
}  // namespace

Transformer::Transformer(const ModelConfig& config)
    : config_((config.validate(), config)),
      tok_emb_(config.input == ModelInput::frames ? 1 : config.vocab, config.width),
      ln_f_(make_norm(config.norm, config.width, config.bias)) {
  if (config.input == ModelInput::frames) {
    in_proj_ = std::make_unique<Linear>(config.frame_dim, config.width, config.bias);
    add_child("in_proj", *in_proj_);
  } else {
    add_child("tok_emb", tok_emb_);
  }
  if (config.pos == Positions::learned) {
    pos_emb_ = std::make_unique<Embedding>(config.context, config.width);
    add_child("pos_emb", *pos_emb_);
  } else if (config.pos == Positions::sinusoidal) {
    pos_table_ = HeapTensor(Shape{config.context, config.width}, DType::f32);
    // Scaled by init_std: at init, positions and tokens (N(0, init_std^2))
    // have the same scale, as with a learned table. (Vaswani et al. scale the
    // token embeddings up by sqrt(C) instead; at amplitude 1 the positions
    // swamp tapir's small token embeddings and modular addition stops
    // generalising.)
    sinusoidal_table(config.context, config.width, config.init_std,
                     pos_table_.view().host_data<float>());
  } else if (config.pos == Positions::alibi) {
    alibi_slopes_ = HeapTensor(Shape{config.heads}, DType::f32);
    const std::vector<double> slopes = alibi_slopes(config.heads);
    for (int64_t h = 0; h < config.heads; ++h)
      alibi_slopes_.view().host_data<float>()[h] =
          static_cast<float>(slopes[static_cast<size_t>(h)]);
  }
  // Per-layer learned functions are children of their block; a fixed
  // activation (no parameters) or a shared spline is made once.
  const bool learned_act = config.mlp_act == MlpAct::spline;
  const bool act_per_layer = learned_act && config.mlp_spline.scope == SplineScope::layer;
  const bool poly_per_layer = config.mlp_act == MlpAct::poly && config.mlp_poly.size() > 1;
  const bool learned_kernel = config.attn != AttentionKind::softmax;
  const bool kernel_per_layer = learned_kernel && config.attn_spline.scope == SplineScope::layer;
  const int64_t kernel_rows = config.score_per_head ? config.heads : 1;
  const bool learned_fn = config.attn_fn == AttnFn::spline;
  const bool fn_per_layer = learned_fn && config.attn_fn_spline.scope == SplineScope::layer;
  if (learned_fn && !fn_per_layer)
    attn_fns_.push_back(std::make_unique<Spline>(config.attn_fn_spline));
  if (!act_per_layer && !poly_per_layer) activations_.push_back(make_activation(config, 0));
  if (learned_kernel && !kernel_per_layer)
    kernels_.push_back(std::make_unique<Spline>(config.attn_spline, kernel_rows));
  for (int64_t l = 0; l < config.layers; ++l) {
    BlockShared shared;
    if (act_per_layer || poly_per_layer) activations_.push_back(make_activation(config, l));
    shared.act = activations_.back().get();
    shared.act_is_child = act_per_layer;
    if (kernel_per_layer)
      kernels_.push_back(std::make_unique<Spline>(config.attn_spline, kernel_rows));
    shared.kernel = learned_kernel ? kernels_.back().get() : nullptr;
    shared.kernel_is_child = kernel_per_layer;
    shared.alibi = alibi_slopes_.defined() ? &alibi_slopes_ : nullptr;
    if (fn_per_layer) attn_fns_.push_back(std::make_unique<Spline>(config.attn_fn_spline));
    shared.attn_fn = learned_fn ? attn_fns_.back().get() : nullptr;
    shared.attn_fn_is_child = fn_per_layer;
    blocks_.push_back(std::make_unique<Block>(config, shared));
    add_child(block_name(l), *blocks_.back());
    if (fn_per_layer) learned_.push_back({"attn_fn", l, attn_fns_.back().get()});
    if (kernel_per_layer) learned_.push_back({"attn", l, kernels_.back().get()});
    if (act_per_layer)
      learned_.push_back({"mlp", l, static_cast<Spline*>(activations_.back().get())});
  }
  add_child("ln_f", *ln_f_);
  if (config.tie_embeddings) {
    tied_head_ = std::make_unique<TiedLinear>(tok_emb_.weight(), config.bias);
    add_child("head", *tied_head_);
  } else {
    head_ = std::make_unique<Linear>(
        config.width, config.input == ModelInput::frames ? config.frame_dim : config.vocab,
        config.bias);
    add_child("head", *head_);
  }
  if (learned_act && !act_per_layer) {
    add_child("mlp_act", *activations_.front());
    learned_.push_back({"mlp", -1, static_cast<Spline*>(activations_.front().get())});
  }
  if (learned_kernel && !kernel_per_layer) {
    add_child("attn_kernel", *kernels_.front());
    learned_.push_back({"attn", -1, kernels_.front().get()});
  }
  if (learned_fn && !fn_per_layer) {
    add_child("attn_fn", *attn_fns_.front());
    learned_.push_back({"attn_fn", -1, attn_fns_.front().get()});
  }
}

std::vector<Transformer::LearnedFunction> Transformer::learned_functions() {
  parameters();  // sets the full dotted names of the splines' values
  return learned_;
}

void Transformer::init(uint64_t seed) {
  Rng rng(seed, 0);
  const double std = config_.init_std;
  const double residual_std =
      std / std::sqrt(2.0 * static_cast<double>(config_.layers > 0 ? config_.layers : 1));
  if (in_proj_)
    in_proj_->init(rng, std);
  else
    tok_emb_.init(rng, std);
  if (pos_emb_) pos_emb_->init(rng, std);
  // zero_init_proj zeroes the projections after their draws, so every other
  // parameter gets the same draws with the option as without.
  const auto init_proj = [&](Linear& proj) {
    proj.init(rng, residual_std);
    if (config_.zero_init_proj) proj.weight().value.zero();
  };
  for (auto& block : blocks_) {
    block->attn().qkv().init(rng, std);
    init_proj(block->attn().proj());
    block->mlp().fc().init(rng, std);
    init_proj(block->mlp().proj());
  }
  if (head_) head_->init(rng, std);
  if (tied_head_ && tied_head_->bias()) tied_head_->bias()->value.zero();
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
  TAPIR_CHECK(T >= 1, "model input must hold at least one position, got ", tokens.describe());
  // ALiBi and no positions have no table, so no longest sequence.
  TAPIR_CHECK(!config_.has_position_table() || T <= config_.context, "sequence length ", T,
              " does not fit the model's context of ", config_.context, " (positions ",
              name_of(config_.pos), ")");
  Tensor x = in_proj_ ? in_proj_->forward(tokens) : tok_emb_.forward(tokens);
  if (pos_emb_) x = add(x, slice(pos_emb_->weight().tensor(), 0, 0, T));
  if (pos_table_.defined()) x = add(x, slice(pos_table_.view(), 0, 0, T));
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

Tensor Transformer::readout(Tensor h) {
  const Tensor normed = ln_f_->forward(h);
  return tied_head_ ? tied_head_->forward(normed) : head_->forward(normed);
}

void Transformer::move_buffers(Device device) {
  if (pos_table_.defined()) pos_table_.to_device(device);
  if (alibi_slopes_.defined()) alibi_slopes_.to_device(device);
}

}  // namespace tapir
