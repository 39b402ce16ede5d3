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

void gather_models_to_root(int models, const AddModelState& add, const RestoreModelState& restore) {
  // Each rank's models (rank 0 sends none: its own are current), as the
  // resume file holds them.
  std::string out;
  if (!dist::is_root()) {
    HostBytes host;
    std::vector<SafeTensorWrite> writes;
    Metadata meta;
    for (int m = 0; m < models; ++m)
      if (mine(m)) add(m, host, writes, meta);
    out = encode_safetensors(writes, meta);
  }
  const std::vector<std::string> all = dist::all_gather(out);
  if (!dist::is_root()) return;
  for (int r = 1; r < dist::size(); ++r) {
    const std::string label = "search: the models of rank " + std::to_string(r);
    const SafeTensorsFile file = SafeTensorsFile::parse(all[static_cast<size_t>(r)], label);
    for (int m = 0; m < models; ++m)
      if (dist::owner(m) == r) restore(m, file, label);
  }
}

}  // namespace tapir
