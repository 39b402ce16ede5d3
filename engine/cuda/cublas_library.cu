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
#include "engine/cuda/common.cuh"
#include "engine/cuda/toolkit_library.h"

namespace tapir::cuda {

namespace {

Cublas load() {
  const ToolkitLibrary library("cuBLAS", TAPIR_CUBLAS_SONAME, "which --device cuda needs");
  Cublas c;
  library.bind("cublasCreate_v2", c.create);
  library.bind("cublasSetStream_v2", c.set_stream);
  library.bind("cublasSetMathMode", c.set_math_mode);
  library.bind("cublasGetStatusString", c.status_string);
  library.bind("cublasSgemm_v2", c.sgemm);
  library.bind("cublasDgemm_v2", c.dgemm);
  library.bind("cublasSgemmStridedBatched", c.sgemm_strided_batched);
  library.bind("cublasDgemmStridedBatched", c.dgemm_strided_batched);
  return c;
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
