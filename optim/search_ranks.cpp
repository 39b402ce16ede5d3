// The exchanges between the ranks of a search (optim/search_ranks.h).
#include "optim/search_ranks.h"

#include "engine/dist.h"

namespace tapir {

namespace {

bool mine(int m) {
  return dist::owner(m) == dist::rank();
}

}  // namespace

void share_arch_gradients(const std::vector<int>& models, std::vector<double>& losses,
                          SharedFunctions& functions) {
  std::string out;
  for (int m : models) {
    if (!mine(m)) continue;
    dist::put(out, &losses[static_cast<size_t>(m)], 1);
    for (const std::vector<float>& g : functions.gradient(m)) dist::put(out, g.data(), g.size());
  }
  const std::vector<std::string> all = dist::all_gather(out);
  const std::vector<Parameter*> shared = functions.parameters();
  std::vector<size_t> at(all.size(), 0);
  for (int m : models) {
    const int r = dist::owner(m);
    if (r == dist::rank()) continue;
    const std::string& in = all[static_cast<size_t>(r)];
    dist::take(in, at[static_cast<size_t>(r)], &losses[static_cast<size_t>(m)], 1);
    ArchGradient& grad = functions.gradient(m);
    grad.resize(shared.size());
    for (size_t k = 0; k < shared.size(); ++k) {
      grad[k].resize(static_cast<size_t>(shared[k]->tensor().numel()));
      dist::take(in, at[static_cast<size_t>(r)], grad[k].data(), grad[k].size());
    }
  }
}

void share_values(const std::vector<int>& models, std::vector<double>& values) {
  std::string out;
  for (int m : models)
    if (mine(m)) dist::put(out, &values[static_cast<size_t>(m)], 1);
  const std::vector<std::string> all = dist::all_gather(out);
  std::vector<size_t> at(all.size(), 0);
  for (int m : models) {
    const int r = dist::owner(m);
    if (r != dist::rank())
      dist::take(all[static_cast<size_t>(r)], at[static_cast<size_t>(r)],
                 &values[static_cast<size_t>(m)], 1);
  }
}

GatheredModels gather_models_to_root(int models, const AddModelState& add) {
  // Rank 0 sends none: it writes its own models as they are.
  std::string out;
  if (!dist::is_root()) {
    HostBytes host;
    std::vector<SafeTensorWrite> writes;
    Metadata meta;
    for (int m = 0; m < models; ++m)
      if (mine(m)) add(m, host, writes, meta);
    out = encode_safetensors(writes, meta);
  }
  std::vector<std::string> all = dist::all_gather(out);
  GatheredModels gathered;
  if (!dist::is_root()) return gathered;
  gathered.resize(all.size());
  for (size_t r = 1; r < all.size(); ++r)
    gathered[r] = SafeTensorsFile::parse(std::move(all[r]),
                                         "search: the models of rank " + std::to_string(r));
  return gathered;
}

void copy_entries(const SafeTensorsFile& file, const std::string& prefix,
                  std::vector<SafeTensorWrite>& writes, Metadata& meta) {
  for (const SafeTensorView& v : file.tensors())
    if (v.name.starts_with(prefix)) writes.push_back({v.name, v.dtype, v.shape, v.data});
  for (const auto& [key, value] : file.metadata())
    if (key.starts_with(prefix)) meta.push_back({key, value});
}

}  // namespace tapir
