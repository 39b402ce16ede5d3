// The CUDA runtime around the kernels: its answers without a GPU (or
// without CUDA at all), cuBLAS and NCCL opened on first use rather than at
// start-up, and the caching allocator's reuse of freed blocks. The allocator case
// skips, with a message, when no GPU can be used.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "base/error.h"
#include "cuda_parity.h"
#include "engine/cuda/runtime.h"

using namespace cuda_parity;
namespace gpu = tapir::cuda;

TEST_CASE("cuda runtime answers cleanly without a GPU") {
  if (gpu::cuda_available()) {
    MESSAGE("GPU: " << gpu::device_description());
    return;
  }
  CHECK(!gpu::device_description().empty());
  CHECK_THROWS_AS(gpu::device_alloc(256), tapir::Error);
  CHECK_THROWS_AS(gpu::synchronize(), tapir::Error);
#if !defined(TAPIR_HAS_CUDA)
  CHECK(gpu::device_description() == "tapir was built without CUDA");
  CHECK_THROWS_WITH(gpu::device_alloc(256), "tapir was built without CUDA");
#endif
}

namespace {
// True when a library whose file name contains `name` is mapped into this
// process (/proc/self/maps lists every mapped file).
bool library_mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("cuBLAS is opened on first use, not when the program starts") {
#if defined(TAPIR_HAS_CUDA)
  // Without a GPU nothing has run a product on cuda, so cuBLAS (and its
  // 500 MB libcublasLt) must not be mapped yet; opening it needs no GPU.
  if (!gpu::cuda_available()) CHECK_FALSE(library_mapped("libcublas"));
  gpu::load_cublas();
  CHECK(library_mapped("libcublas.so"));
  CHECK(library_mapped("libcublasLt.so"));
  gpu::load_cublas();  // once is enough; a second call is a no-op
#else
  CHECK_THROWS_WITH(gpu::load_cublas(), "tapir was built without CUDA");
  CHECK_FALSE(library_mapped("libcublas"));
#endif
}

TEST_CASE("NCCL is opened on first use, with every function tapir calls") {
  if (!gpu::nccl_built()) {
    CHECK_THROWS_AS(gpu::load_nccl(), tapir::Error);
    return;
  }
  CHECK_FALSE(library_mapped("libnccl"));
  gpu::load_nccl();  // binds ncclGetUniqueId, ncclCommInitRank, ncclAllReduce, ...
  CHECK(library_mapped("libnccl.so"));
}

#if defined(TAPIR_HAS_CUDA)
TEST_CASE("cuda allocator reuses a freed block of the same size") {
  if (!gpu_or_skip()) return;
  gpu::release_cached_memory();
  const size_t before = gpu::bytes_allocated();
  void* a = gpu::device_alloc(1000);
  CHECK(reinterpret_cast<uintptr_t>(a) % 256 == 0);
  CHECK(gpu::bytes_allocated() >= before + 1000);
  const size_t reserved = gpu::bytes_reserved();
  gpu::device_free(a);
  CHECK(gpu::bytes_allocated() == before);
  CHECK(gpu::bytes_reserved() == reserved);  // cached, not returned
  void* b = gpu::device_alloc(1000);
  CHECK(b == a);
  CHECK(gpu::bytes_reserved() == reserved);  // no new cudaMalloc
  gpu::device_free(b);
  gpu::release_cached_memory();
  CHECK(gpu::bytes_reserved() < reserved);
  CHECK(gpu::device_alloc(0) == nullptr);
  int local = 0;
  CHECK_THROWS_AS(gpu::device_free(&local), tapir::Error);
}
#endif  // TAPIR_HAS_CUDA
