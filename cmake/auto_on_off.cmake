# A build choice of AUTO (on when what it needs is found), ON (required) or
# OFF, as TAPIR_CUDA (cmake/cuda.cmake) and TAPIR_MPI (cmake/mpi.cmake) are.
# Declares the cache variable `name` (default AUTO, described by `doc`),
# fails on any other value, and sets `out` in the caller to its upper-case
# value.
function(tapir_auto_on_off name doc out)
  set(${name} AUTO CACHE STRING "${doc}")
  set_property(CACHE ${name} PROPERTY STRINGS AUTO ON OFF)
  string(TOUPPER "${${name}}" value)
  if(NOT value MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "${name} must be AUTO, ON or OFF, not '${${name}}'")
  endif()
  set(${out} ${value} PARENT_SCOPE)
endfunction()
