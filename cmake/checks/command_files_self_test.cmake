# The thin-command check shown violations, run by ctest as
#   cmake -DWORK_DIR=<dir> -P command_files_self_test.cmake
# In a fixture tree: a command file with its options struct, its add_*
# functions and short lambdas passes, braces and semicolons in its comments
# and strings notwithstanding; a helper function (in an anonymous namespace
# or not), a variable at namespace scope, a long lambda and a raw string
# literal each fail, named with their line.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/self_test.cmake)

set(check ${CMAKE_CURRENT_LIST_DIR}/command_files.cmake)

function(expect what file_text expected_result expected_text)
  file(REMOVE_RECURSE ${WORK_DIR})
  file(WRITE ${WORK_DIR}/tools/cmd_fixture.cpp "${file_text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${WORK_DIR} -DMAX_LAMBDA_LINES=4 -P
                          ${check}
                  RESULT_VARIABLE result
                  OUTPUT_VARIABLE out
                  ERROR_VARIABLE out)
  tapir_expect_outcome("${what}" "${result}" "${out}" "${expected_result}" "${expected_text}")
endfunction()

set(head "// `tapir fixture`: { a comment with a brace\n#include <memory>\n\n#include \"tools/commands.h\"\n\nnamespace tapir {\n\n")
set(options "struct FixtureOptions {\n  std::string name = \"}{\\\"\";\n  char open = '{';\n};\n\n")
set(command "Command add_fixture_command(CLI::App& app) {\n  auto* cmd = app.add_subcommand(\"fixture\", \"A fixture; // not a comment\");\n  auto o = std::make_shared<FixtureOptions>();\n  /* { */\n  return {cmd, [o]() {\n    if (o->name.empty()) return 1;\n    return run_fixture(*o);\n  }};\n}\n\n")
set(tail "}  // namespace tapir\n")

expect("a thin command file" "${head}${options}${command}${tail}" 0
       "1 command files, each its add_*_command and option structs")
expect("a helper function" "${head}namespace {\n\nint helper() {\n  return 1;\n}\n\n}  // namespace\n\n${command}${tail}" 1
       "tools/cmd_fixture.cpp:10: defines 'int helper()' at namespace scope")
expect("a variable" "${head}int calls = 0;\n${command}${tail}" 1
       "tools/cmd_fixture.cpp:8: declares 'int calls = 0' at namespace scope")
expect("a struct not of options" "${head}struct Helper {\n  int x;\n};\n${command}${tail}" 1
       "defines 'struct Helper' at namespace scope")
string(REPLACE "return 1;\n" "return 1;\n    return 2;\n    return 3;\n    return 4;\n" long "${command}")
expect("a long lambda" "${head}${long}${tail}" 1
       "tools/cmd_fixture.cpp:12: a lambda of 5 lines (at most 4)")
expect("a raw string" "${head}const char* page = R\"(\n{\n)\";\n${command}${tail}" 1
       "tools/cmd_fixture.cpp: a raw string literal")
message(STATUS "the thin-command check refuses each violation")
