#include "nn/layers.h"

#include "autograd/ops.h"

namespace tapir {

void init_normal(Parameter& p, Rng& rng, double std) {
  Tensor t = p.tensor();
  rng.fill_normal<float>(t.host_data<float>(), t.numel(), 0.0f, static_cast<float>(std));
}

Linear::Linear(int64_t in, int64_t out, bool bias) : in_(in), out_(out) {
  weight_ = &add_parameter("weight", Shape{out, in}, /*decay=*/true);
  if (bias) bias_ = &add_parameter("bias", Shape{out}, /*decay=*/false);
}

Tensor Linear::forward(Tensor x, Tensor residual) {
  TAPIR_CHECK(x.shape().last() == in_, "linear layer expects last dimension ", in_, ", got ",
              x.describe());
  return linear(x, weight_->tensor(), bias_ ? bias_->tensor() : Tensor(), residual);
}

void Linear::init(Rng& rng, double std) {
  init_normal(*weight_, rng, std);
  if (bias_) bias_->value.zero();
}

TiedLinear::TiedLinear(Parameter& weight, bool bias) : weight_(&weight) {
  if (bias) bias_ = &add_parameter("bias", Shape{weight.tensor().dim(0)}, /*decay=*/false);
}

Tensor TiedLinear::forward(Tensor x) {
  const Tensor w = weight_->tensor();
  TAPIR_CHECK(x.shape().last() == w.dim(1), "tied linear layer expects last dimension ", w.dim(1),
              ", got ", x.describe());
  return linear(x, w, bias_ ? bias_->tensor() : Tensor());
}

Embedding::Embedding(int64_t num, int64_t dim) {
  weight_ = &add_parameter("weight", Shape{num, dim}, /*decay=*/false);
}

Tensor Embedding::forward(Tensor ids) {
  return embedding(weight_->tensor(), ids);
}

void Embedding::init(Rng& rng, double std) {
  init_normal(*weight_, rng, std);
}

LayerNorm::LayerNorm(int64_t dim, double eps, bool bias) : eps_(eps) {
  weight_ = &add_parameter("weight", Shape{dim}, /*decay=*/false);
  if (bias) bias_ = &add_parameter("bias", Shape{dim}, /*decay=*/false);
  fill(weight_->tensor(), 1.0);
}

Tensor LayerNorm::forward(Tensor x) {
  return layernorm(x, weight_->tensor(), bias_ ? bias_->tensor() : Tensor(), eps_);
}

Tensor Gelu::forward(Tensor x) {
  return gelu(x);
}
Tensor Relu::forward(Tensor x) {
  return relu(x);
}

}  // namespace tapir
