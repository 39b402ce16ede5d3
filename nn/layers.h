// The basic layers: Linear (and a head tied to an embedding), Embedding,
// LayerNorm, and the fixed activations.
// Each owns its parameters (see nn/module.h for naming and decay flags).
#pragma once
#include "engine/rng.h"
#include "nn/module.h"

namespace tapir {

// y = x W^T + b, W (out, in), b (out). W decays; b does not.
class Linear : public Module {
 public:
  Linear(int64_t in, int64_t out, bool bias = true);
  // (..., in) -> (..., out), plus residual (..., out) when given.
  Tensor forward(Tensor x, Tensor residual = Tensor());
  void init(Rng& rng, double std);  // W ~ N(0, std^2), b = 0
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }
  int64_t in_features() const { return in_; }
  int64_t out_features() const { return out_; }

 private:
  int64_t in_, out_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
};

// y = x W^T + b with W another module's parameter (out, in), e.g. an output
// head tied to the token embeddings; owns only its bias (out), if any. W's
// gradient is the sum over all its uses (the tape adds them).
class TiedLinear : public Module {
 public:
  TiedLinear(Parameter& weight, bool bias);
  Tensor forward(Tensor x);
  Parameter& weight() { return *weight_; }
  Parameter* bias() { return bias_; }

 private:
  Parameter* weight_;
  Parameter* bias_ = nullptr;
};

// Table (num, dim) looked up by i32 ids. No weight decay.
class Embedding : public Module {
 public:
  Embedding(int64_t num, int64_t dim);
  Tensor forward(Tensor ids);  // (...) -> (..., dim)
  void init(Rng& rng, double std);
  Parameter& weight() { return *weight_; }

 private:
  Parameter* weight_;
};

// A normalisation over the last axis (LayerNorm here, RMSNorm in nn/norms.h).
class Norm : public Module {
 public:
  virtual Tensor forward(Tensor x) = 0;
};

// Over the last axis, weight 1 and bias 0 at init (no bias when !bias), eps
// 1e-5. No weight decay.
class LayerNorm final : public Norm {
 public:
  explicit LayerNorm(int64_t dim, double eps = 1e-5, bool bias = true);
  Tensor forward(Tensor x) override;

 private:
  double eps_;
  Parameter* weight_;
  Parameter* bias_ = nullptr;
};

// An elementwise nonlinearity; a learned one (a spline) owns parameters.
class Activation : public Module {
 public:
  virtual Tensor forward(Tensor x) = 0;
  virtual std::string kind() const = 0;
};

class Gelu final : public Activation {
 public:
  Tensor forward(Tensor x) override;
  std::string kind() const override { return "gelu"; }
};

class Relu final : public Activation {
 public:
  Tensor forward(Tensor x) override;
  std::string kind() const override { return "relu"; }
};

// Fills a parameter with N(0, std^2) draws (f32).
void init_normal(Parameter& p, Rng& rng, double std);

}  // namespace tapir
