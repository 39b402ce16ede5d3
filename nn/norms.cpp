#include "nn/norms.h"

#include "autograd/ops.h"

namespace tapir {

RMSNorm::RMSNorm(int64_t dim, double eps) : eps_(eps) {
  weight_ = &add_parameter("weight", Shape{dim}, /*decay=*/false);
  fill(weight_->tensor(), 1.0);
}

Tensor RMSNorm::forward(Tensor x) {
  return rmsnorm(x, weight_->tensor(), eps_);
}

std::unique_ptr<Norm> make_norm(NormKind kind, int64_t dim, bool bias) {
  if (kind == NormKind::rms) return std::make_unique<RMSNorm>(dim);
  return std::make_unique<LayerNorm>(dim, 1e-5, bias);
}

// q and k are the first 2C columns of qkv: seen as (B, T, 2H, D) they are
// 2H vectors of one head's D elements per position.
Tensor QkTransform::apply(Tensor qkv, int64_t heads) const {
  if (!active()) return qkv;
  const int64_t B = qkv.dim(0), T = qkv.dim(1), C = qkv.dim(2) / 3;
  Tensor qk = reshape(slice(qkv, 2, 0, 2 * C), Shape{B, T, 2 * heads, C / heads});
  if (norm) qk = rmsnorm(qk, Tensor(), kQkNormEps);
  if (rope) qk = tapir::rope(qk, rope_base);
  return concat({reshape(qk, Shape{B, T, 2 * C}), slice(qkv, 2, 2 * C, 3 * C)}, 2);
}

}  // namespace tapir
