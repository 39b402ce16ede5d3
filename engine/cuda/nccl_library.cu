// Sums over the ranks of an MPI job on the GPU, through NCCL (runtime.h:
// sum_over_ranks_nccl). NCCL is opened with dlopen() on first use, as
// cuBLAS is (cublas_library.cu): linking it would map its 218 MB into every
// tapir process. The function types come from nccl.h, so a mismatch with
// the header is a compile error. The communicator is set up on first use:
// rank 0 draws NCCL's unique id and the ranks receive it over MPI
// (engine/dist.h), then each joins with its rank.
#include "engine/cuda/common.cuh"
#include "engine/cuda/runtime.h"
#include "engine/cuda/toolkit_library.h"
#include "engine/dist.h"

#if TAPIR_HAS_NCCL
#include <nccl.h>

#include <cstring>
#include <string>
#include <vector>
#endif

namespace tapir::cuda {

#if TAPIR_HAS_NCCL

namespace {

struct Nccl {
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
};

Nccl load() {
  const ToolkitLibrary library("NCCL", TAPIR_NCCL_SONAME,
                               "which --device cuda needs on several MPI ranks");
  Nccl n;
  library.bind("ncclGetUniqueId", n.get_unique_id);
  library.bind("ncclCommInitRank", n.comm_init_rank);
  library.bind("ncclAllReduce", n.all_reduce);
  library.bind("ncclGetErrorString", n.error_string);
  return n;
}

const Nccl& nccl() {
  static const Nccl functions = load();
  return functions;
}

void check_nccl(ncclResult_t result, const char* call) {
  if (result != ncclSuccess) fail("NCCL error in ", call, ": ", nccl().error_string(result));
}

ncclComm_t communicator() {
  static const ncclComm_t comm = [] {
    stream();  // picks this rank's GPU first
    ncclUniqueId id;
    std::memset(&id, 0, sizeof id);
    if (dist::is_root()) check_nccl(nccl().get_unique_id(&id), "ncclGetUniqueId");
    const std::vector<std::string> ids =
        dist::all_gather(std::string(reinterpret_cast<const char*>(&id), sizeof id));
    std::memcpy(&id, ids.front().data(), sizeof id);
    ncclComm_t c = nullptr;
    check_nccl(nccl().comm_init_rank(&c, dist::size(), id, dist::rank()), "ncclCommInitRank");
    return c;
  }();
  return comm;
}

}  // namespace

void sum_over_ranks_nccl(float* data, int64_t n) {
  if (dist::size() == 1 || n == 0) return;
  check_nccl(nccl().all_reduce(data, data, static_cast<size_t>(n), ncclFloat32, ncclSum,
                               communicator(), stream()),
             "ncclAllReduce");
}

bool nccl_built() {
  return true;
}

void load_nccl() {
  nccl();
}

#else

void sum_over_ranks_nccl(float*, int64_t) {
  fail(
      "tapir was built without NCCL (it needs CUDA, MPI and NCCL's nccl.h): GPUs cannot sum "
      "gradients over ranks");
}

bool nccl_built() {
  return false;
}

void load_nccl() {
  sum_over_ranks_nccl(nullptr, 0);
}

#endif

}  // namespace tapir::cuda
