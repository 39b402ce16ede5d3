# The layering check, run by ctest (tests/CMakeLists.txt) as
#   cmake -DCOMMANDS=<build>/compile_commands.json -DSOURCE_DIR=<repo>
#         -DWORK_DIR=<dir> "-DARROWS=engine=;autograd=engine;..." -P layers.cmake
# For each layer it takes the exact command that compiles one of the layer's
# own sources, and preprocesses with it a probe that includes one header of
# every folder: a folder the layer may see (itself and the layers below it,
# ARROWS) must resolve, and every other folder must fail with "No such file".
# So an #include that runs up a layer fails to build, and the test proves it
# with the flags the build really uses. GENERATED lists headers the build
# writes (e.g. tools/build_info.h): each must fail in every layer but the one
# its folder names, even in the layers above that one. BACKENDS lists one
# header of each backend folder (engine/cpu/, engine/cuda/): the engine may
# include them, every layer above it must fail (the backend wall).
cmake_minimum_required(VERSION 3.25)

file(READ ${COMMANDS} commands)
string(JSON count LENGTH ${commands})
math(EXPR last "${count} - 1")

set(layers "")
foreach(arrow ${ARROWS})
  string(REPLACE "=" ";" parts "${arrow}=")
  list(GET parts 0 layer)
  list(GET parts 1 below)
  string(REPLACE "," ";" below "${below}")
  set(BELOW_${layer} ${below})
  list(APPEND layers ${layer})
endforeach()

file(MAKE_DIRECTORY ${WORK_DIR})
set(failures 0)
foreach(layer ${layers})
  # The compile command of the first C++ source of this layer.
  set(command "")
  foreach(i RANGE ${last})
    string(JSON file GET ${commands} ${i} file)
    if(file MATCHES "^${SOURCE_DIR}/${layer}/[^/]+\\.cpp$")
      string(JSON command GET ${commands} ${i} command)
      break()
    endif()
  endforeach()
  if(command STREQUAL "")
    message(SEND_ERROR "layers: no compile command for a source in ${layer}/")
    math(EXPR failures "${failures} + 1")
    continue()
  endif()
  separate_arguments(args UNIX_COMMAND "${command}")
  # Keep the compiler and its flags; drop the output, the source and -c.
  set(flags "")
  set(skip_next FALSE)
  foreach(arg ${args})
    if(skip_next)
      set(skip_next FALSE)
    elseif(arg STREQUAL "-o" OR arg STREQUAL "-MF" OR arg STREQUAL "-MT")
      set(skip_next TRUE)
    elseif(arg STREQUAL "-c" OR arg STREQUAL "-MD" OR arg STREQUAL "${file}")
    else()
      list(APPEND flags "${arg}")
    endif()
  endforeach()

  # One header of every folder, and the generated headers, which only the
  # layer their folder names may see (the others are not checked there: the
  # command taken may be of a target that does not need them).
  set(headers_to_probe "")
  foreach(folder ${layers})
    file(GLOB headers ${SOURCE_DIR}/${folder}/*.h)
    list(SORT headers)
    list(GET headers 0 header)
    file(RELATIVE_PATH header ${SOURCE_DIR} ${header})
    list(APPEND headers_to_probe ${header})
  endforeach()
  foreach(header ${headers_to_probe} ${GENERATED} ${BACKENDS})
    string(REGEX REPLACE "/.*" "" folder ${header})
    if(header IN_LIST BACKENDS)
      if(layer STREQUAL "engine")
        set(may TRUE)
      else()
        set(may FALSE)
      endif()
    elseif(header IN_LIST GENERATED)
      if(folder STREQUAL layer)
        continue()
      endif()
      set(may FALSE)
    elseif(folder STREQUAL layer OR folder IN_LIST BELOW_${layer})
      set(may TRUE)
    else()
      set(may FALSE)
    endif()
    string(MAKE_C_IDENTIFIER ${header} name)
    set(probe ${WORK_DIR}/${layer}_includes_${name}.cpp)
    file(WRITE ${probe} "#include \"${header}\"\n")
    execute_process(COMMAND ${flags} -E -o /dev/null ${probe}
                    RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
    if(may)
      if(rc EQUAL 0)
        message(STATUS "ok: ${layer}/ may include ${header}")
      else()
        message(SEND_ERROR "layers: ${layer}/ cannot include ${header}, which it may:\n${err}")
        math(EXPR failures "${failures} + 1")
      endif()
    elseif(NOT rc EQUAL 0 AND err MATCHES "${header}: No such file")
      message(STATUS "ok: ${layer}/ cannot include ${header} (No such file)")
    else()
      message(SEND_ERROR "layers: ${layer}/ includes ${header} from a layer it may not see (rc ${rc})\n${err}")
      math(EXPR failures "${failures} + 1")
    endif()
  endforeach()
endforeach()
if(failures GREATER 0)
  message(FATAL_ERROR "layers: ${failures} failures")
endif()
