// The model's normalisations: RMSNorm beside LayerNorm (nn/layers.h), the
// factory that builds the one a model config asks for, and the per-head
// transform of q and k before the attention scores (QK norm and rotary
// positions). docs/model.md gives the exact formulas.
#pragma once
#include <memory>

#include "base/names.h"
#include "nn/layers.h"

namespace tapir {

enum class NormKind { layer, rms };
template <>
struct Names<NormKind> {
  static constexpr const char* what = "norm";
  static constexpr std::pair<NormKind, const char*> table[] = {{NormKind::layer, "layer"},
                                                               {NormKind::rms, "rms"}};
};

// x / sqrt(mean(x^2) + eps) * weight over the last axis; weight 1 at init,
// no decay, no bias (as torch.nn.RMSNorm).
class RMSNorm final : public Norm {
 public:
  explicit RMSNorm(int64_t dim, double eps = 1e-5);
  Tensor forward(Tensor x) override;

 private:
  double eps_;
  Parameter* weight_;
};

// A LayerNorm (with a bias unless !bias) or an RMSNorm of width dim, eps 1e-5.
std::unique_ptr<Norm> make_norm(NormKind kind, int64_t dim, bool bias);

// The eps of the QK norm: float32's machine epsilon, what torch's
// F.rms_norm uses for f32 when given none.
constexpr double kQkNormEps = 1.1920928955078125e-7;

// What happens to each head's q and k (D elements each) of a packed qkv
// (B, T, 3C) before the scores: a weightless RMSNorm (norm), then rotary
// positions with base rope_base (rope). v is left as it is.
struct QkTransform {
  bool norm = false;
  bool rope = false;
  double rope_base = 10000.0;

  bool active() const { return norm || rope; }
  Tensor apply(Tensor qkv, int64_t heads) const;  // (B, T, 3C) -> (B, T, 3C)
};

}  // namespace tapir
