// The CUDA runtime as tapir uses it: device discovery, the caching allocator,
// copies, and the one stream and cuBLAS handle every kernel runs on.
//
// The allocator keeps freed blocks in a pool keyed by their rounded size and
// hands them out again for a request of the same rounded size, so a training
// loop, whose shapes repeat every step, calls cudaMalloc only while its
// high-water mark grows. It uses plain cudaMalloc (not managed memory). When
// cudaMalloc runs out of memory the pool is returned to the driver and the
// call retried once.
//
// cuBLAS runs in CUBLAS_PEDANTIC_MATH: no TF32 or other reduced-precision
// tensor-core paths even where the environment (NVIDIA_TF32_OVERRIDE) would
// allow them, so f32 products keep f32 precision, as on the CPU.
#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engine/cuda/common.cuh"
#include "engine/dist.h"

namespace tapir::cuda {

namespace {

// Below 1 MiB sizes round up to 512 bytes, above to 2 MiB: few distinct keys,
// little waste. cudaMalloc aligns to at least 256 bytes.
size_t rounded_size(size_t bytes) {
  const size_t small = 512, large = size_t(2) << 20;
  const size_t unit = bytes < (size_t(1) << 20) ? small : large;
  return (bytes + unit - 1) / unit * unit;
}

struct Pool {
  std::mutex mutex;
  std::multimap<size_t, void*> cached;       // rounded size -> free block
  std::unordered_map<void*, size_t> in_use;  // block -> rounded size
  size_t allocated = 0, reserved = 0;
};
// Never destroyed: device memory goes back to the driver with the process,
// and a destructor running after the CUDA runtime's own teardown would fail.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

void release_locked(Pool& p) {
  for (auto& [size, block] : p.cached) {
    TAPIR_CUDA_CHECK(cudaFree(block));
    p.reserved -= size;
  }
  p.cached.clear();
}

struct Context {
  cudaStream_t stream = nullptr;
  cublasHandle_t handle = nullptr;
};
std::mutex context_mutex;
Context& context() {
  static Context c;
  return c;
}

}  // namespace

bool cuda_available() {
  static const bool available = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error of a missing driver
      return false;
    }
    return count > 0;
  }();
  return available;
}

std::string device_description() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    // The runtime is linked in (statically); the driver, libcuda.so.1, comes
    // with NVIDIA's kernel module, and the runtime reports its absence as an
    // old driver.
    if (err == cudaErrorInsufficientDriver) {
      void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
      if (!driver) return "CUDA unusable: no NVIDIA driver (libcuda.so.1 is not installed)";
      dlclose(driver);
      int runtime = 0;
      cudaRuntimeGetVersion(&runtime);
      char line[160];
      std::snprintf(line, sizeof line,
                    "CUDA unusable: the NVIDIA driver is older than this build's CUDA runtime "
                    "(%d.%d)",
                    runtime / 1000, runtime % 1000 / 10);
      return line;
    }
    return std::string("CUDA unusable: ") + cudaGetErrorString(err);
  }
  if (count == 0) return "CUDA unusable: no CUDA device";
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    return "CUDA unusable: cannot read the device's properties";
  }
  char line[320];
  std::snprintf(line, sizeof line, "%s, sm_%d%d, %.0f GiB", prop.name, prop.major, prop.minor,
                double(prop.totalGlobalMem) / double(size_t(1) << 30));
  return line;
}

cudaStream_t stream() {
  std::lock_guard<std::mutex> lock(context_mutex);
  Context& c = context();
  if (!c.stream) {
    if (!cuda_available()) fail("CUDA is not available: ", device_description());
    // One GPU per rank of an MPI job on this machine, before any other use.
    if (dist::size() > 1) {
      int count = 0;
      TAPIR_CUDA_CHECK(cudaGetDeviceCount(&count));
      TAPIR_CUDA_CHECK(cudaSetDevice(dist::local_rank() % count));
    }
    TAPIR_CUDA_CHECK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  }
  return c.stream;
}

cublasHandle_t cublas_handle() {
  cudaStream_t s = stream();
  std::lock_guard<std::mutex> lock(context_mutex);
  Context& c = context();
  if (!c.handle) {
    const Cublas& blas = cublas();
    TAPIR_CUBLAS_CHECK(blas.create(&c.handle));
    TAPIR_CUBLAS_CHECK(blas.set_stream(c.handle, s));
    TAPIR_CUBLAS_CHECK(blas.set_math_mode(c.handle, CUBLAS_PEDANTIC_MATH));
  }
  return c.handle;
}

void* device_alloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  stream();  // fails with a clear message when there is no GPU
  const size_t size = rounded_size(bytes);
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  void* block = nullptr;
  auto hit = p.cached.find(size);
  if (hit != p.cached.end()) {
    block = hit->second;
    p.cached.erase(hit);
  } else {
    cudaError_t err = cudaMalloc(&block, size);
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_locked(p);
      err = cudaMalloc(&block, size);
    }
    if (err != cudaSuccess) {
      cudaGetLastError();
      fail("CUDA error in cudaMalloc of ", size, " bytes: ", cudaGetErrorString(err), " (",
           p.allocated, " bytes in use)");
    }
    p.reserved += size;
  }
  p.in_use.emplace(block, size);
  p.allocated += size;
  return block;
}

void device_free(void* block) {
  if (!block) return;
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = p.in_use.find(block);
  if (it == p.in_use.end()) fail("device_free: ", block, " was not allocated by device_alloc");
  p.allocated -= it->second;
  p.cached.emplace(it->second, block);
  p.in_use.erase(it);
}

void release_cached_memory() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  if (p.cached.empty()) return;
  TAPIR_CUDA_CHECK(cudaStreamSynchronize(stream()));
  release_locked(p);
}

size_t bytes_allocated() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.allocated;
}

size_t bytes_reserved() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.reserved;
}

void copy_to_device(void* dst_device, const void* src_host, size_t bytes) {
  if (bytes == 0) return;
  TAPIR_CUDA_CHECK(cudaMemcpyAsync(dst_device, src_host, bytes, cudaMemcpyHostToDevice, stream()));
  TAPIR_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void copy_to_host(void* dst_host, const void* src_device, size_t bytes) {
  if (bytes == 0) return;
  TAPIR_CUDA_CHECK(cudaMemcpyAsync(dst_host, src_device, bytes, cudaMemcpyDeviceToHost, stream()));
  TAPIR_CUDA_CHECK(cudaStreamSynchronize(stream()));
}

void copy_device(void* dst_device, const void* src_device, size_t bytes) {
  if (bytes == 0) return;
  TAPIR_CUDA_CHECK(
      cudaMemcpyAsync(dst_device, src_device, bytes, cudaMemcpyDeviceToDevice, stream()));
}

void memset_device(void* dst_device, int value, size_t bytes) {
  if (bytes == 0) return;
  TAPIR_CUDA_CHECK(cudaMemsetAsync(dst_device, value, bytes, stream()));
}

void synchronize() {
  TAPIR_CUDA_CHECK(cudaStreamSynchronize(stream()));
  TAPIR_CUDA_CHECK(cudaGetLastError());
}

}  // namespace tapir::cuda
