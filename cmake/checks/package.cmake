# The `package` test (tests/CMakeLists.txt):
#   cmake -DCPACK=<cpack> -DBUILD_DIR=<build> -DWORK_DIR=<dir> -DVERSION=<x.y>
#         -DBUILD_TYPE=<config> -DCPU_TARGET=<target> -DCUDA=yes|no -DMPI=yes|no -P package.cmake
# Builds the Debian package with the build's CPack configuration into
# WORK_DIR (the build folder keeps no trace), checks its control fields, in
# particular that dpkg-shlibdeps computed Depends, unpacks it and runs the
# unpacked program (cmake/checks/installed_tapir.cmake).
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/installed_tapir.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CPACK} -G DEB --config ${BUILD_DIR}/CPackConfig.cmake -B ${WORK_DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE output ERROR_VARIABLE output)
tapir_expect_success("${rc}" "cpack -G DEB" "${output}")
file(GLOB debs ${WORK_DIR}/*.deb)
list(LENGTH debs count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "cpack made ${count} .deb files, not one:\n${output}")
endif()
get_filename_component(name ${debs} NAME)
if(NOT name MATCHES "^tapir_${VERSION}_[a-z0-9]+\\.deb$")
  message(FATAL_ERROR "the package is named ${name}, not tapir_${VERSION}_<arch>.deb")
endif()

execute_process(COMMAND dpkg-deb --info ${debs} RESULT_VARIABLE rc OUTPUT_VARIABLE info
                ERROR_VARIABLE info)
tapir_expect_success("${rc}" "dpkg-deb --info ${name}" "${info}")
foreach(field "Package: tapir" "Version: ${VERSION}" "Maintainer: [^\n]+<[^\n]+@[^\n]+>"
              "Description: [^\n]+" "Depends: [^\n]*libc6")
  if(NOT info MATCHES "\n ${field}")
    message(FATAL_ERROR "${name} has no control field matching '${field}' (is dpkg-dev, "
                        "which has dpkg-shlibdeps, installed? scripts/setup.sh installs it):\n"
                        "${info}\n${output}")
  endif()
endforeach()
string(REGEX MATCH "\n Depends: [^\n]*" depends "${info}")
string(STRIP "${depends}" depends)
message(STATUS "${name}: ${depends}")
foreach(library libopenblas libsentencepiece libstdc\\+\\+6)
  if(NOT depends MATCHES "${library}")
    message(FATAL_ERROR "${name}: Depends lacks ${library}: ${depends}")
  endif()
endforeach()

set(root ${WORK_DIR}/root)
execute_process(COMMAND dpkg-deb -x ${debs} ${root} RESULT_VARIABLE rc OUTPUT_VARIABLE output
                ERROR_VARIABLE output)
tapir_expect_success("${rc}" "dpkg-deb -x ${name}" "${output}")
foreach(file share/doc/tapir/README.md share/man/man1/tapir-train.1
             share/bash-completion/completions/tapir)
  if(NOT EXISTS ${root}/usr/${file})
    message(FATAL_ERROR "${name} does not hold /usr/${file}")
  endif()
endforeach()
tapir_check_installed(${root}/usr/bin/tapir ${WORK_DIR}/elsewhere)
if(CUDA STREQUAL "yes")
  tapir_check_without_toolkit(${root}/usr/bin/tapir ${WORK_DIR}/without_toolkit)
endif()
