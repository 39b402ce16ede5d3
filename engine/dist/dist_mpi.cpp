// engine/dist.h on MPI's C interface. MPI starts only in a process that an
// MPI launcher started, so that a plain `tapir` (even one built with MPI)
// never initialises it.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "base/error.h"
#include "engine/dist.h"

namespace tapir::dist {

namespace {

bool g_started = false;
int g_rank = 0, g_size = 1, g_local_rank = 0;

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

void check_mpi(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  fail("MPI error in ", call, ": ", std::string(text, static_cast<size_t>(length)));
}
#define TAPIR_MPI_CHECK(call) check_mpi((call), #call)

int as_count(int64_t n, const char* what) {
  TAPIR_CHECK(n >= 0 && n <= int64_t(0x7fffffff), "MPI: ", what, " of ", n,
              " values does not fit MPI's int counts");
  return static_cast<int>(n);
}

template <typename T>
void sum_in_order(T* data, int64_t n, MPI_Datatype type) {
  if (g_size == 1 || n == 0) return;
  const int count = as_count(n, "a sum");
  std::vector<T> all(static_cast<size_t>(n) * static_cast<size_t>(g_size));
  TAPIR_MPI_CHECK(MPI_Allgather(data, count, type, all.data(), count, type, MPI_COMM_WORLD));
  for (int64_t i = 0; i < n; ++i) {
    T s = all[static_cast<size_t>(i)];
    for (int r = 1; r < g_size; ++r) s += all[static_cast<size_t>(r) * static_cast<size_t>(n) + i];
    data[i] = s;
  }
}

}  // namespace

void init(int& argc, char**& argv) {
  if (g_started || !launched_by_mpi()) return;
  TAPIR_MPI_CHECK(MPI_Init(&argc, &argv));
  g_started = true;
  // Errors come back as codes (check_mpi), not as MPI's own abort.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  // The ranks that share this machine (and its GPUs).
  MPI_Comm local;
  TAPIR_MPI_CHECK(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &local));
  MPI_Comm_rank(local, &g_local_rank);
  MPI_Comm_free(&local);
}

void finalize() {
  if (!g_started) return;
  MPI_Finalize();
  g_started = false;
}

int rank() {
  return g_rank;
}
int size() {
  return g_size;
}
int local_rank() {
  return g_local_rank;
}

void abort_job(const std::string& message) {
  if (g_size > 1) {
    std::fprintf(stderr, "tapir: rank %d of %d: %s\n", g_rank, g_size, message.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  std::fprintf(stderr, "tapir: %s\n", message.c_str());
  std::exit(1);
}

void barrier() {
  if (g_size > 1) TAPIR_MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

std::vector<std::string> all_gather(const std::string& bytes) {
  if (g_size == 1) return {bytes};
  int mine = as_count(static_cast<int64_t>(bytes.size()), "a message");
  std::vector<int> counts(static_cast<size_t>(g_size)), offsets(static_cast<size_t>(g_size));
  TAPIR_MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD));
  int64_t total = 0;
  for (int r = 0; r < g_size; ++r) {
    offsets[static_cast<size_t>(r)] = as_count(total, "all messages");
    total += counts[static_cast<size_t>(r)];
  }
  std::string all(static_cast<size_t>(as_count(total, "all messages")), '\0');
  TAPIR_MPI_CHECK(MPI_Allgatherv(bytes.data(), mine, MPI_CHAR, all.data(), counts.data(),
                                 offsets.data(), MPI_CHAR, MPI_COMM_WORLD));
  std::vector<std::string> out;
  for (int r = 0; r < g_size; ++r)
    out.push_back(all.substr(static_cast<size_t>(offsets[static_cast<size_t>(r)]),
                             static_cast<size_t>(counts[static_cast<size_t>(r)])));
  return out;
}

void check_same(const std::string& what, const std::string& text) {
  if (g_size == 1) return;
  const std::vector<std::string> all = all_gather(text);
  for (int r = 1; r < g_size; ++r)
    TAPIR_CHECK(all[static_cast<size_t>(r)] == all[0], "the ranks disagree on ", what, ": rank ", r,
                "'s differs from rank 0's (every rank must run the same command on the same "
                "files)");
}

void sum_in_rank_order(float* data, int64_t n) {
  sum_in_order(data, n, MPI_FLOAT);
}
void sum_in_rank_order(double* data, int64_t n) {
  sum_in_order(data, n, MPI_DOUBLE);
}

}  // namespace tapir::dist
