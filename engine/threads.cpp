// The thread count and the pool behind parallel_for; see threads.h for the
// policy.
#include "engine/threads.h"

#include <cblas.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/parse.h"

namespace tapir {

namespace {

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Set on the pool's workers, and on a caller while it runs chunks: a
// parallel_for there runs serially.
thread_local bool t_in_parallel = false;

// The pool. One job at a time; its state is one 64-bit word, so that a
// claim is one compare-and-swap that also checks the job is still the
// current one: generation (32 bits) | chunk count (16) | next chunk (16).
class Pool {
 public:
  ~Pool() { resize(0); }

  void resize(int workers) {
    if (static_cast<size_t>(workers) == workers_.size()) return;
    stop_.store(true);
    bump_generation(0);
    for (std::thread& t : workers_) t.join();
    workers_.clear();
    stop_.store(false);
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
  }

  void run(int64_t chunks, void (*body)(void*, int64_t), void* ctx) {
    std::unique_lock<std::mutex> busy(caller_, std::try_to_lock);
    if (!busy.owns_lock() || t_in_parallel || workers_.empty() || chunks > 0xffff) {
      for (int64_t k = 0; k < chunks; ++k) body(ctx, k);
      return;
    }
    body_.store(body, std::memory_order_relaxed);
    ctx_.store(ctx, std::memory_order_relaxed);
    done_.store(0, std::memory_order_relaxed);
    error_ = nullptr;
    bump_generation(chunks);  // publishes the job (release)
    t_in_parallel = true;
    while (claim_and_run()) {
    }
    t_in_parallel = false;
    // Only chunks a worker claimed are left: wait for those.
    for (int spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
      if (spins < 2000)
        cpu_relax();
      else
        std::this_thread::yield();  // let a preempted worker have the core
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  static constexpr uint64_t kCountShift = 16, kGenerationShift = 32;
  // About 20 microseconds of spinning before a worker sleeps.
  static constexpr int kSpins = 4000;

  void bump_generation(int64_t chunks) {
    const uint64_t generation = (state_.load(std::memory_order_relaxed) >> kGenerationShift) + 1;
    state_.store((generation << kGenerationShift) | (uint64_t(chunks) << kCountShift),
                 std::memory_order_release);
    state_.notify_all();
  }

  // Claims the next chunk of the current job and runs it; false when none
  // is left.
  bool claim_and_run() {
    uint64_t s = state_.load(std::memory_order_acquire);
    uint64_t next = 0;
    for (;;) {
      const uint64_t count = (s >> kCountShift) & 0xffff;
      next = s & 0xffff;
      if (next >= count) return false;
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire))
        break;
    }
    // The job cannot finish before this chunk does, so its body and context
    // (written before the job was published) stay as they are.
    void (*body)(void*, int64_t) = body_.load(std::memory_order_relaxed);
    void* ctx = ctx_.load(std::memory_order_relaxed);
    try {
      body(ctx, static_cast<int64_t>(next));
    } catch (...) {
      const std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = std::current_exception();
    }
    done_.fetch_add(1, std::memory_order_release);
    return true;
  }

  void work() {
    t_in_parallel = true;
    for (;;) {
      while (claim_and_run()) {
      }
      if (stop_.load()) return;
      const uint64_t seen = state_.load(std::memory_order_acquire);
      if ((seen & 0xffff) < ((seen >> kCountShift) & 0xffff)) continue;
      bool changed = false;
      for (int i = 0; i < kSpins && !changed; ++i) {
        cpu_relax();
        changed = state_.load(std::memory_order_relaxed) != seen;
      }
      if (!changed) state_.wait(seen, std::memory_order_acquire);
    }
  }

  std::atomic<uint64_t> state_{0};
  std::atomic<void (*)(void*, int64_t)> body_{nullptr};
  std::atomic<void*> ctx_{nullptr};
  std::atomic<int64_t> done_{0};
  std::atomic<bool> stop_{false};
  std::mutex caller_, error_mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> workers_;
};

Pool& pool() {
  static Pool p;
  return p;
}

std::atomic<int> g_num_threads{1};

// OpenBLAS starts with a thread per core (or OPENBLAS_NUM_THREADS): a
// program that never calls set_num_threads would run every product on all
// of them, and wait for any that another process keeps busy. One thread from
// the start, as num_threads() says; OpenBLAS's own constructor has run by
// now (a library is initialised before the code that links it).
const bool g_blas_single_threaded = [] {
  openblas_set_num_threads(1);
  return true;
}();

}  // namespace

int check_thread_count(int64_t n, const char* what) {
  TAPIR_CHECK(n >= 1 && n <= kMaxThreads, what, " must be in [1, ", kMaxThreads, "], got ", n);
  return static_cast<int>(n);
}

void set_num_threads(int n) {
  check_thread_count(n);
  g_num_threads = n;
  // OpenBLAS's own pool stays at one thread: its static split waits for a
  // thread whose core is busy elsewhere (threads.h).
  openblas_set_num_threads(1);
  pool().resize(n - 1);
}

int num_threads() {
  return g_num_threads;
}

int default_num_threads() {
  const char* text = std::getenv("TAPIR_THREADS");
  if (text == nullptr) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return std::max(1, CPU_COUNT(&set));
  }
  return check_thread_count(parse_int64(text, "TAPIR_THREADS"), "TAPIR_THREADS");
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

namespace detail {

void run_chunks(int64_t chunks, void (*body)(void*, int64_t), void* ctx) {
  pool().run(chunks, body, ctx);
}

}  // namespace detail

}  // namespace tapir
