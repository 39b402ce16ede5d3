// Damaging resume files on purpose, for the tests of what a resume refuses
// (test_run_safety.cpp, test_search_resume.cpp).
#pragma once
#include <string>
#include <vector>

#include "engine/safetensors.h"

namespace tapir::testing {

// Rewrites DIR/resume.safetensors with its tensors as they are, metadata
// `key` set to `value` (none when key is empty), and a one-value F32 tensor
// named `extra_tensor` added when that is not empty.
inline void rewrite_resume(const std::string& dir, const std::string& key, const std::string& value,
                           const std::string& extra_tensor = "") {
  const std::string path = dir + "/resume.safetensors";
  const SafeTensorsFile file = SafeTensorsFile::load(path);
  std::vector<SafeTensorWrite> writes;
  for (const SafeTensorView& v : file.tensors())
    writes.push_back({v.name, v.dtype, v.shape, v.data});
  const float one = 1;
  if (!extra_tensor.empty()) writes.push_back({extra_tensor, DType::f32, {1}, &one});
  Metadata meta;
  for (const auto& [k, v] : file.metadata())
    if (k != key) meta.push_back({k, v});
  if (!key.empty()) meta.push_back({key, value});
  save_safetensors(path, writes, meta);
}

}  // namespace tapir::testing
