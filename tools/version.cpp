// `tapir --version` (tools/version.h). The release, commit, build type and
// CPU target come from the header the build writes (cmake/build_info.cmake);
// CUDA and MPI from the compile definitions of the engine; the BLAS kernels
// from OpenBLAS as tapir pinned them (engine/blas_kernels.h). Only the `tapir`
// program compiles this file, so a new commit recompiles it and relinks the
// program, nothing else.
#include "tools/version.h"

#include "engine/blas_kernels.h"
#include "tools/build_info.h"

namespace tapir {

std::string version_text() {
#if TAPIR_HAS_CUDA
  const char* cuda = "yes";
#else
  const char* cuda = "no";
#endif
#if TAPIR_HAS_MPI
  const char* mpi = "yes";
#else
  const char* mpi = "no";
#endif
  std::string text = "tapir " TAPIR_BUILD_VERSION "\n";
  text += "commit: " TAPIR_BUILD_COMMIT "\n";
  text += "build type: " TAPIR_BUILD_TYPE "\n";
  text += "CPU target: " TAPIR_BUILD_CPU_TARGET "\n";
  text += std::string("CUDA: ") + cuda + "\n";
  text += std::string("MPI: ") + mpi + "\n";
  text += "BLAS kernels: " + blas_kernels_description();
  return text;
}

std::string build_stamp_text() {
  return "tapir " TAPIR_BUILD_VERSION ", commit " TAPIR_BUILD_COMMIT ", " TAPIR_BUILD_TYPE
         ", " TAPIR_BUILD_CPU_TARGET;
}

}  // namespace tapir
