# The CPU the C++ code is compiled for, and a guard against a compiler that
# generates wrong code for it. TAPIR_ARCH chooses the target:
#   auto (default)  the highest of x86-64-v3 (AVX2, FMA), x86-64-v2 (SSE4.2)
#                   and x86-64 that this machine runs (x86-64-v3 without
#                   LZCNT where only that flag is missing), tuned for no CPU
#                   in particular (-mtune=generic); the compiler's default
#                   target on other architectures
#   native          -march=native: every extension of this CPU, AVX-512 too
#   none            no -march flag: the compiler's default target
#   anything else   passed as -march=VALUE, e.g. x86-64-v2 (the portable
#                   preset), x86-64-v4, znver3
#
# auto stops below AVX-512 because Debian 12's GCC 12.2 generates wrong code
# when it targets or tunes for AVX-512 (cmake/checks/vector_init.cpp shows
# it), while OpenBLAS, which does most of the arithmetic, picks its AVX-512
# kernels at run time whatever tapir is compiled for. docs/build.md gives
# the measured cost.
#
# Whatever the target, the configure step builds and runs that reproduction
# with the project's flags and stops when the compiler gets it wrong; the test
# codegen_check runs it again from the build.
#
# Sets TAPIR_ARCH_FLAGS (C++ compile options), TAPIR_ARCH_RESOLVED (the target
# in words) and TAPIR_ARCH_TARGET (the target in one word, for `tapir
# --version`: x86-64-v3, native, none, ...).

set(TAPIR_ARCH auto CACHE STRING "CPU to compile for: auto, native, none, or an -march value")

# The x86-64 micro-architecture level (psABI) that this machine runs, read
# from the kernel's CPU flags; x86-64 where they cannot be read. Some
# virtual machines hide one flag of x86-64-v3 and no other: LZCNT (Linux's
# abm), on CPUs with AVX2, FMA and even AVX-512. Falling back to x86-64-v2
# there would give up AVX2 and FMA for a bit-count instruction (GeLU's
# backward ran 2.8x slower), so such a machine gets x86-64-v3 without LZCNT:
# level x86-64-v3-nolzcnt.
function(tapir_host_x86_level out)
  set(level x86-64)
  if(EXISTS /proc/cpuinfo)
    file(STRINGS /proc/cpuinfo _line REGEX "^flags[ \t]*:" LIMIT_COUNT 1)
    string(REGEX REPLACE "^flags[ \t]*:[ \t]*" "" _line "${_line}")
    string(REPLACE " " ";" _have "${_line}")
    # Linux's names: pni is SSE3, abm is LZCNT.
    set(_v2 cx16 lahf_lm popcnt pni sse4_1 sse4_2 ssse3)
    set(_v3 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave)
    foreach(_level v2 v3)
      set(_missing "")
      foreach(_flag IN LISTS _${_level})
        if(NOT _flag IN_LIST _have)
          list(APPEND _missing ${_flag})
        endif()
      endforeach()
      if(_level STREQUAL "v3" AND _missing STREQUAL "abm")
        set(level x86-64-v3-nolzcnt)
      elseif(_missing)
        break()
      else()
        set(level x86-64-${_level})
      endif()
    endforeach()
  endif()
  set(${out} ${level} PARENT_SCOPE)
endfunction()

