#include "engine/device.h"

#include "engine/cuda/runtime.h"
#include "engine/error.h"

namespace tapir {

namespace {
thread_local Device g_current_device = Device::cpu;
}

void require_device(Device d) {
  if (d == Device::cpu) return;
  TAPIR_CHECK(cuda::cuda_available(), "device cuda is not usable: ", cuda::device_description());
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
