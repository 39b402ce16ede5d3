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

# A CUDA build runs every CPU command where NVIDIA's toolkit is not
# installed: `program` needs no shared library of the toolkit or the driver,
# and, where this process may make a mount namespace (`unshare -m`, as root),
# it runs with the toolkit's library folder (CUDA_LIBRARY_DIR) hidden under
# an empty folder: `--version` and a short CPU training succeed, and
# `--device cuda` is refused in one line that says why.
function(tapir_check_without_toolkit program folder)
  find_program(READELF readelf REQUIRED)
  execute_process(COMMAND ${READELF} -d ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE dynamic
                  ERROR_VARIABLE dynamic)
  tapir_expect_success("${rc}" "readelf -d ${program}" "${dynamic}")
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*(libcudart|libcublas|libnccl|libcuda\\.)[^\n]*" needed
               "${dynamic}")
  if(needed)
    message(FATAL_ERROR "${program} needs a library of NVIDIA's toolkit to start:\n${needed}")
  endif()

  find_program(UNSHARE unshare)
  set(empty ${folder}/empty)
  file(MAKE_DIRECTORY ${empty} ${folder}/probe ${folder}/runs)
  set(can_hide FALSE)
  if(UNSHARE AND CUDA_LIBRARY_DIR)
    # A bind mount in a mount namespace of its own, tried on two empty folders.
    execute_process(COMMAND ${UNSHARE} -m mount --bind ${empty} ${folder}/probe
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(can_hide TRUE)
    endif()
  endif()
  if(NOT can_hide)
    message(STATUS "cannot hide ${CUDA_LIBRARY_DIR} here (no unshare -m with a bind mount): "
                   "checked the linked libraries only")
    return()
  endif()
  get_filename_component(libraries ${CUDA_LIBRARY_DIR} REALPATH)
  # hidden ARGS...: the program with the toolkit's libraries hidden.
  set(hide ${UNSHARE} -m sh -c "mount --bind \"$1\" \"$2\" && shift 2 && exec \"$@\"" hide
      ${empty} ${libraries} ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${program})
  execute_process(COMMAND ${hide} --version WORKING_DIRECTORY ${folder}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  tapir_expect_success("${rc}" "${program} --version with ${libraries} hidden" "${out}")
  execute_process(COMMAND ${hide} train --task modadd --p 7 --width 16 --layers 1 --steps 3
                          --eval-every 3 --threads 1 --quiet --out ${folder}/runs/cpu
                  WORKING_DIRECTORY ${folder} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  tapir_expect_success("${rc}" "a CPU train with ${libraries} hidden" "${out}")
  execute_process(COMMAND ${hide} train --task modadd --steps 3 --device cuda --out ${folder}/runs/gpu
                  WORKING_DIRECTORY ${folder} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0 OR NOT out MATCHES "^tapir: --device: device cuda is not usable: [^\n]+\n$")
    message(FATAL_ERROR "with ${libraries} hidden, --device cuda was not refused in one line "
                        "(exit ${rc}):\n${out}")
  endif()
  message(STATUS "with ${libraries} hidden: --version and a CPU train run; --device cuda: ${out}")
endfunction()
