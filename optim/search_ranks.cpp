// A search spread over MPI ranks (optim/search.h, engine/dist.h): what the
// ranks exchange so that each holds the same shared functions as one
// process would. Every exchange is an all-gather of each rank's values for
// the models it owns, read back model by model, so the sums that follow
// run in model order on every rank.
#include <cstring>

#include "engine/dist.h"
#include "engine/safetensors.h"
#include "optim/search.h"

namespace tapir {

namespace {

template <typename T>
void put(std::string& out, const T* values, size_t n) {
  out.append(reinterpret_cast<const char*>(values), n * sizeof(T));
}

// Reads n values of T from `in` at `at`; fails on a short message.
template <typename T>
void take(const std::string& in, size_t& at, T* values, size_t n) {
  TAPIR_CHECK(at + n * sizeof(T) <= in.size(), "search: a rank sent a short message (", in.size(),
              " bytes)");
  std::memcpy(values, in.data() + at, n * sizeof(T));
  at += n * sizeof(T);
}

}  // namespace

void Search::share_arch_gradients(const std::vector<int>& models, std::vector<double>& losses) {
  std::string mine;
  for (int m : models) {
    if (!owns(m)) continue;
    const Member& member = members_[static_cast<size_t>(m)];
    put(mine, &losses[static_cast<size_t>(m)], 1);
    for (const std::vector<float>& g : member.arch_grad) put(mine, g.data(), g.size());
  }
  const std::vector<std::string> all = dist::all_gather(mine);
  std::vector<size_t> at(all.size(), 0);
  for (int m : models) {
    const int r = dist::owner(m);
    if (r == dist::rank()) continue;
    Member& member = members_[static_cast<size_t>(m)];
    const std::string& in = all[static_cast<size_t>(r)];
    take(in, at[static_cast<size_t>(r)], &losses[static_cast<size_t>(m)], 1);
    member.arch_grad.resize(shared_.size());
    for (size_t k = 0; k < shared_.size(); ++k) {
      member.arch_grad[k].resize(static_cast<size_t>(shared_[k]->tensor().numel()));
      take(in, at[static_cast<size_t>(r)], member.arch_grad[k].data(), member.arch_grad[k].size());
    }
  }
}

void Search::share_values(const std::vector<int>& models, std::vector<double>& values) {
  std::string mine;
  for (int m : models)
    if (owns(m)) put(mine, &values[static_cast<size_t>(m)], 1);
  const std::vector<std::string> all = dist::all_gather(mine);
  std::vector<size_t> at(all.size(), 0);
  for (int m : models) {
    const int r = dist::owner(m);
    if (r != dist::rank())
      take(all[static_cast<size_t>(r)], at[static_cast<size_t>(r)], &values[static_cast<size_t>(m)],
           1);
  }
}

void Search::gather_members_to_root() {
  // Each rank's models (rank 0 sends none: its own are current), as the
  // resume file holds them.
  std::string mine;
  if (!dist::is_root()) {
    HostBytes host;
    std::vector<SafeTensorWrite> writes;
    Metadata meta;
    for (int m = 0; m < config_.models; ++m) {
      if (!owns(m)) continue;
      const Member& member = members_[static_cast<size_t>(m)];
      const std::string prefix = member_prefix(m);
      member.trainer->add_state(prefix, host, writes, meta);
      add_rng_state(prefix + "arch_rng", member.arch_rng, host, writes);
    }
    mine = encode_safetensors(writes, meta);
  }
  const std::vector<std::string> all = dist::all_gather(mine);
  if (!dist::is_root()) return;
  for (int r = 1; r < dist::size(); ++r) {
    const std::string label = "search: the models of rank " + std::to_string(r);
    const SafeTensorsFile file = SafeTensorsFile::parse(all[static_cast<size_t>(r)], label);
    for (int m = 0; m < config_.models; ++m) {
      if (dist::owner(m) != r) continue;
      Member& member = members_[static_cast<size_t>(m)];
      const std::string prefix = member_prefix(m);
      member.trainer->restore_state(file, label, prefix);
      read_rng_state(file, label, prefix + "arch_rng", member.arch_rng);
    }
  }
}

}  // namespace tapir
