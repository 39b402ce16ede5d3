# The `install` test (tests/CMakeLists.txt):
#   cmake -DBUILD_DIR=<build> -DWORK_DIR=<dir> -DSOURCE_DIR=<repo> -DVERSION=<x.y>
#         -DBUILD_TYPE=<config> -DCPU_TARGET=<target> -DCUDA=yes|no -DMPI=yes|no -P install.cmake
# Installs the build into WORK_DIR/prefix as `cmake --install` does for a
# user, checks that the documentation is there and that the program's run
# path does not lead into the build or the source tree, and runs the
# installed program from another folder (cmake/checks/installed_tapir.cmake).
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
             share/bash-completion/completions/tapir)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "${file} was not installed:\n${output}")
  endif()
endforeach()

find_program(READELF readelf REQUIRED)
execute_process(COMMAND ${READELF} -d ${prefix}/bin/tapir RESULT_VARIABLE rc
                OUTPUT_VARIABLE dynamic ERROR_VARIABLE dynamic)
tapir_expect_success("${rc}" "readelf -d ${prefix}/bin/tapir" "${dynamic}")
string(REGEX MATCHALL "\\((RPATH|RUNPATH)\\)[^\n]*" paths "${dynamic}")
foreach(tree ${BUILD_DIR} ${SOURCE_DIR})
  string(FIND "${paths}" "${tree}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the installed tapir's run path leads into ${tree}: ${paths}")
  endif()
endforeach()
if(paths STREQUAL "")
  set(paths none)
endif()
message(STATUS "run path of the installed tapir: ${paths}")

tapir_check_installed(${prefix}/bin/tapir ${WORK_DIR}/elsewhere)
if(CUDA STREQUAL "yes")
  tapir_check_without_toolkit(${prefix}/bin/tapir ${WORK_DIR}/without_toolkit)
endif()
