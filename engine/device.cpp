#include "engine/device.h"

#include <cstring>

#include "base/error.h"
#include "engine/cuda/runtime.h"
#include "engine/dist.h"

namespace tapir {

namespace {
thread_local Device g_current_device = Device::cpu;
}

void require_device(Device d) {
  if (d == Device::cpu) return;
  TAPIR_CHECK(cuda::cuda_available(), "device cuda is not usable: ", cuda::device_description());
}

void synchronize(Device d) {
  if (d == Device::cuda) cuda::synchronize();
}

void copy_bytes_to(Device d, void* dst, const void* src_host, size_t bytes) {
  if (d == Device::cuda)
    cuda::copy_to_device(dst, src_host, bytes);
  else
    std::memcpy(dst, src_host, bytes);
}

void copy_bytes_from(Device d, void* dst_host, const void* src, size_t bytes) {
  if (d == Device::cuda)
    cuda::copy_to_host(dst_host, src, bytes);
  else
    std::memcpy(dst_host, src, bytes);
}

void copy_bytes_within(Device d, void* dst, const void* src, size_t bytes) {
  if (d == Device::cuda)
    cuda::copy_device(dst, src, bytes);
  else
    std::memmove(dst, src, bytes);
}

bool can_sum_over_ranks_on(Device d) {
  return d == Device::cpu || cuda::nccl_built();
}

void sum_over_ranks_on(Device d, float* data, int64_t n) {
  if (d == Device::cuda)
    cuda::sum_over_ranks_nccl(data, n);
  else
    dist::sum_in_rank_order(data, n);
}

Device current_device() {
  return g_current_device;
}

DeviceScope::DeviceScope(Device d) : previous_(g_current_device) {
  g_current_device = d;
}

DeviceScope::~DeviceScope() {
  g_current_device = previous_;
}

}  // namespace tapir
