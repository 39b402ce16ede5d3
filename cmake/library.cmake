# The engine as a library (docs/api.md). Every layer below the program is
# also a shared library, libtapir_<layer>.so, linked from the same objects
# as the `tapir` program (its OBJECT library, compiled position-independent
# for this) and linked to the libraries of the layers below it. Installed
# with the layers' headers and a CMake package, a program outside the tree
# writes
#
#   find_package(tapir 0.1 REQUIRED)
#   target_link_libraries(my_program PRIVATE tapir::optim)
#
# and gets tapir::optim and every layer under it (tapir::base, ::engine,
# ::tasks, ::autograd, ::nn), C++20, and the include root
# <prefix>/include/tapir, under which the headers keep the tree's paths
# ("engine/tensor.h", "autograd/ops.h"). The backends' folders (engine/cpu/,
# engine/cuda/, engine/dist/) are not installed: above the engine they are
# not visible in the tree either. What each library needs (OpenBLAS, the
# CUDA runtime, MPI, SentencePiece, libxsmm) it links itself; a program
# needs none of them. The tools layer (the command line, CLI11) is the
# program's own and is not a library.
#
# Install components, which are also the Debian packages (cmake/install.cmake):
# `program` (tapir, its man pages, completion and documentation),
# `libraries` (the shared libraries) and `development` (headers, CMake
# package and the libraries' unversioned names).

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TAPIR_LIBRARY_LAYERS base engine tasks autograd nn optim lab report)
set(TAPIR_LIBRARY_TARGETS "")
foreach(layer ${TAPIR_LIBRARY_LAYERS})
  set(target tapir_${layer}_library)
  # Its objects come from the layer's OBJECT library, linked directly (the
  # objects of the layers below are not: their libraries are).
  add_library(${target} SHARED)
  target_link_libraries(${target} PRIVATE tapir_${layer})
  foreach(below ${TAPIR_BELOW_${layer}})
    target_link_libraries(${target} PUBLIC tapir_${below}_library)
  endforeach()
  # Installed: the include root. In the tree (TAPIR_EXAMPLES): the layer's
  # view of the tree (build/layers/<layer>/), which shows what an install
  # shows: the layer's folder and those below, engine/ without its backends.
  target_include_directories(
    ${target} INTERFACE $<BUILD_INTERFACE:${TAPIR_VIEW_${layer}}>
                        $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tapir>)
  target_compile_features(${target} INTERFACE cxx_std_20)
  set_target_properties(
    ${target}
    PROPERTIES OUTPUT_NAME tapir_${layer}
               EXPORT_NAME ${layer}
               VERSION ${PROJECT_VERSION}
               # 0.x: every release may change the interface.
               SOVERSION ${PROJECT_VERSION}
               LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
               # Each finds the layers below it next to itself, wherever the
               # prefix is (a program's run path is not searched for the
               # libraries its libraries need).
               INSTALL_RPATH "$ORIGIN")
  list(APPEND TAPIR_LIBRARY_TARGETS ${target})
  add_library(tapir::${layer} ALIAS ${target})

  install(DIRECTORY ${layer}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tapir/${layer}
          COMPONENT development FILES_MATCHING PATTERN "*.h" PATTERN "*.inc"
          PATTERN cpu EXCLUDE PATTERN cuda EXCLUDE PATTERN dist EXCLUDE)
endforeach()

# The engine's headers read what its objects were compiled with.
if(TAPIR_CUDA_ENABLED)
  target_compile_definitions(tapir_engine_library INTERFACE TAPIR_HAS_CUDA=1)
endif()
if(TAPIR_MPI_ENABLED)
  target_compile_definitions(tapir_engine_library INTERFACE TAPIR_HAS_MPI=1)
endif()

set(TAPIR_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tapir)
install(TARGETS ${TAPIR_LIBRARY_TARGETS} EXPORT tapirTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT libraries
                NAMELINK_COMPONENT development)
install(EXPORT tapirTargets NAMESPACE tapir:: DESTINATION ${TAPIR_PACKAGE_DIR}
        COMPONENT development)
configure_package_config_file(cmake/tapirConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/tapirConfig.cmake
                              INSTALL_DESTINATION ${TAPIR_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/tapirConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/tapirConfig.cmake
              ${PROJECT_BINARY_DIR}/package/tapirConfigVersion.cmake
        DESTINATION ${TAPIR_PACKAGE_DIR} COMPONENT development)
