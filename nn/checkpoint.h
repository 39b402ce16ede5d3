// Parameters to and from safetensors files, by their stable dotted names.
// Loading is strict: every parameter must be in the file with the same shape
// (f32), and the file may not hold tensors the model lacks; the first
// mismatch is a one-line error naming the parameter and both shapes.
//
// Files do not depend on the device: parameters on a GPU are written from
// host copies, and loading copies into the parameters wherever they live, so
// a model trained on cuda loads on cpu and the other way round.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "engine/safetensors.h"
#include "nn/module.h"

namespace tapir {

using Metadata = std::vector<std::pair<std::string, std::string>>;

// Host bytes of tensors about to be written: a cpu tensor's own data, or a
// host copy of a device tensor that lives as long as this object.
class HostBytes {
 public:
  const void* of(Tensor t);
  // A copy of n bytes that lives as long as this object.
  const void* copy(const void* data, size_t n);

 private:
  std::vector<std::vector<unsigned char>> copies_;
};

// Fails naming label and what ("parameter 'x'") unless all n values are
// finite: a NaN or Inf in a file is never loaded.
void check_finite(const float* values, int64_t n, const std::string& label,
                  const std::string& what);

// The writes of `params`, each named prefix + its name, from host bytes kept
// in `host`: for a file that holds parameters beside other tensors (the
// resume codec of optim/resume_codec.h uses the prefix "param.").
void add_parameter_writes(std::vector<SafeTensorWrite>& writes,
                          const std::vector<Parameter*>& params, HostBytes& host,
                          const std::string& prefix = "");
// Written to a temporary file and renamed: a reader never sees half a file.
void save_parameters(const std::string& path, const std::vector<Parameter*>& params,
                     const Metadata& metadata);
// `label` names the file in errors. Parameters are read from prefix + name;
// the strictness about extra tensors covers the names under the prefix.
void load_parameters(const SafeTensorsFile& file, const std::vector<Parameter*>& params,
                     const std::string& label, const std::string& prefix = "");

}  // namespace tapir
