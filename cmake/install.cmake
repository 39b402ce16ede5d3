# What `cmake --install` puts where, and the Debian packages CPack builds
# from it (docs/build.md, "Installing"). Included by the top-level
# CMakeLists.txt once the `tapir` target and the libraries
# (cmake/library.cmake) exist.
#
#   <prefix>/bin/tapir                                          (program)
#   <prefix>/share/man/man1/tapir.1, tapir-COMMAND.1  (`tapir man`)
#   <prefix>/share/bash-completion/completions/tapir  (`tapir completion`)
#   <prefix>/share/doc/tapir/README.md, docs/*.md, configs/*.toml,
#                            third_party/README.md  (the repository's layout,
#                            so that the README's links resolve)
#   <prefix>/lib/libtapir_LAYER.so.VERSION                      (libraries)
#   <prefix>/include/tapir/LAYER/*.h                            (development)
#   <prefix>/lib/libtapir_LAYER.so, lib/cmake/tapir/
#
# `cpack -G DEB` in the build folder (or `cpack --preset release`) writes
# one package per component there, installed under /usr:
# tapir_<version>_<arch>.deb, libtapir<version>_<version>_<arch>.deb and
# libtapir-dev_<version>_<arch>.deb. Their Depends lines come from
# dpkg-shlibdeps (package dpkg-dev), which maps every shared library a
# program or library links to the Debian package that ships it.

include(GNUInstallDirs)

# Installed, the program loses the build tree's run path; the system's
# libraries need none. A CUDA build links the CUDA runtime statically and
# opens cuBLAS and NCCL itself (engine/cuda/toolkit_library.h), so it needs
# none either.
install(TARGETS tapir RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT program)
# Written by the program after each link (tools/CMakeLists.txt).
install(DIRECTORY ${TAPIR_SHELL_DIR}/man1/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
        COMPONENT program)
install(FILES ${TAPIR_SHELL_DIR}/tapir DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        COMPONENT program)

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT program)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT program
        FILES_MATCHING PATTERN "*.md")
install(DIRECTORY configs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/configs COMPONENT program
        FILES_MATCHING PATTERN "*.toml")
install(FILES third_party/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/third_party
        COMPONENT program)

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

# Three packages, one per install component (cmake/library.cmake): tapir
# (the program), libtapir<version> (the engine's shared libraries) and
# libtapir-dev (headers and the CMake package, for programs built on the
# engine).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL program libraries development)
set(CPACK_DEBIAN_PROGRAM_PACKAGE_NAME tapir)
# (Each package's synopsis is CPACK_PACKAGE_DESCRIPTION_SUMMARY.)
set(CPACK_DEBIAN_PROGRAM_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_LIBRARIES_PACKAGE_NAME libtapir${PROJECT_VERSION})
set(CPACK_DEBIAN_LIBRARIES_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBRARIES_DESCRIPTION
    "tapir's tensor engine as shared libraries
One library per layer of the stack (base, engine, tasks, autograd, nn, optim,
lab, report), for programs built on the engine; see libtapir-dev.")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libtapir-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
    "tapir's tensor engine: headers and CMake package
The headers of every layer and a CMake package: find_package(tapir) gives
the imported targets tapir::base ... tapir::report. The public interface is
described in /usr/share/doc/tapir/docs/api.md (package tapir).")
set(CPACK_COMPONENT_DEVELOPMENT_DEPENDS libraries)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
# The shared libraries link each other: dpkg-shlibdeps finds the package's
# own in the staging folder, and the libraries' package gets a shlibs file.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
include(CPack)
