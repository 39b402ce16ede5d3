// cuBLAS, opened on first use instead of linked.
//
// Linking libcublas makes the dynamic loader map and relocate it and
// libcublasLt (over 500 MB of code) when any tapir program starts: about
// 210 MB of resident memory and a third of a second before main(), on every
// run, with or without a GPU. tapir only needs cuBLAS once a product runs on
// cuda, so the library is opened with dlopen() there and the eight functions it
// calls are looked up by name. Their types come from cublas_v2.h, so a
// mismatch with the header is a compile error, and the names are the
// versioned ones the header's macros expand to (cublasSgemm is
// cublasSgemm_v2).
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "engine/cuda/common.cuh"

namespace tapir::cuda {

namespace {

// Found by the dynamic loader's usual search (this program's run path,
// LD_LIBRARY_PATH, /etc/ld.so.conf), then in the toolkit's library folder
// that the build used.
void* open_library(std::string& why) {
  void* handle = dlopen(TAPIR_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (handle) return handle;
  why = dlerror();
  const std::string in_toolkit = std::string(TAPIR_CUDA_LIBRARY_DIR) + "/" + TAPIR_CUBLAS_SONAME;
  handle = dlopen(in_toolkit.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) why += std::string("; ") + dlerror();
  return handle;
}

template <typename F>
void bind(void* library, const char* name, F& function) {
  dlerror();
  void* symbol = dlsym(library, name);
  if (!symbol)
    fail("cuBLAS (", TAPIR_CUBLAS_SONAME, ") has no function ", name,
         ": it is not the version tapir was built with");
  function = reinterpret_cast<F>(symbol);
}

Cublas load() {
  std::string why;
  void* library = open_library(why);
  if (!library)
    fail("cannot load cuBLAS (", TAPIR_CUBLAS_SONAME, "), which --device cuda needs: ", why);
  Cublas c;
  bind(library, "cublasCreate_v2", c.create);
  bind(library, "cublasSetStream_v2", c.set_stream);
  bind(library, "cublasSetMathMode", c.set_math_mode);
  bind(library, "cublasGetStatusString", c.status_string);
  bind(library, "cublasSgemm_v2", c.sgemm);
  bind(library, "cublasDgemm_v2", c.dgemm);
  bind(library, "cublasSgemmStridedBatched", c.sgemm_strided_batched);
  bind(library, "cublasDgemmStridedBatched", c.dgemm_strided_batched);
  return c;  // the library stays open for the life of the process
}

}  // namespace

const Cublas& cublas() {
  static const Cublas functions = load();
  return functions;
}

void load_cublas() {
  cublas();
}

}  // namespace tapir::cuda
