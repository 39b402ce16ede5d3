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

 private:
  std::vector<std::vector<unsigned char>> copies_;
};

// Written to a temporary file and renamed: a reader never sees half a file.
void save_parameters(const std::string& path, const std::vector<Parameter*>& params,
                     const Metadata& metadata);
// `label` names the file in errors.
void load_parameters(const SafeTensorsFile& file, const std::vector<Parameter*>& params,
                     const std::string& label);

}  // namespace tapir
