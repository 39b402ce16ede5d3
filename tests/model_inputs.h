// What the model-level suites share: a small model's config, a model's
// parameter names, and a fixed (B, T) batch of token ids over the vocabulary.
#pragma once
#include <cstdint>
#include <set>
#include <string>

#include "nn/transformer.h"

namespace test_support {

// A small model: vocabulary 11, 8 positions, width 16, 4 heads, 2 blocks.
inline tapir::ModelConfig small_config() {
  tapir::ModelConfig c;
  c.vocab = 11;
  c.context = 8;
  c.width = 16;
  c.heads = 4;
  c.layers = 2;
  return c;
}

inline std::set<std::string> parameter_names(tapir::Transformer& m) {
  std::set<std::string> names;
  for (tapir::Parameter* p : m.parameters()) names.insert(p->name);
  return names;
}

inline tapir::Tensor tokens(int64_t B, int64_t T, int64_t vocab) {
  tapir::Tensor t = tapir::empty({B, T}, tapir::DType::i32);
  for (int64_t i = 0; i < B * T; ++i) t.data<int32_t>()[i] = int32_t((i * 7 + 3) % vocab);
  return t;
}

}  // namespace test_support
