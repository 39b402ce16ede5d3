// Several tapir processes on one job: the ranks that mpirun starts
// (docs/distributed.md). A thin layer over MPI's C interface
// (engine/dist/dist_mpi.cpp); a build without MPI (TAPIR_MPI=OFF, or MPI not
// found: engine/dist/dist_stub.cpp), and any process that mpirun did not
// start, is rank 0 of 1 and runs exactly as a plain tapir does.
//
// What is exchanged is small and exchanged in a fixed order: sums are
// formed on every rank from every rank's values added in rank order, so all
// ranks hold the same bits, and the same command on the same ranks gives
// the same bits at every run.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "base/error.h"

namespace tapir::dist {

// Starts MPI when mpirun (or another launcher that sets OMPI_COMM_WORLD_SIZE,
// PMIX_RANK or PMI_SIZE) started this process; otherwise does nothing.
void init(int& argc, char**& argv);
// Ends MPI at a normal exit (every rank must get here); nothing without it.
void finalize();

int rank();        // 0 without MPI
int size();        // 1 without MPI
int local_rank();  // among the ranks on this machine (picks its GPU); 0 without MPI
inline bool is_root() {
  return rank() == 0;
}
inline bool distributed() {
  return size() > 1;
}

// Stops every rank of the job at once (no rank waits forever for one that
// failed): prints "tapir: rank R of N: message" and aborts the job with exit
// code 1. Without MPI it prints "tapir: message" and exits 1.
[[noreturn]] void abort_job(const std::string& message);

void barrier();

// Every rank's bytes, in rank order, on every rank.
std::vector<std::string> all_gather(const std::string& bytes);

// Fails on every rank, naming `what` and the first rank that differs, unless
// every rank passed the same text (options, configurations).
void check_same(const std::string& what, const std::string& text);

// data := the sum over ranks of each rank's data (n values each), added in
// rank order on every rank.
void sum_in_rank_order(float* data, int64_t n);
void sum_in_rank_order(double* data, int64_t n);

// A message for all_gather: n values appended to `message`, read back in
// the same order by take (`at` moves past them; a short message fails).
template <typename T>
void put(std::string& message, const T* values, size_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  message.append(reinterpret_cast<const char*>(values), n * sizeof(T));
}
template <typename T>
void take(const std::string& message, size_t& at, T* values, size_t n) {
  static_assert(std::is_trivially_copyable_v<T>);
  TAPIR_CHECK(at + n * sizeof(T) <= message.size(), "a rank sent a short message (", message.size(),
              " bytes)");
  if (n > 0) std::memcpy(values, message.data() + at, n * sizeof(T));
  at += n * sizeof(T);
}

// Which rank runs item k of n items shared out round-robin.
inline int owner(int64_t k) {
  return static_cast<int>(k % size());
}

}  // namespace tapir::dist
