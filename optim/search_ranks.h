// A search spread over MPI ranks (optim/search.h, engine/dist.h): what the
// ranks exchange so that each holds the same shared functions as one
// process would. Model m belongs to rank dist::owner(m). Every exchange is
// an all-gather of each rank's values for the models it owns, read back
// model by model, so the sums that follow run in model order on every rank.
// Every rank calls each function with the same models.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/safetensors.h"
#include "nn/checkpoint.h"
#include "optim/search_functions.h"

namespace tapir {

// losses[m] and the D_arch gradient slot of m in `functions`, from the rank
// that computed them, for every m in `models`.
void share_arch_gradients(const std::vector<int>& models, std::vector<double>& losses,
                          SharedFunctions& functions);
// values[m] from the rank that owns m, for every m in `models`.
void share_values(const std::vector<int>& models, std::vector<double>& values);

// Every other rank's models on rank 0, for the resume file: each rank but 0
// writes the models it owns with add(m, ...) into one file, and rank 0 gets
// them indexed by rank (its own entry empty); the other ranks get nothing.
using AddModelState = std::function<void(int m, HostBytes& host,
                                         std::vector<SafeTensorWrite>& writes, Metadata& meta)>;
using GatheredModels = std::vector<std::optional<SafeTensorsFile>>;
GatheredModels gather_models_to_root(int models, const AddModelState& add);
// The tensors and metadata under `prefix` (a model's) of a gathered file,
// appended for another file; the tensors' data stays in `file`.
void copy_entries(const SafeTensorsFile& file, const std::string& prefix,
                  std::vector<SafeTensorWrite>& writes, Metadata& meta);

}  // namespace tapir
