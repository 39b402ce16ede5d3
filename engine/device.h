// Where a tensor's memory lives: the host (cpu) or the GPU (cuda).
//
// Tensors carry their device (engine/tensor.h); ops run on their inputs'
// device and put their outputs there. The thread-local current device is
// only where creation functions (empty, zeros, full, from_values, cast)
// allocate when no device is named:
//   DeviceScope scope(Device::cuda);  // empty(...) now allocates on the GPU
#pragma once
#include <cstdint>
#include <string>
#include <utility>

#include "engine/names.h"

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
