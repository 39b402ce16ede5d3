// The CUDA runtime in a build without CUDA: no device is available and every
// other call fails, so callers need no #if (engine/cuda/runtime.h).
#if !TAPIR_HAS_CUDA
#include "engine/cuda/runtime.h"
#include "engine/error.h"

namespace tapir::cuda {

namespace {
[[noreturn]] void unavailable() {
  fail("tapir was built without CUDA");
}
}  // namespace

bool cuda_available() {
  return false;
}
std::string device_description() {
  return "tapir was built without CUDA";
}
void* device_alloc(size_t) {
  unavailable();
}
void device_free(void* p) {
  if (p) unavailable();
}
void release_cached_memory() {}
size_t bytes_allocated() {
  return 0;
}
size_t bytes_reserved() {
  return 0;
}
void copy_to_device(void*, const void*, size_t) {
  unavailable();
}
void copy_to_host(void*, const void*, size_t) {
  unavailable();
}
void copy_device(void*, const void*, size_t) {
  unavailable();
}
void memset_device(void*, int, size_t) {
  unavailable();
}
void synchronize() {}

}  // namespace tapir::cuda
#endif
