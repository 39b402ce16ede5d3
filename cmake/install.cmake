# What `cmake --install` puts where, and the Debian package CPack builds from
# it (docs/build.md, "Installing"). Included by the top-level CMakeLists.txt
# once the `tapir` target exists.
#
#   <prefix>/bin/tapir
#   <prefix>/share/man/man1/tapir.1, tapir-COMMAND.1  (`tapir man`)
#   <prefix>/share/bash-completion/completions/tapir  (`tapir completion`)
#   <prefix>/share/doc/tapir/README.md, docs/*.md, configs/*.toml,
#                            third_party/README.md  (the repository's layout,
#                            so that the README's links resolve)
#
# `cpack -G DEB` in the build folder (or `cpack --preset release`) writes
# tapir_<version>_<arch>.deb there, installed under /usr. Its Depends line
# comes from dpkg-shlibdeps (package dpkg-dev), which maps every shared
# library the program links to the Debian package that ships it.

include(GNUInstallDirs)

# Installed, the program loses the build tree's run path; the system's
# libraries need none. A CUDA build links the CUDA runtime statically and
# opens cuBLAS and NCCL itself (engine/cuda/toolkit_library.h), so it needs
# none either.
install(TARGETS tapir RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Written by the program after each link (tools/CMakeLists.txt).
install(DIRECTORY ${TAPIR_SHELL_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${TAPIR_SHELL_DIR}/tapir DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/configs
        FILES_MATCHING PATTERN "*.toml")
install(FILES third_party/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/third_party)

set(TAPIR_PACKAGE_MAINTAINER "tapir maintainers <maintainers@tapir.invalid>"
    CACHE STRING "The Maintainer field of the Debian package: Name <email>")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tapir)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${TAPIR_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "tensor engine and command-line lab for transformers' inductive biases")
set(CPACK_PACKAGE_DESCRIPTION
    "tapir is a from-scratch C++ tensor engine with a tape-based autograd, a CPU
backend (OpenBLAS and a thread pool of its own) and a CUDA backend, a GPT-style transformer,
AdamW and task generators. The tapir command trains, evaluates and compares
models from the shell. Documentation is in /usr/share/doc/tapir.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(TAPIR_CUDA_ENABLED)
  # The CUDA runtime is linked statically and cuBLAS opened on first use,
  # so nothing of NVIDIA's toolkit is in Depends.
  string(APPEND CPACK_PACKAGE_DESCRIPTION
         "\n\nThis build has a CUDA backend. Every CPU command runs without NVIDIA's\n"
         "software; --device cuda needs an NVIDIA driver and cuBLAS ${CUDAToolkit_VERSION_MAJOR} of NVIDIA's\n"
         "toolkit, which Debian does not ship, where the dynamic linker finds it.")
else()
  string(APPEND CPACK_PACKAGE_DESCRIPTION "\n\nThis build has no CUDA backend.")
endif()
include(CPack)