string(TOLOWER "${TAPIR_ARCH}" _tapir_arch)
set(_tapir_x86 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(_tapir_x86 ON)
endif()
if(_tapir_arch STREQUAL "auto")
  if(_tapir_x86 AND NOT CMAKE_CROSSCOMPILING)
    tapir_host_x86_level(_level)
    if(_level STREQUAL "x86-64-v3-nolzcnt")
      set(TAPIR_ARCH_FLAGS -march=x86-64-v3 -mno-lzcnt -mtune=generic)
      set(TAPIR_ARCH_RESOLVED "x86-64-v3 without LZCNT, which this CPU does not report (auto)")
    else()
      set(TAPIR_ARCH_FLAGS -march=${_level} -mtune=generic)
      set(TAPIR_ARCH_RESOLVED "${_level} (auto)")
    endif()
    set(TAPIR_ARCH_TARGET ${_level})
  elseif(_tapir_x86)
    set(TAPIR_ARCH_FLAGS -march=x86-64 -mtune=generic)
    set(TAPIR_ARCH_RESOLVED "x86-64 (auto, cross-compiling)")
    set(TAPIR_ARCH_TARGET x86-64)
  else()
    set(TAPIR_ARCH_FLAGS "")
    set(TAPIR_ARCH_RESOLVED "the compiler's default (auto, ${CMAKE_SYSTEM_PROCESSOR})")
    set(TAPIR_ARCH_TARGET none)
  endif()
elseif(_tapir_arch STREQUAL "native")
  set(TAPIR_ARCH_FLAGS -march=native)
  set(TAPIR_ARCH_RESOLVED "native")
  set(TAPIR_ARCH_TARGET native)
elseif(_tapir_arch STREQUAL "none")
  set(TAPIR_ARCH_FLAGS "")
  set(TAPIR_ARCH_RESOLVED "the compiler's default")
  set(TAPIR_ARCH_TARGET none)
elseif(_tapir_arch MATCHES "^[a-z0-9][a-z0-9._+-]*$")
  set(TAPIR_ARCH_FLAGS -march=${_tapir_arch})
  set(TAPIR_ARCH_RESOLVED "${_tapir_arch}")
  set(TAPIR_ARCH_TARGET ${_tapir_arch})
else()
  message(FATAL_ERROR "TAPIR_ARCH must be auto, native, none or an -march value "
                      "such as x86-64-v3, not '${TAPIR_ARCH}'")
endif()

include(CheckCXXSourceCompiles)
include(CMakePushCheckState)

# Builds cmake/checks/vector_init.cpp with the given options on top of the
# build type's flags and runs it; stops the configure step when the compiler
# generates wrong code. Where the program cannot run here (cross-compiling, or
# a target this CPU lacks), a GCC 12 that would emit AVX-512 code is refused
# outright and anything else is left to the test codegen_check.
function(tapir_check_codegen what)
  set(_options ${ARGN})
  string(TOUPPER "${CMAKE_BUILD_TYPE}" _config)
  separate_arguments(_build_flags UNIX_COMMAND
                     "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_config}}")
  set(_all ${_build_flags} ${_options})
  string(REPLACE ";" " " _shown "${_all}")
  set(_bin ${CMAKE_BINARY_DIR}/CMakeFiles/tapir_codegen_check)
  file(REMOVE_RECURSE ${_bin})
  unset(_run CACHE)
  unset(_compiled CACHE)
  set(_out "")
  if(NOT CMAKE_CROSSCOMPILING)
    try_run(_run _compiled ${_bin} ${CMAKE_CURRENT_LIST_DIR}/checks/vector_init.cpp
            COMPILE_DEFINITIONS ${_all}
            CMAKE_FLAGS -DCMAKE_CXX_FLAGS= -DCMAKE_CXX_FLAGS_DEBUG=
            COMPILE_OUTPUT_VARIABLE _compile_log
            RUN_OUTPUT_VARIABLE _out)
    if(NOT _compiled)
      string(REGEX MATCHALL "[^\n]*error[^\n]*" _errors "${_compile_log}")
      list(JOIN _errors "\n" _errors)
      message(FATAL_ERROR "tapir: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} cannot "
                          "compile the code-generation check with '${_shown}' (${what}):\n"
                          "${_errors}")
    endif()
    string(STRIP "${_out}" _out)
    if(_run EQUAL 0 AND _out STREQUAL "1 1 1 1 0 0 0 0")
      message(STATUS "tapir: the code-generation check passed (${what})")
      return()
    endif()
    if(_run EQUAL 0)
      message(FATAL_ERROR
              "tapir: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} generates wrong "
              "code with '${_shown}' (${what}): cmake/checks/vector_init.cpp printed '${_out}', "
              "expected '1 1 1 1 0 0 0 0'. Known cause: GCC 12 targeting or tuning for "
              "AVX-512. Configure with -DTAPIR_ARCH=auto (or x86-64-v3), or use another "
              "compiler (-DCMAKE_CXX_COMPILER=clang++).")
    endif()
  endif()
  # Not run here: refuse the known-bad combination, leave the rest to the test.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    cmake_push_check_state(RESET)
    set(CMAKE_REQUIRED_FLAGS "${_shown}")
    set(CMAKE_REQUIRED_QUIET ON)
    unset(_tapir_avx512_codegen CACHE)
    check_cxx_source_compiles("#ifndef __AVX512F__\n#error no AVX-512\n#endif\nint main() {}"
                              _tapir_avx512_codegen)
    cmake_pop_check_state()
    if(_tapir_avx512_codegen)
      message(FATAL_ERROR
              "tapir: GCC ${CMAKE_CXX_COMPILER_VERSION} generates wrong code for AVX-512 targets "
              "('${_shown}', ${what}), and the check cannot run on this machine to show "
              "otherwise. Configure with -DTAPIR_ARCH=x86-64-v3 or use another compiler.")
    endif()
  endif()
  message(STATUS "tapir: the code-generation check cannot run here (${what}); "
                 "the test codegen_check runs it on the target")
endfunction()

tapir_check_codegen("TAPIR_ARCH=${TAPIR_ARCH}" ${TAPIR_ARCH_FLAGS})
string(REPLACE ";" " " _tapir_arch_shown "${TAPIR_ARCH_FLAGS}")
message(STATUS "tapir: C++ code for ${TAPIR_ARCH_RESOLVED} (${_tapir_arch_shown})")
