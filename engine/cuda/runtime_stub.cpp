// The CUDA runtime's interface in a build without CUDA (TAPIR_CUDA=OFF or no
// nvcc found): no device, and every use fails with one clear message, so
// callers need no #if around cuda_available() checks.
#include "base/error.h"
#include "engine/cuda/runtime.h"

namespace tapir::cuda {

namespace {
constexpr const char* kNoCuda = "tapir was built without CUDA";
}

bool cuda_available() {
  return false;
}
std::string device_description() {
  return kNoCuda;
}
void* device_alloc(size_t) {
  fail(kNoCuda);
}
void device_free(void*) {
  fail(kNoCuda);
}
void release_cached_memory() {
  fail(kNoCuda);
}
size_t bytes_allocated() {
  fail(kNoCuda);
}
size_t bytes_reserved() {
  fail(kNoCuda);
}
void copy_to_device(void*, const void*, size_t) {
  fail(kNoCuda);
}
void copy_to_host(void*, const void*, size_t) {
  fail(kNoCuda);
}
void copy_device(void*, const void*, size_t) {
  fail(kNoCuda);
}
void memset_device(void*, int, size_t) {
  fail(kNoCuda);
}
void load_cublas() {
  fail(kNoCuda);
}
void synchronize() {
  fail(kNoCuda);
}
void sum_over_ranks_nccl(float*, int64_t) {
  fail(kNoCuda);
}
bool nccl_built() {
  return false;
}
void load_nccl() {
  fail(kNoCuda);
}

}  // namespace tapir::cuda
