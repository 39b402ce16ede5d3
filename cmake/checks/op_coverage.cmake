# The op coverage check, run by ctest (tests/CMakeLists.txt) as
#   cmake -DSOURCE_DIR=<repo> [-DOP_TABLE=<path>] [-DTESTS=<paths>] -P op_coverage.cmake
# Every op of the op table (tests/op_table.h: the registry name of each row)
# is accounted for in every per-op test (TESTS, paths under SOURCE_DIR). A
# test that iterates the table (calls op_cases()) covers every op. Any other
# per-op test says, for each op of the table, whether it checks it, on lines
#   // op table, checked here: NAME NAME ...
#   // op table, not here: NAME NAME ...
# (as many of each as the names need), the reason for "not here" in the
# comment beside them. An op in neither, a name in both, or a name that is
# not in the table fails: a new op cannot slip past a per-op test unnoticed,
# and the lists cannot outlive the ops they name.
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED OP_TABLE)
  set(OP_TABLE tests/op_table.h)
endif()
if(NOT DEFINED TESTS)
  set(TESTS tests/test_gradcheck.cpp tests/test_cuda_parity.cpp tests/test_reference_kernels.cpp
            tests/test_cuda_kernels.cpp tests/test_write_grads.cpp)
endif()

# The table's ops: the first string of every row, c.push_back({"name", ...}).
file(READ ${SOURCE_DIR}/${OP_TABLE} table)
string(REGEX MATCHALL "push_back\\([ \n]*{\"[a-z0-9_]+\"" rows "${table}")
set(ops "")
foreach(row ${rows})
  string(REGEX REPLACE ".*\"([a-z0-9_]+)\"" "\\1" name "${row}")
  list(APPEND ops ${name})
endforeach()
list(REMOVE_DUPLICATES ops)
list(LENGTH ops op_count)
if(op_count EQUAL 0)
  message(FATAL_ERROR "${OP_TABLE}: no rows found (c.push_back({\"name\", ...}))")
endif()

# The names on a file's marker lines of one kind ("checked here" or "not here").
function(marked_ops path kind out)
  file(STRINGS ${SOURCE_DIR}/${path} lines REGEX "^// op table, ${kind}:")
  set(names "")
  foreach(line ${lines})
    string(REGEX REPLACE "^// op table, ${kind}:" "" words "${line}")
    string(REGEX MATCHALL "[a-z0-9_]+" found "${words}")
    list(APPEND names ${found})
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

set(problems "")
foreach(path ${TESTS})
  if(NOT EXISTS ${SOURCE_DIR}/${path})
    list(APPEND problems "${path}: a per-op test that is not there")
    continue()
  endif()
  file(READ ${SOURCE_DIR}/${path} text)
  string(FIND "${text}" "op_cases()" iterates)
  if(NOT iterates EQUAL -1)
    continue()
  endif()
  marked_ops(${path} "checked here" here)
  marked_ops(${path} "not here" elsewhere)
  foreach(op ${ops})
    list(FIND here ${op} in_here)
    list(FIND elsewhere ${op} in_elsewhere)
    if(in_here EQUAL -1 AND in_elsewhere EQUAL -1)
      list(APPEND problems "${path}: op '${op}' of ${OP_TABLE} is neither checked here nor named not here")
    elseif(NOT in_here EQUAL -1 AND NOT in_elsewhere EQUAL -1)
      list(APPEND problems "${path}: op '${op}' is named both checked here and not here")
    endif()
  endforeach()
  foreach(name ${here} ${elsewhere})
    list(FIND ops ${name} known)
    if(known EQUAL -1)
      list(APPEND problems "${path}: '${name}' is not an op of ${OP_TABLE}")
    endif()
  endforeach()
endforeach()

list(LENGTH TESTS test_count)
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "op coverage:\n  ${text}")
endif()
message(STATUS "${op_count} ops of ${OP_TABLE}, each accounted for in ${test_count} per-op tests")
