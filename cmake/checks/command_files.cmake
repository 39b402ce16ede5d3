# The thin-command check, run by ctest (tests/CMakeLists.txt) as
#   cmake -DSOURCE_DIR=<repo> [-DMAX_LAMBDA_LINES=N] -P command_files.cmake
# A command file, tools/cmd_*.cpp, declares its flags and calls one function
# (of lab/, optim/ or a tools/ helper); what it defines at namespace scope
# is its `Command add_NAME_command(...)` (or add_NAME_subcommand) functions
# and the structs its flags are bound to, `struct ...Options { ... };`.
# Anything else there (a helper function, a variable, a template, a class)
# is refused, and so is a lambda inside them whose body runs over
# MAX_LAMBDA_LINES lines (the runner a command returns calls its work, it
# does not hold it). Comments, string and character literals and
# preprocessor lines are set aside first; a raw string literal is refused
# (long text belongs with the code that prints it).
cmake_minimum_required(VERSION 3.25)

if(NOT DEFINED MAX_LAMBDA_LINES)
  set(MAX_LAMBDA_LINES 25)
endif()

# The text of `path` with comments, literals and preprocessor lines blanked
# (newlines kept, so that line numbers hold), and with ';' written '`',
# '[' and ']' written '@' and '\' written '$', so that it can be cut into a
# CMake list. Those three characters are first removed: outside literals
# and comments C++ has no use for them.
function(code_of path out_var)
  file(READ ${path} text)
  string(REPLACE "`" "" text "${text}")
  string(REPLACE "@" "" text "${text}")
  string(REPLACE "$" "" text "${text}")
  string(REPLACE ";" "`" text "${text}")
  string(REPLACE "[" "@" text "${text}")
  string(REPLACE "]" "@" text "${text}")
  string(REPLACE "\\" "$" text "${text}")
  string(REGEX MATCHALL
                "//[^\n]*|/\\*([^*]|\\*+[^*/])*\\*+/|\"([^\"$\n]|\\$.)*\"|'([^'$\n]|\\$.)*'|[^\"'/]+|/"
                tokens "${text}")
  set(code "")
  foreach(token IN LISTS tokens)
    if(token MATCHES "^//")
      continue()
    elseif(token MATCHES "^/\\*")
      string(REGEX REPLACE "[^\n]" "" token "${token}")
    elseif(token MATCHES "^[\"']")
      set(token "\"\"")
    endif()
    string(APPEND code "${token}")
  endforeach()
  string(REGEX REPLACE "(^|\n)[ \t]*#[^\n]*" "\\1" code "${code}")
  set(${out_var} "${code}" PARENT_SCOPE)
endfunction()

set(problems "")
set(checked 0)
file(GLOB commands RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/tools/cmd_*.cpp)
foreach(path ${commands})
  math(EXPR checked "${checked} + 1")
  file(READ ${SOURCE_DIR}/${path} raw)
  if(raw MATCHES "R\"[^(\n]*\\(")
    list(APPEND problems "${path}: a raw string literal: keep long text out of command files")
    continue()
  endif()
  code_of(${SOURCE_DIR}/${path} code)
  # Pieces of code, each up to and including a '{', a '}' or a ';'.
  string(REGEX MATCHALL "[^{}`]*[{}`]" pieces "${code}")
  set(line 1)
  set(stack "")  # per open brace: ns, allowed, refused, block or lambda:LINE
  set(depth 0)  # open braces other than namespaces'
  foreach(piece IN LISTS pieces)
    string(REGEX MATCHALL "\n" newlines "${piece}")
    list(LENGTH newlines count)
    math(EXPR line "${line} + ${count}")
    string(REGEX REPLACE ".$" "" head "${piece}")
    string(REGEX REPLACE "[ \t\n]+" " " head "${head}")
    string(STRIP "${head}" head)
    set(shown "${head}")  # its ';' shown as they were at the end
    if(piece MATCHES "{$")
      if(depth EQUAL 0 AND head MATCHES "^namespace( [A-Za-z_][A-Za-z_0-9:]*)?$")
        list(APPEND stack ns)
        continue()
      endif()
      if(depth GREATER 0)
        if(head MATCHES "@ ?(\\([^()]*\\))? ?(mutable)? ?(-> ?[^ ]+)?$")
          list(APPEND stack "lambda:${line}")
        else()
          list(APPEND stack block)
        endif()
      elseif(head MATCHES "^struct [A-Za-z_0-9]*Options$"
             OR head MATCHES "^Command add_[a-z0-9_]+_(sub)?command ?\\(.*\\)$")
        list(APPEND stack allowed)
      else()
        list(APPEND problems
             "${path}:${line}: defines '${shown}' at namespace scope: a command file defines its add_NAME_command and its ...Options structs (move the rest into lab/ or a tools/ helper)")
        list(APPEND stack refused)
      endif()
      math(EXPR depth "${depth} + 1")
    elseif(piece MATCHES "}$")
      list(LENGTH stack open)
      if(open EQUAL 0)
        list(APPEND problems "${path}:${line}: a '}' that closes nothing")
        break()
      endif()
      list(POP_BACK stack top)
      if(top STREQUAL "ns")
        continue()
      endif()
      math(EXPR depth "${depth} - 1")
      if(top MATCHES "^lambda:([0-9]+)$")
        math(EXPR body "${line} - ${CMAKE_MATCH_1} - 1")
        if(body GREATER MAX_LAMBDA_LINES)
          list(APPEND problems
               "${path}:${CMAKE_MATCH_1}: a lambda of ${body} lines (at most ${MAX_LAMBDA_LINES}): call a function of lab/ or of a tools/ helper instead")
        endif()
      endif()
    elseif(depth EQUAL 0 AND NOT head STREQUAL "")
      list(APPEND problems
           "${path}:${line}: declares '${shown}' at namespace scope: a command file defines its add_NAME_command and its ...Options structs")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "no command files in ${SOURCE_DIR}/tools")
endif()
if(problems)
  string(REPLACE ";" "\n  " text "${problems}")
  string(REPLACE "`" ";" text "${text}")
  string(REPLACE "$" "\\" text "${text}")
  message(FATAL_ERROR "command files that do more than declare flags:\n  ${text}")
endif()
message(STATUS "${checked} command files, each its add_*_command and option structs, "
               "lambdas at most ${MAX_LAMBDA_LINES} lines")
