// Thread counts for OpenMP and OpenBLAS; see threads.h for the policy.
#include "engine/threads.h"

#include <atomic>
#include <cstdlib>

#include <cblas.h>

#include "engine/error.h"
#include "engine/parse.h"

namespace tapir {

namespace {
std::atomic<int> g_num_threads{1};
}  // namespace

void set_num_threads(int n) {
  TAPIR_CHECK(n >= 1, "thread count must be >= 1, got ", n);
  g_num_threads = n;
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  openblas_set_num_threads(n);
}

int num_threads() {
  return g_num_threads;
}

int default_num_threads() {
  const char* text = std::getenv("TAPIR_THREADS");
  if (text == nullptr) return 1;
  return static_cast<int>(parse_int64(text, "TAPIR_THREADS", 1, 4096));
}

int64_t parallel_chunk_count(int64_t n, int64_t min_per_thread, int threads) {
  if (min_per_thread < 1) min_per_thread = 1;
  if (threads <= 1 || n / 2 < min_per_thread) return 1;  // n < 2 * min, without overflow
  const int64_t by_size = n / min_per_thread;
  return by_size < threads ? by_size : threads;
}

ChunkRange parallel_chunk(int64_t n, int64_t chunks, int64_t k) {
  // Written without n * k so that it cannot overflow for any n.
  const int64_t base = n / chunks;
  const int64_t extra = n % chunks;  // the first `extra` chunks get one more item
  const int64_t begin = k * base + (k < extra ? k : extra);
  return {begin, begin + base + (k < extra ? 1 : 0)};
}

}  // namespace tapir
