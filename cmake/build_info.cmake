# Writes tools/build_info.h.in into OUTPUT with the version, the git commit
# and how the build was configured. The `tapir_build_info` target
# (tools/CMakeLists.txt) runs it at every build:
#   cmake -DSOURCE_DIR=<repo> -DOUTPUT=<header> -DVERSION=<x.y>
#         -DBUILD_TYPE=<config> -DCPU_TARGET=<TAPIR_ARCH_TARGET> -P build_info.cmake
# The commit is read at build time, not only at the configure step, so that
# it follows commits and edits made since. configure_file rewrites OUTPUT
# only when its text changes: an unchanged tree recompiles nothing.
cmake_minimum_required(VERSION 3.25)

# The short hash of HEAD, with "-dirty" when a tracked file differs from it
# or an untracked file (not ignored) exists, since either may be compiled in;
# "unknown" when SOURCE_DIR is not the top of a git checkout (a tarball
# unpacked inside some other repository must not take that one's commit).
function(tapir_source_commit out)
  set(${out} unknown PARENT_SCOPE)
  find_program(GIT_EXECUTABLE git)
  if(NOT GIT_EXECUTABLE)
    return()
  endif()
  # Read-only: never take the index lock that a concurrent git command holds.
  set(ENV{GIT_OPTIONAL_LOCKS} 0)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --show-toplevel
                  RESULT_VARIABLE rc OUTPUT_VARIABLE top ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    return()
  endif()
  file(REAL_PATH ${top} top)
  file(REAL_PATH ${SOURCE_DIR} source)
  if(NOT top STREQUAL source)
    return()
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short HEAD
                  RESULT_VARIABLE rc OUTPUT_VARIABLE hash ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    return()
  endif()
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain
                  RESULT_VARIABLE rc OUTPUT_VARIABLE changes ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT changes STREQUAL "")
    string(APPEND hash -dirty)
  endif()
  set(${out} ${hash} PARENT_SCOPE)
endfunction()

tapir_source_commit(COMMIT)
configure_file(${SOURCE_DIR}/tools/build_info.h.in ${OUTPUT} @ONLY)
