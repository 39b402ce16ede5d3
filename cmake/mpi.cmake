# MPI (engine/dist/): several tapir processes started by mpirun work on one
# job (docs/distributed.md). TAPIR_MPI chooses it:
#   AUTO (default)  on when CMake finds MPI's C library, off otherwise
#   ON              required: configuring fails without MPI
#   OFF             one process only: engine/dist/dist_stub.cpp answers rank 0 of 1
# Only MPI's C interface is used: it is found through FindMPI's CXX component
# (the project compiles no C) with MPI's C++ bindings skipped.
#
# Sets TAPIR_MPI_ENABLED and TAPIR_MPI_SOURCES; the caller adds the sources to
# the engine and calls tapir_mpi_link(tapir_engine) once the target exists.

include(${CMAKE_CURRENT_LIST_DIR}/auto_on_off.cmake)
tapir_auto_on_off(TAPIR_MPI "Build with MPI: AUTO (when found), ON or OFF" _tapir_mpi)

set(TAPIR_MPI_ENABLED OFF)
set(_tapir_mpi_why "TAPIR_MPI=OFF")
if(NOT _tapir_mpi STREQUAL "OFF")
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(TAPIR_MPI_ENABLED ON)
  elseif(_tapir_mpi STREQUAL "ON")
    message(FATAL_ERROR "TAPIR_MPI=ON but no MPI was found; install libopenmpi-dev and "
                        "openmpi-bin (scripts/setup.sh does)")
  else()
    set(_tapir_mpi_why "no MPI found")
  endif()
endif()

if(TAPIR_MPI_ENABLED)
  set(TAPIR_MPI_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/engine/dist/dist_mpi.cpp)
  message(STATUS "tapir: MPI on (MPI ${MPI_CXX_VERSION}, ${MPIEXEC_EXECUTABLE})")
else()
  set(TAPIR_MPI_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/engine/dist/dist_stub.cpp)
  message(STATUS "tapir: MPI off (${_tapir_mpi_why})")
endif()

function(tapir_mpi_link target)
  if(NOT TAPIR_MPI_ENABLED)
    return()
  endif()
  target_compile_definitions(${target} PUBLIC TAPIR_HAS_MPI=1)
  target_link_libraries(${target} PUBLIC MPI::MPI_CXX)
endfunction()
