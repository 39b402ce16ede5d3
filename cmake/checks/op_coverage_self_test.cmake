# The op coverage check shown violations, run by ctest as
#   cmake -DWORK_DIR=<dir> -P op_coverage_self_test.cmake
# In a fixture tree with a two-op table: a test that iterates the table and
# one that names both ops pass; a test that leaves an op out, names an op
# twice, names an op the table does not have, or is not there, fails and is
# named with the op.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/self_test.cmake)

set(check ${CMAKE_CURRENT_LIST_DIR}/op_coverage.cmake)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/tests)
file(WRITE ${WORK_DIR}/tests/op_table.h
     "c.push_back({\"add\", \"\", {}, add_fn, kF32Map});\n"
     "c.push_back(\n    {\"gelu\", \"\", {}, gelu_fn, kF32Map});\n")
file(WRITE ${WORK_DIR}/tests/table.cpp "for (const OpCase& c : op_cases()) run(c);\n")

function(expect what test_text expected_result expected_text)
  file(WRITE ${WORK_DIR}/tests/kernels.cpp "${test_text}")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR} -DOP_TABLE=tests/op_table.h
            "-DTESTS=tests/table.cpp;tests/kernels.cpp" -P ${check}
    RESULT_VARIABLE result
    OUTPUT_VARIABLE out
    ERROR_VARIABLE out)
  tapir_expect_outcome("${what}" "${result}" "${out}" "${expected_result}" "${expected_text}")
endfunction()

expect("every op accounted for"
       "// op table, checked here: add\n// op table, not here: gelu\n" 0
       "2 ops of tests/op_table.h, each accounted for in 2 per-op tests")
expect("an op left out" "// op table, checked here: add\n" 1
       "tests/kernels.cpp: op 'gelu' of tests/op_table.h is neither checked here nor named not here")
expect("no markers at all" "TEST_CASE(\"gelu\") {}\n" 1
       "tests/kernels.cpp: op 'add' of tests/op_table.h is neither")
expect("an op named twice"
       "// op table, checked here: add gelu\n// op table, not here: gelu\n" 1
       "op 'gelu' is named both checked here and not here")
expect("a name not in the table"
       "// op table, checked here: add gelu\n// op table, not here: relu\n" 1
       "'relu' is not an op of tests/op_table.h")
file(REMOVE ${WORK_DIR}/tests/table.cpp)
expect("a per-op test that is gone" "// op table, checked here: add gelu\n" 1
       "tests/table.cpp: a per-op test that is not there")
message(STATUS "the op coverage check refuses each violation")
