# The `install` test (tests/CMakeLists.txt):
#   cmake -DBUILD_DIR=<build> -DWORK_DIR=<dir> -DSOURCE_DIR=<repo> -DVERSION=<x.y>
#         -DBUILD_TYPE=<config> -DCPU_TARGET=<target> -DCUDA=yes|no -DMPI=yes|no -P install.cmake
# Installs the build into WORK_DIR/prefix as `cmake --install` does for a
# user, checks that the documentation, the libraries and the headers are
# there and that no run path (the program's, the libraries') leads into the
# build or the source tree, and runs the installed program from another
# folder (cmake/checks/installed_tapir.cmake). The examples test builds
# programs against the prefix it leaves (cmake/checks/examples.cmake).
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/installed_tapir.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
tapir_expect_success("${rc}" "cmake --install ${BUILD_DIR} --prefix ${prefix}" "${output}")

foreach(doc README.md docs/build.md docs/engine.md configs/modadd.toml third_party/README.md)
  if(NOT EXISTS ${prefix}/share/doc/tapir/${doc})
    message(FATAL_ERROR "share/doc/tapir/${doc} was not installed:\n${output}")
  endif()
endforeach()
foreach(file share/man/man1/tapir.1 share/man/man1/tapir-train.1 share/man/man1/tapir-arch-import.1
             share/bash-completion/completions/tapir include/tapir/engine/tensor.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "${file} was not installed:\n${output}")
  endif()
endforeach()

# The program's run path, and each library's, leads into neither tree.
find_program(READELF readelf REQUIRED)
# (lib/, or lib/<multiarch>/ where the build was configured for /usr)
file(GLOB_RECURSE libraries ${prefix}/lib/libtapir_*.so.${VERSION})
list(LENGTH libraries library_count)
if(NOT library_count EQUAL 8)
  message(FATAL_ERROR "${library_count} libraries under ${prefix}/lib, not 8 (one per layer)")
endif()
foreach(binary ${prefix}/bin/tapir ${libraries})
  execute_process(COMMAND ${READELF} -d ${binary} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE dynamic ERROR_VARIABLE dynamic)
  tapir_expect_success("${rc}" "readelf -d ${binary}" "${dynamic}")
  string(REGEX MATCHALL "\\((RPATH|RUNPATH)\\)[^\n]*" paths "${dynamic}")
  foreach(tree ${BUILD_DIR} ${SOURCE_DIR})
    string(FIND "${paths}" "${tree}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "the installed ${binary}'s run path leads into ${tree}: ${paths}")
    endif()
  endforeach()
  if(paths STREQUAL "")
    set(paths none)
  endif()
  get_filename_component(name ${binary} NAME)
  message(STATUS "run path of the installed ${name}: ${paths}")
endforeach()

tapir_check_installed(${prefix}/bin/tapir ${WORK_DIR}/elsewhere)
if(CUDA STREQUAL "yes")
  tapir_check_without_toolkit(${prefix}/bin/tapir ${WORK_DIR}/without_toolkit)
endif()
