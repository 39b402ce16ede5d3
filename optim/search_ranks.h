// A search spread over MPI ranks (optim/search.h, engine/dist.h): what the
// ranks exchange so that each holds the same shared functions as one
// process would. Model m belongs to rank dist::owner(m). Every exchange is
// an all-gather of each rank's values for the models it owns, read back
// model by model, so the sums that follow run in model order on every rank.
// Every rank calls each function with the same models.
#pragma once
#include <functional>
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

// Every model's state into rank 0's copies (for the resume file): each
// other rank writes its models with add(m, ...), and rank 0 reads them back
// with restore(m, file, label).
using AddModelState = std::function<void(int m, HostBytes& host,
                                         std::vector<SafeTensorWrite>& writes, Metadata& meta)>;
using RestoreModelState =
    std::function<void(int m, const SafeTensorsFile& file, const std::string& label)>;
void gather_models_to_root(int models, const AddModelState& add, const RestoreModelState& restore);

}  // namespace tapir
