# Shared by the install and package checks: runs an installed `tapir` from a
# folder outside the build and the source tree, with no LD_LIBRARY_PATH, and
# compares `--version` with what the build was configured for. Expects
# VERSION, BUILD_TYPE, CPU_TARGET, CUDA and MPI (each yes or no) to be set.

# Fails the check with a message when rc is not 0.
function(tapir_expect_success rc what output)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${output}")
  endif()
endfunction()

# Runs `program --help` and `program --version` in folder and checks both.
function(tapir_check_installed program folder)
  if(NOT EXISTS ${program})
    message(FATAL_ERROR "${program} was not installed")
  endif()
  file(MAKE_DIRECTORY ${folder})
  set(run ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${program})

  execute_process(COMMAND ${run} --help WORKING_DIRECTORY ${folder}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE help ERROR_VARIABLE help)
  tapir_expect_success("${rc}" "${program} --help" "${help}")
  if(NOT help MATCHES "Usage: [^\n]*tapir" OR NOT help MATCHES "--version")
    message(FATAL_ERROR "${program} --help printed no usage line or no --version:\n${help}")
  endif()

  execute_process(COMMAND ${run} --version WORKING_DIRECTORY ${folder}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE errors)
  tapir_expect_success("${rc}" "${program} --version" "${text}${errors}")
  # Line by line: the commit is whatever the tree was at build time, the
  # rest is known from the configure step.
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(expected "tapir ${VERSION}" "commit: COMMIT" "build type: ${BUILD_TYPE}"
               "CPU target: ${CPU_TARGET}" "CUDA: ${CUDA}" "MPI: ${MPI}" "BLAS kernels: CORE")
  list(LENGTH lines count)
  list(LENGTH expected lines_expected)
  if(NOT count EQUAL lines_expected)
    message(FATAL_ERROR "${program} --version printed ${count} lines, expected ${lines_expected}:\n${text}")
  endif()
  foreach(line want IN ZIP_LISTS lines expected)
    if(want STREQUAL "commit: COMMIT")
      set(ok FALSE)
      if(line MATCHES "^commit: ([0-9a-f]+(-dirty)?|unknown)$")
        set(ok TRUE)
      endif()
    elseif(want STREQUAL "BLAS kernels: CORE")
      # The core depends on the build's target (engine/blas_kernels.h).
      set(ok FALSE)
      if(line MATCHES "^BLAS kernels: [A-Za-z0-9]+ \\(pinned: the build's CPU target\\)$")
        set(ok TRUE)
      endif()
    else()
      string(COMPARE EQUAL "${line}" "${want}" ok)
    endif()
    if(NOT ok)
      message(FATAL_ERROR "${program} --version printed '${line}' where '${want}' was expected:\n"
                          "${text}")
    endif()
  endforeach()
  message(STATUS "${program} --version:\n${text}")
endfunction()
