// Where a tensor's memory lives: the host (cpu) or the GPU (cuda).
//
// Tensors carry their device (engine/tensor.h); ops run on their inputs'
// device and put their outputs there. The thread-local current device is
// only where creation functions (empty, zeros, full, from_values, cast)
// allocate when no device is named:
//   DeviceScope scope(Device::cuda);  // empty(...) now allocates on the GPU
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "base/names.h"

namespace tapir {

enum class Device : uint8_t { cpu, cuda };
template <>
struct Names<Device> {
  static constexpr const char* what = "device";
  static constexpr std::pair<Device, const char*> table[] = {{Device::cpu, "cpu"},
                                                             {Device::cuda, "cuda"}};
};

inline const char* device_name(Device d) {
  return name_of(d);
}  // "cpu" or "cuda"
// "cpu" or "cuda"; anything else fails naming the accepted values.
inline Device parse_device(const std::string& name) {
  return parse_name<Device>(name);
}

// Fails with one line naming the device and why it cannot be used (for
// cuda: not built with CUDA, or no usable GPU: cuda::device_description()).
void require_device(Device d);

// Device-neutral calls for the layers above the engine, which never include a
// backend (engine/cpu/, engine/cuda/). On cpu each is plain host work.
//
// Waits until all work queued on d is done (cuda: fails with the error of
// any kernel that failed since the last check); nothing on cpu.
void synchronize(Device d);
// Byte copies of memory on d: host to d, d to host, within d.
void copy_bytes_to(Device d, void* dst, const void* src_host, size_t bytes);
void copy_bytes_from(Device d, void* dst_host, const void* src, size_t bytes);
void copy_bytes_within(Device d, void* dst, const void* src, size_t bytes);
// Whether sum_over_ranks_on can sum memory of d over the MPI ranks (cuda
// needs NCCL in the build).
bool can_sum_over_ranks_on(Device d);
// n floats at `data` (memory of d) := their sum over the ranks, the same bits
// on every rank: cpu adds in rank order (engine/dist.h), cuda through NCCL
// (in NCCL's order).
void sum_over_ranks_on(Device d, float* data, int64_t n);

Device current_device();
class DeviceScope {
 public:
  explicit DeviceScope(Device d);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  Device previous_;
};

}  // namespace tapir
