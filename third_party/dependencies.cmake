# How tapir finds its external libraries. All come from Debian packages
# (scripts/setup.sh installs them); nothing is vendored.
#
#   OpenBLAS      libopenblas-dev     matrix products (cblas_sgemm / cblas_dgemm)
#   Threads       (libc)              the worker pool of engine/threads.h
#   Eigen         libeigen3-dev       small dense linear algebra
#   doctest       doctest-dev         the test harness
#   CLI11         libcli11-dev        the `tapir` command line
#   nlohmann_json nlohmann-json3-dev  reading and writing JSON (base/json.h)
#   SentencePiece libsentencepiece-dev subword tokenizers (tasks/tokenizer.cpp)
#   MPI           libopenmpi-dev      optional, found in cmake/mpi.cmake
#   libxsmm       libxsmm-dev         optional (bench --gemm only), found in cmake/libxsmm.cmake

find_package(Threads REQUIRED)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)
find_package(doctest REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# 3.11: base/json_parse.cpp words errors from this version's messages.
find_package(nlohmann_json 3.11 REQUIRED)

# Debian's OpenBLAS ships a CMake config that sets OpenBLAS_INCLUDE_DIRS and
# OpenBLAS_LIBRARIES; wrap them in an imported target.
find_package(OpenBLAS CONFIG REQUIRED)
add_library(tapir::blas INTERFACE IMPORTED)
target_include_directories(tapir::blas INTERFACE ${OpenBLAS_INCLUDE_DIRS})
target_link_libraries(tapir::blas INTERFACE ${OpenBLAS_LIBRARIES})

# SentencePiece ships a pkg-config module and no CMake config; its headers
# are only included by tasks/tokenizer.cpp.
find_path(TAPIR_SENTENCEPIECE_INCLUDE_DIR sentencepiece_trainer.h)
find_library(TAPIR_SENTENCEPIECE_LIBRARY sentencepiece)
find_library(TAPIR_SENTENCEPIECE_TRAIN_LIBRARY sentencepiece_train)
if(NOT TAPIR_SENTENCEPIECE_INCLUDE_DIR OR NOT TAPIR_SENTENCEPIECE_LIBRARY
   OR NOT TAPIR_SENTENCEPIECE_TRAIN_LIBRARY)
  message(FATAL_ERROR "SentencePiece not found: install libsentencepiece-dev "
                      "(scripts/setup.sh installs every dependency)")
endif()
add_library(tapir::sentencepiece INTERFACE IMPORTED)
target_include_directories(tapir::sentencepiece SYSTEM INTERFACE ${TAPIR_SENTENCEPIECE_INCLUDE_DIR})
target_link_libraries(tapir::sentencepiece INTERFACE ${TAPIR_SENTENCEPIECE_TRAIN_LIBRARY}
                                                     ${TAPIR_SENTENCEPIECE_LIBRARY})
