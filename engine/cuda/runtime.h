// The CUDA runtime as tapir uses it: whether a GPU is there, device memory
// from a caching allocator, copies, one stream and one cuBLAS handle.
//
// Everything here is declared in every build. Without CUDA (TAPIR_HAS_CUDA
// undefined) cuda_available() is false and every other function fails with
// "tapir was built without CUDA", so callers need no #if.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace tapir::cuda {

// True when tapir was built with CUDA and a device can be used. Never throws.
bool cuda_available();
// One line for logs: "NVIDIA H200, sm_90, 139 GiB" or why CUDA is unusable.
std::string device_description();

// Device memory from a caching allocator: freed blocks go back to a pool keyed
// by rounded size and are reused, so a training loop calls cudaMalloc only
// while its high-water mark grows. Alignment is at least 256 bytes.
void* device_alloc(size_t bytes);
void device_free(void* p);
// Returns every cached block to the driver (tests, shutdown).
void release_cached_memory();
size_t bytes_allocated();  // currently handed out
size_t bytes_reserved();   // handed out + cached

// Copies on tapir's stream; those touching host memory wait for completion so
// that the host buffer may be reused at once.
void copy_to_device(void* dst_device, const void* src_host, size_t bytes);
void copy_to_host(void* dst_host, const void* src_device, size_t bytes);
void copy_device(void* dst_device, const void* src_device, size_t bytes);
void memset_device(void* dst_device, int value, size_t bytes);

// Opens cuBLAS now; otherwise it is opened by the first product on cuda, so
// that a program that never uses the GPU does not load it. Fails naming the
// library when it cannot be loaded. Needs no GPU.
void load_cublas();

// Sums n floats at `data` (device memory) over the ranks of the MPI job
// (engine/dist.h), in place, through NCCL: every rank gets the same sums, in
// the order NCCL adds them. NCCL is opened on first use (like cuBLAS) and
// the ranks' communicator set up then, its id sent over MPI. Under several
// ranks each process uses GPU (local rank mod the GPUs on its machine),
// chosen when it first touches the GPU. Fails with one line without NCCL.
void sum_over_ranks_nccl(float* data, int64_t n);
// Whether this build can do that (CUDA, MPI and NCCL's header were found).
bool nccl_built();
// Opens NCCL now and finds its functions (no GPU needed); fails naming the
// library, or without NCCL in the build.
void load_nccl();

// Waits for all work on tapir's stream; fails with the CUDA error of any
// kernel that failed since the last check.
void synchronize();

}  // namespace tapir::cuda
