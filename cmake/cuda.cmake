# The CUDA backend (engine/cuda/). TAPIR_CUDA chooses it:
#   AUTO (default)  on when CMake finds nvcc, off otherwise
#   ON              required: configuring fails without nvcc
#   OFF             CPU only: engine/cuda/runtime_stub.cpp answers "no CUDA"
# When on, every engine/cuda/*.cu (globbed, so new files join by themselves)
# is compiled into tapir_core, which links the CUDA runtime statically,
# opens cuBLAS on first use, and defines TAPIR_HAS_CUDA=1 for everything
# built on it. Nothing of the toolkit is a shared library the program needs
# at start, so a CUDA build runs every CPU command on a machine without the
# toolkit or a driver (the install test hides the toolkit to check it).
#
# Sets TAPIR_CUDA_ENABLED and TAPIR_CUDA_SOURCES; the caller adds the sources
# and calls tapir_cuda_link(tapir_core) once the target exists.

include(${CMAKE_CURRENT_LIST_DIR}/auto_on_off.cmake)
tapir_auto_on_off(TAPIR_CUDA "Build the CUDA backend: AUTO (when nvcc is found), ON or OFF"
                  _tapir_cuda)

set(TAPIR_CUDA_ENABLED OFF)
set(_tapir_cuda_why "TAPIR_CUDA=OFF")
if(NOT _tapir_cuda STREQUAL "OFF")
  # check_language looks on PATH only; also take an nvcc from CMake's usual
  # program folders or the toolkit's home, /usr/local/cuda.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(_tapir_nvcc nvcc HINTS /usr/local/cuda/bin)
    if(_tapir_nvcc)
      set(ENV{CUDACXX} "${_tapir_nvcc}")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(TAPIR_CUDA_ENABLED ON)
  elseif(_tapir_cuda STREQUAL "ON")
    message(FATAL_ERROR "TAPIR_CUDA=ON but no CUDA compiler (nvcc) was found; "
                        "put nvcc on PATH or set CMAKE_CUDA_COMPILER")
  else()
    set(_tapir_cuda_why "no nvcc found")
  endif()
endif()

if(TAPIR_CUDA_ENABLED)
  # sm_90 machine code plus compute_90 PTX, which newer GPUs compile at load.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "90-real;90-virtual" CACHE STRING "CUDA architectures to build")
  endif()
  # nvcc compiles host code with the same compiler as the C++ sources.
  if(NOT DEFINED CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}" CACHE FILEPATH "Host compiler of nvcc")
  endif()
  # The static runtime, to match CUDA::cudart_static below: it loads the
  # driver (libcuda.so.1) on the first CUDA call, not at start.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  enable_language(CUDA)
  # C++17: CMake 3.25 does not know nvcc's flag for C++20; the .cu files need no more.
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  file(GLOB TAPIR_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/engine/cuda/*.cu)
  message(STATUS "tapir: CUDA on (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  set(TAPIR_CUDA_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/engine/cuda/runtime_stub.cpp)
  message(STATUS "tapir: CUDA off (${_tapir_cuda_why})")
endif()

# Warnings for nvcc: its own (all made errors under TAPIR_WERROR) and the host
# compiler's -Wall -Wextra on the host side of the .cu files. The C++ flags
# (tapir_options) apply to C++ sources only, since nvcc would reject several.
function(tapir_cuda_link target)
  if(NOT TAPIR_CUDA_ENABLED)
    return()
  endif()
  target_compile_definitions(${target} PUBLIC TAPIR_HAS_CUDA=1)
  # cuBLAS is opened with dlopen() on first use (engine/cuda/cublas_library.cu),
  # not linked: linking it costs every run about 210 MB of memory at start.
  target_link_libraries(${target} PUBLIC CUDA::cudart_static ${CMAKE_DL_LIBS})
  target_compile_definitions(
    ${target} PRIVATE TAPIR_CUBLAS_SONAME="libcublas.so.${CUDAToolkit_VERSION_MAJOR}"
                      TAPIR_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  set(_flags -Xcompiler=-Wall,-Wextra)
  if(TAPIR_WERROR)
    list(APPEND _flags -Werror=all-warnings -Xcompiler=-Werror)
  endif()
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${_flags}>")
  # NCCL, for GPUs summing gradients over MPI ranks (engine/cuda/nccl_library.cu):
  # its header is needed to build, its library is opened on first use.
  if(TAPIR_MPI_ENABLED)
    find_path(TAPIR_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    if(TAPIR_NCCL_INCLUDE_DIR)
      target_include_directories(${target} PRIVATE ${TAPIR_NCCL_INCLUDE_DIR})
      target_compile_definitions(${target} PRIVATE TAPIR_HAS_NCCL=1
                                                   TAPIR_NCCL_SONAME="libnccl.so.2")
      message(STATUS "tapir: NCCL on (${TAPIR_NCCL_INCLUDE_DIR}/nccl.h, opened on first use)")
    else()
      message(STATUS "tapir: NCCL off (no nccl.h)")
    endif()
  endif()
endfunction()
