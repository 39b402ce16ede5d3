# The `examples` test (tests/CMakeLists.txt):
#   cmake -DPREFIX=<install prefix> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir> -DCXX=<compiler>
#         -DGENERATOR=<generator> "-DFLAGS=<compile and link flags>" [-DHEADERS=no]
#         -P examples.cmake
# Builds programs on the engine as a user outside the tree does, against
# the prefix that the `install` test wrote with `cmake --install` (nothing of
# the build or the source tree is on any path):
#   - examples/, copied away from the tree, configured with find_package(tapir),
#     built with warnings as errors and run: each program checks what it
#     teaches and exits 1 when it does not hold (docs/api.md);
#   - unless HEADERS is no, every installed header, each alone in a source file of its own, built
#     against tapir::report (which brings every layer): a header that needs
#     another it does not include, or a name only the tree has, fails here.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/installed_tapir.cmake)

file(GLOB_RECURSE package ${PREFIX}/lib/tapirConfig.cmake)
if(NOT package)
  message(FATAL_ERROR "no CMake package under ${PREFIX}/lib (the install test writes it)")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${SOURCE_DIR}/examples DESTINATION ${WORK_DIR})

# The headers, one source file each.
set(headers_project ${WORK_DIR}/headers)
file(GLOB_RECURSE headers RELATIVE ${PREFIX}/include/tapir ${PREFIX}/include/tapir/*.h)
list(LENGTH headers header_count)
if(header_count LESS 20)
  message(FATAL_ERROR "only ${header_count} headers under ${PREFIX}/include/tapir")
endif()
set(sources "")
foreach(header ${headers})
  string(MAKE_C_IDENTIFIER ${header} name)
  file(WRITE ${headers_project}/${name}.cpp "#include \"${header}\"\n")
  list(APPEND sources ${name}.cpp)
endforeach()
list(JOIN sources " " sources)
file(WRITE ${headers_project}/CMakeLists.txt
     "cmake_minimum_required(VERSION 3.25)\n"
     "project(tapir_headers LANGUAGES CXX)\n"
     "find_package(tapir 0.1 REQUIRED)\n"
     "add_library(headers OBJECT ${sources})\n"
     "target_link_libraries(headers PRIVATE tapir::report)\n")

set(projects examples)
if(NOT HEADERS STREQUAL "no")
  list(APPEND projects headers)
endif()
set(warnings "-Wall -Wextra -Wpedantic -Werror")
foreach(project ${projects})
  set(build ${WORK_DIR}/build-${project})
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/${project} -B ${build} -G ${GENERATOR}
            -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${PREFIX}
            "-DCMAKE_CXX_FLAGS=${warnings} ${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  tapir_expect_success("${rc}" "configuring ${project} against ${PREFIX}" "${output}")
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} -j2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
  tapir_expect_success("${rc}" "building ${project} against ${PREFIX}" "${output}")
endforeach()
if(NOT HEADERS STREQUAL "no")
  message(STATUS "each of the ${header_count} installed headers compiles alone")
endif()

# Run from elsewhere, with no library path: the programs find the libraries
# through their run paths, the libraries each other through theirs.
set(elsewhere ${WORK_DIR}/elsewhere)
file(MAKE_DIRECTORY ${elsewhere})
foreach(program xor_mlp custom_op transformer_step hand_backward)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH
                          ${WORK_DIR}/build-examples/${program}
                  WORKING_DIRECTORY ${elsewhere} RESULT_VARIABLE rc OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  tapir_expect_success("${rc}" "${program}" "${output}")
  message(STATUS "${program}:\n${output}")
endforeach()
