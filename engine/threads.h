// The threading policy of tapir: one thread count for both pools that do work, OpenMP (our
// own loops, through parallel_for) and OpenBLAS (matrix products).
//
// Policy. set_num_threads(n) gives both pools n threads, and BLAS is never called from
// inside an OpenMP parallel region (no parallel_for body calls BLAS). So at any moment either
// one parallel_for or one BLAS call is running, at most n threads are busy, and the two pools
// never oversubscribe the cores. Until set_num_threads is called, parallel_for runs serially;
// a program calls set_num_threads(default_num_threads()) (or its --threads value) once at
// start so that OpenBLAS follows the same count.
//
// Determinism. parallel_for splits [0, n) into chunks whose boundaries depend only on n,
// min_per_thread and num_threads(), never on scheduling. A body that writes only its own
// chunk and reduces within it gives the same bits at every run with the same thread count.
#pragma once
#include <cstdint>
#include <exception>
#include <mutex>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace tapir {

// Sets the OpenMP and OpenBLAS thread counts to n; n >= 1.
void set_num_threads(int n);
// The count set last by set_num_threads, 1 before any call.
int num_threads();
// TAPIR_THREADS from the environment if set (a positive integer), else 1: on the 2-core
// reference machine one thread was measured fastest for small models, where the cost of
// waking a second thread exceeds the work it takes over. Users raise it with --threads.
int default_num_threads();

// How parallel_for cuts [0, n): the number of chunks, and chunk k's half-open range.
// Chunks are as equal as possible (sizes differ by at most one, larger ones first).
int64_t parallel_chunk_count(int64_t n, int64_t min_per_thread, int threads);
struct ChunkRange {
  int64_t begin;
  int64_t end;
};
ChunkRange parallel_chunk(int64_t n, int64_t chunks, int64_t k);

// Calls f(begin, end) on contiguous chunks that cover [0, n) exactly once. Runs serially, as
// one call f(0, n), when threads == 1 or n < 2 * min_per_thread; otherwise uses
// min(threads, n / min_per_thread) chunks with a static OpenMP schedule, so each chunk has at
// least min_per_thread items. The first exception thrown by f is rethrown after all chunks
// finish (an exception may not leave an OpenMP region).
template <class F>
void parallel_for(int64_t n, int64_t min_per_thread, F&& f) {
  if (n <= 0) return;
  const int64_t chunks = parallel_chunk_count(n, min_per_thread, num_threads());
  if (chunks == 1) {
    f(int64_t{0}, n);
    return;
  }
  const int team = static_cast<int>(chunks);  // chunks <= num_threads(), an int
  std::exception_ptr error;
  std::mutex error_mutex;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(team)
#else
  (void)team;
#endif
  for (int64_t k = 0; k < chunks; ++k) {
    try {
      const ChunkRange r = parallel_chunk(n, chunks, k);
      f(r.begin, r.end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tapir
