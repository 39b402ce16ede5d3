# The size check shown violations, run by ctest as
#   cmake -DWORK_DIR=<dir> -P file_lines_self_test.cmake
# In a fixture tree: a 401-line source fails and is named with its count; a
# 400-line one passes; the long one named in an exceptions file with a reason
# passes; an exceptions line for a file within the limit, or for a file not
# there, fails.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/self_test.cmake)

set(check ${CMAKE_CURRENT_LIST_DIR}/file_lines.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/lab)
string(REPEAT "x\n" 400 four_hundred)
file(WRITE ${WORK_DIR}/lab/ok.cpp "${four_hundred}")
file(WRITE ${WORK_DIR}/lab/long.cpp "${four_hundred}y\n")

function(expect what exceptions expected_result expected_text)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR} -DFOLDERS=lab -DEXCEPTIONS=${exceptions} -P
            ${check}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  tapir_expect_outcome("${what}" "${result}" "${out}" "${expected_result}" "${expected_text}")
endfunction()

expect("a 401-line source" ${WORK_DIR}/none.txt 1 "lab/long.cpp: 401 lines (at most 400")
file(WRITE ${WORK_DIR}/reasons.txt "# why\nlab/long.cpp: a table that reads best whole\n")
expect("the long source with its reason" ${WORK_DIR}/reasons.txt 0 "2 sources, each at most 400 lines or named")
file(APPEND ${WORK_DIR}/reasons.txt "lab/ok.cpp: no longer long\n")
expect("a stale exception" ${WORK_DIR}/reasons.txt 1 "lab/ok.cpp: 400 lines, within 400")
file(WRITE ${WORK_DIR}/reasons.txt "lab/long.cpp: reason\nlab/gone.cpp: reason\n")
expect("an exception for a missing file" ${WORK_DIR}/reasons.txt 1 "lab/gone.cpp: named in")
file(WRITE ${WORK_DIR}/reasons.txt "lab/long.cpp\n")
expect("an exception without a reason" ${WORK_DIR}/reasons.txt 1 "not 'path: reason'")
message(STATUS "the size check refuses each violation")
