# The `package` test (tests/CMakeLists.txt):
#   cmake -DCPACK=<cpack> -DBUILD_DIR=<build> -DWORK_DIR=<dir> -DVERSION=<x.y>
#         -DBUILD_TYPE=<config> -DCPU_TARGET=<target> -DCUDA=yes|no -DMPI=yes|no
#         -DCXX=<compiler> -DGENERATOR=<generator> "-DFLAGS=<flags>" -P package.cmake
# Builds the Debian packages with the build's CPack configuration into
# WORK_DIR (the build folder keeps no trace), checks their control fields,
# in particular that dpkg-shlibdeps computed Depends, unpacks them into one
# root, runs the unpacked program (cmake/checks/installed_tapir.cmake) and
# builds and runs the examples against the unpacked libraries
# (cmake/checks/examples.cmake).
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/installed_tapir.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CPACK} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
tapir_expect_success("${rc}" "cpack -G DEB" "${output}")
# One package per install component (cmake/install.cmake).
set(packages tapir libtapir${VERSION} libtapir-dev)
file(GLOB debs ${WORK_DIR}/*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 3)
  message(FATAL_ERROR "cpack made ${count} .deb files, not 3 (${packages}):\n${output}")
endif()

set(root ${WORK_DIR}/root)
foreach(package ${packages})
  file(GLOB deb ${WORK_DIR}/${package}_${VERSION}_*.deb)
  if(NOT deb)
    message(FATAL_ERROR "no ${package}_${VERSION}_<arch>.deb among: ${debs}")
  endif()
  get_filename_component(name ${deb} NAME)
  execute_process(COMMAND dpkg-deb --info ${deb} RESULT_VARIABLE rc OUTPUT_VARIABLE info
                  ERROR_VARIABLE info)
  tapir_expect_success("${rc}" "dpkg-deb --info ${name}" "${info}")
  set(fields "Package: ${package}" "Version: ${VERSION}" "Maintainer: [^\n]+<[^\n]+@[^\n]+>"
             "Description: [^\n]+")
  if(package STREQUAL "libtapir-dev")
    # Headers and the CMake package: the libraries, exactly this version.
    set(libraries "libtapir${VERSION} \\(= ${VERSION}\\)")
  else()
    # dpkg-shlibdeps computed it (dpkg-dev, which scripts/setup.sh installs).
    list(APPEND fields "Depends: [^\n]*libc6")
    set(libraries libopenblas libsentencepiece libstdc\\+\\+6)
  endif()
  foreach(field ${fields})
    if(NOT info MATCHES "\n ${field}")
      message(FATAL_ERROR "${name} has no control field matching '${field}' (is dpkg-dev, "
                          "which has dpkg-shlibdeps, installed? scripts/setup.sh installs it):\n"
                          "${info}\n${output}")
    endif()
  endforeach()
  string(REGEX MATCH "\n Depends: [^\n]*" depends "${info}")
  string(STRIP "${depends}" depends)
  message(STATUS "${name}: ${depends}")
  foreach(library ${libraries})
    if(NOT depends MATCHES "${library}")
      message(FATAL_ERROR "${name}: Depends lacks ${library}: ${depends}")
    endif()
  endforeach()
  execute_process(COMMAND dpkg-deb -x ${deb} ${root} RESULT_VARIABLE rc OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  tapir_expect_success("${rc}" "dpkg-deb -x ${name}" "${output}")
endforeach()

foreach(file share/doc/tapir/README.md share/man/man1/tapir-train.1
             share/bash-completion/completions/tapir include/tapir/autograd/ops.h)
  if(NOT EXISTS ${root}/usr/${file})
    message(FATAL_ERROR "the packages do not hold /usr/${file}")
  endif()
endforeach()
# (lib/, or lib/<multiarch>/ where the build was configured for /usr)
foreach(file tapirConfig.cmake libtapir_engine.so.${VERSION})
  file(GLOB_RECURSE found ${root}/usr/lib/${file})
  if(NOT found)
    message(FATAL_ERROR "the packages hold no ${file} under /usr/lib")
  endif()
endforeach()
tapir_check_installed(${root}/usr/bin/tapir ${WORK_DIR}/elsewhere)
if(CUDA STREQUAL "yes")
  tapir_check_without_toolkit(${root}/usr/bin/tapir ${WORK_DIR}/without_toolkit)
endif()

# The examples, built against the unpacked packages (the headers were
# checked one by one against `cmake --install`'s prefix by the examples test).
execute_process(COMMAND ${CMAKE_COMMAND} -DPREFIX=${root}/usr -DSOURCE_DIR=${SOURCE_DIR}
                        -DWORK_DIR=${WORK_DIR}/examples -DCXX=${CXX} -DGENERATOR=${GENERATOR}
                        "-DFLAGS=${FLAGS}" -DHEADERS=no -P ${CMAKE_CURRENT_LIST_DIR}/examples.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
tapir_expect_success("${rc}" "the examples against the packages" "${output}")
