// The threading policy of tapir: one thread count, one pool of worker
// threads, shared by our own loops (parallel_for) and the matrix products
// (engine/cpu/gemm.cpp splits a large product into single-threaded BLAS
// calls on the pool; OpenBLAS itself always runs one thread).
//
// Degrading gracefully. The calling thread takes chunks of a parallel_for
// itself, and the workers take what is left: a chunk is claimed by whoever
// gets to it first. So a worker whose core is busy with other work (a
// contended machine) never holds the step up: it claims nothing, and the
// caller does the work alone, about as fast as one thread. The caller waits
// only for chunks a worker has claimed. Workers spin briefly for new work,
// then sleep. A parallel_for inside a chunk runs its chunks one after the
// other on that thread, and so does one called while another thread's
// parallel_for is running: the same chunks, so the same bits.
//
// Small work stays on one thread: parallel_for runs serially when n is
// below 2 * min_per_thread, and a matrix product is split only when each
// part is worth waking a thread for.
//
// Determinism. parallel_for splits [0, n) into chunks whose boundaries depend only on n,
// min_per_thread and num_threads(), never on scheduling or on which thread runs a chunk. A
// body that writes only its own chunk and reduces within it gives the same bits at every run
// with the same thread count.
#pragma once
#include <cstdint>
#include <type_traits>

namespace tapir {

// The largest thread count tapir accepts, wherever a count comes from
// (--threads, a config file, TAPIR_THREADS, set_num_threads).
constexpr int kMaxThreads = 256;
// Fails with "<what> must be in [1, 256], got n" (what: "threads", or where
// the count came from) unless 1 <= n <= kMaxThreads; returns n.
int check_thread_count(int64_t n, const char* what = "threads");

// Sets the thread count to n (checked by check_thread_count): the pool gets
// n - 1 workers.
void set_num_threads(int n);
// The count set last by set_num_threads, 1 before any call.
int num_threads();
// TAPIR_THREADS from the environment if set (a count check_thread_count
// accepts), else the
// cores this process may run on (its CPU affinity): the pool degrades
// gracefully when some of them are busy, so using them all costs little
// where they are taken and gains where they are free.
int default_num_threads();

// How parallel_for cuts [0, n): the number of chunks, and chunk k's half-open range.
// Chunks are as equal as possible (sizes differ by at most one, larger ones first).
int64_t parallel_chunk_count(int64_t n, int64_t min_per_thread, int threads);
struct ChunkRange {
  int64_t begin;
  int64_t end;
};
ChunkRange parallel_chunk(int64_t n, int64_t chunks, int64_t k);

namespace detail {
// Runs body(ctx, k) for every k in [0, chunks) on the calling thread and the
// pool's workers, and returns when all have run; rethrows the first
// exception a chunk threw.
void run_chunks(int64_t chunks, void (*body)(void*, int64_t), void* ctx);
}  // namespace detail

// Calls f(begin, end) on contiguous chunks that cover [0, n) exactly once. Runs serially, as
// one call f(0, n), when threads == 1 or n < 2 * min_per_thread; otherwise uses
// min(threads, n / min_per_thread) chunks, so each chunk has at least min_per_thread items.
// The first exception thrown by f is rethrown after all chunks finish.
template <class F>
void parallel_for(int64_t n, int64_t min_per_thread, F&& f) {
  if (n <= 0) return;
  const int64_t chunks = parallel_chunk_count(n, min_per_thread, num_threads());
  if (chunks == 1) {
    f(int64_t{0}, n);
    return;
  }
  struct Context {
    std::remove_reference_t<F>* f;
    int64_t n, chunks;
  } context{&f, n, chunks};
  detail::run_chunks(
      chunks,
      [](void* p, int64_t k) {
        const Context& c = *static_cast<const Context*>(p);
        const ChunkRange r = parallel_chunk(c.n, c.chunks, k);
        (*c.f)(r.begin, r.end);
      },
      &context);
}

// Calls f(k) once for every k in [0, n): one task per k, each run whole by
// whichever thread claims it first (the caller or a worker), in no fixed
// order. A parallel_for inside a task runs its chunks one after the other on
// that thread: the same chunks as on the caller, so the same bits. For
// independent pieces of work much larger than a kernel (the models of a
// search); the tape, the step arenas and the grad mode are the running
// thread's own (autograd/tape.h), so a task may build and step a model.
// The first exception thrown by f is rethrown after all tasks finish.
template <class F>
void parallel_tasks(int64_t n, F&& f) {
  if (n <= 0) return;
  if (n == 1 || num_threads() == 1) {
    for (int64_t k = 0; k < n; ++k) f(k);
    return;
  }
  detail::run_chunks(
      n, [](void* p, int64_t k) { (*static_cast<std::remove_reference_t<F>*>(p))(k); }, &f);
}

}  // namespace tapir
