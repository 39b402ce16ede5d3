# What the checks' self-tests share (file_lines_self_test.cmake,
# command_files_self_test.cmake, op_coverage_self_test.cmake): each runs its
# check on a fixture and hands the outcome to
#   tapir_expect_outcome(WHAT RESULT OUTPUT EXPECTED_RESULT EXPECTED_TEXT)
# which fails (naming WHAT) when the check passed where it should fail or
# failed where it should pass, or when its output lacks EXPECTED_TEXT.
function(tapir_expect_outcome what result out expected_result expected_text)
  if(expected_result EQUAL 0 AND NOT result EQUAL 0)
    message(FATAL_ERROR "${what}: the check failed:\n${out}")
  endif()
  if(NOT expected_result EQUAL 0 AND result EQUAL 0)
    message(FATAL_ERROR "${what}: the check passed:\n${out}")
  endif()
  # CMake wraps a long message: compare with every run of blanks as one.
  string(REGEX REPLACE "[ \n]+" " " out "${out}")
  string(FIND "${out}" "${expected_text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${what}: expected '${expected_text}' in:\n${out}")
  endif()
endfunction()
