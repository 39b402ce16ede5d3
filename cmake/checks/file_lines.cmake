# The size check, run by ctest (tests/CMakeLists.txt) as
#   cmake -DSOURCE_DIR=<repo> [-DEXCEPTIONS=<file>] -P file_lines.cmake
# Every source of the product (the layers' folders and their subfolders:
# .h, .cpp, .cu, .cuh, .inc; tests/ and examples/ aside) holds at most
# MAX_LINES lines, 400 unless given. A file may hold more only when the
# exceptions file (cmake/checks/long_files.txt unless given) names it, one
# "path: reason" per line, with a written reason; a listed file that is no
# longer over the limit, or no longer there, is an error too, so that the
# list cannot outlive its reasons.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED MAX_LINES)
  set(MAX_LINES 400)
endif()
if(NOT DEFINED EXCEPTIONS)
  set(EXCEPTIONS ${CMAKE_CURRENT_LIST_DIR}/long_files.txt)
endif()
if(NOT DEFINED FOLDERS)
  set(FOLDERS base engine autograd nn optim tasks lab report tools)
endif()

set(allowed "")
if(EXISTS ${EXCEPTIONS})
  file(STRINGS ${EXCEPTIONS} lines)
  foreach(line ${lines})
    if(line MATCHES "^#" OR line STREQUAL "")
      continue()
    endif()
    if(NOT line MATCHES "^([^:]+): *(.+)$")
      message(FATAL_ERROR "${EXCEPTIONS}: '${line}' is not 'path: reason'")
    endif()
    list(APPEND allowed ${CMAKE_MATCH_1})
  endforeach()
endif()

set(problems "")
set(checked 0)
foreach(folder ${FOLDERS})
  file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${folder}/*.h
       ${SOURCE_DIR}/${folder}/*.cpp ${SOURCE_DIR}/${folder}/*.cu ${SOURCE_DIR}/${folder}/*.cuh
       ${SOURCE_DIR}/${folder}/*.inc)
  foreach(path ${sources})
    math(EXPR checked "${checked} + 1")
    file(READ ${SOURCE_DIR}/${path} text)
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines count)
    list(FIND allowed ${path} listed)
    if(count GREATER MAX_LINES AND listed EQUAL -1)
      list(APPEND problems "${path}: ${count} lines (at most ${MAX_LINES}; split it by owner, or name it in ${EXCEPTIONS} with the reason)")
    elseif(NOT count GREATER MAX_LINES AND NOT listed EQUAL -1)
      list(APPEND problems "${path}: ${count} lines, within ${MAX_LINES}: remove it from ${EXCEPTIONS}")
    endif()
  endforeach()
endforeach()
foreach(path ${allowed})
  if(NOT EXISTS ${SOURCE_DIR}/${path})
    list(APPEND problems "${path}: named in ${EXCEPTIONS} but not there")
  endif()
endforeach()

if(problems)
  string(REPLACE ";" "\n  " text "${problems}")
  message(FATAL_ERROR "sources over the size limit:\n  ${text}")
endif()
message(STATUS "${checked} sources, each at most ${MAX_LINES} lines or named with its reason")
