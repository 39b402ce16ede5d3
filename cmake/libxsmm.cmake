# libxsmm (engine/gemm_libraries.cpp): the small-matrix GEMM library that
# `tapir bench --gemm` compares with OpenBLAS and Eigen; no training step
# uses it. TAPIR_LIBXSMM chooses it:
#   AUTO (default)  on when CMake finds it, off otherwise
#   ON              required: configuring fails without it
#   OFF             the benchmark times OpenBLAS and Eigen only
# Debian's libxsmm-dev (1.17) ships static libraries under /usr/lib and a
# pkg-config module `libxsmm`; without pkg-config the header and library
# are looked for directly. libxsmm's fallback for large products calls the
# Fortran BLAS (sgemm_), which OpenBLAS provides.
#
# Sets TAPIR_LIBXSMM_ENABLED; the caller calls tapir_libxsmm_link(tapir_engine)
# once the target exists.

include(${CMAKE_CURRENT_LIST_DIR}/auto_on_off.cmake)
tapir_auto_on_off(TAPIR_LIBXSMM "Build the libxsmm products of bench --gemm: AUTO, ON or OFF"
                  _tapir_libxsmm)

set(TAPIR_LIBXSMM_ENABLED OFF)
set(_tapir_libxsmm_why "TAPIR_LIBXSMM=OFF")
if(NOT _tapir_libxsmm STREQUAL "OFF")
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(LIBXSMM QUIET IMPORTED_TARGET libxsmm)
  endif()
  if(LIBXSMM_FOUND)
    add_library(tapir::libxsmm INTERFACE IMPORTED)
    target_link_libraries(tapir::libxsmm INTERFACE PkgConfig::LIBXSMM)
    set(_tapir_libxsmm_version "${LIBXSMM_VERSION}")
  else()
    find_path(TAPIR_LIBXSMM_INCLUDE_DIR libxsmm.h)
    find_library(TAPIR_LIBXSMM_LIBRARY xsmm)
    if(TAPIR_LIBXSMM_INCLUDE_DIR AND TAPIR_LIBXSMM_LIBRARY)
      set(LIBXSMM_FOUND ON)
      add_library(tapir::libxsmm INTERFACE IMPORTED)
      target_include_directories(tapir::libxsmm INTERFACE ${TAPIR_LIBXSMM_INCLUDE_DIR})
      target_link_libraries(tapir::libxsmm INTERFACE ${TAPIR_LIBXSMM_LIBRARY} Threads::Threads
                                                     ${CMAKE_DL_LIBS} rt m)
      set(_tapir_libxsmm_version "${TAPIR_LIBXSMM_LIBRARY}")
    endif()
  endif()
  if(LIBXSMM_FOUND)
    set(TAPIR_LIBXSMM_ENABLED ON)
  elseif(_tapir_libxsmm STREQUAL "ON")
    message(FATAL_ERROR "TAPIR_LIBXSMM=ON but libxsmm was not found; install libxsmm-dev "
                        "(scripts/setup.sh does)")
  else()
    set(_tapir_libxsmm_why "libxsmm not found")
  endif()
endif()

if(TAPIR_LIBXSMM_ENABLED)
  message(STATUS "tapir: libxsmm on (${_tapir_libxsmm_version})")
else()
  message(STATUS "tapir: libxsmm off (${_tapir_libxsmm_why})")
endif()

# Only engine/gemm_libraries.cpp includes libxsmm.h: the macro stays in the
# engine; the library goes with the engine's objects into every program.
function(tapir_libxsmm_link target)
  if(NOT TAPIR_LIBXSMM_ENABLED)
    return()
  endif()
  target_compile_definitions(${target} PRIVATE TAPIR_HAVE_LIBXSMM=1)
  target_link_libraries(${target} PUBLIC tapir::libxsmm)
endfunction()
