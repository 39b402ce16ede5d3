// A library of the CUDA toolkit opened with dlopen() on first use instead of
// linked (cuBLAS in cublas_library.cu, NCCL in nccl_library.cu): linking
// them maps hundreds of megabytes into every tapir process at start, GPU or
// not. Host code only; needs TAPIR_CUDA_LIBRARY_DIR (cmake/cuda.cmake).
#pragma once
#include <dlfcn.h>

#include <string>

#include "base/error.h"

namespace tapir::cuda {

class ToolkitLibrary {
 public:
  // Finds `soname` by the dynamic loader's usual search (this program's run
  // path, LD_LIBRARY_PATH, /etc/ld.so.conf), then in the toolkit's library
  // folder that the build used; fails with "cannot load <what> (<soname>),
  // <needed_for>: <why>". The library stays open for the life of the process.
  ToolkitLibrary(const char* what, const char* soname, const char* needed_for)
      : what_(what), soname_(soname) {
    handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle_) return;
    std::string why = dlerror();
    const std::string in_toolkit = std::string(TAPIR_CUDA_LIBRARY_DIR) + "/" + soname;
    handle_ = dlopen(in_toolkit.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_)
      fail("cannot load ", what, " (", soname, "), ", needed_for, ": ", why, "; ", dlerror());
  }

  // Points `function` at the library's function `name`; its type comes from
  // the library's header, so a mismatch is a compile error.
  template <typename F>
  void bind(const char* name, F& function) const {
    dlerror();
    void* symbol = dlsym(handle_, name);
    if (!symbol)
      fail(what_, " (", soname_, ") has no function ", name,
           ": it is not the version tapir was built with");
    function = reinterpret_cast<F>(symbol);
  }

 private:
  const char* what_;
  const char* soname_;
  void* handle_ = nullptr;
};

}  // namespace tapir::cuda
