// Tests of engine/threads: parallel_for covers [0, n) exactly once with boundaries that
// depend only on n, min_per_thread and the thread count; a parallel_for inside a chunk runs
// the same chunks serially; a matrix product split over the threads equals the one-thread product;
// thread counts are validated.
#include <doctest/doctest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "base/error.h"
#include "engine/kernels.h"
#include "engine/rng.h"
#include "engine/threads.h"

namespace {

struct Chunk {
  int64_t begin, end;
  bool operator<(const Chunk& o) const { return begin < o.begin; }
  bool operator==(const Chunk& o) const = default;
};

// Runs parallel_for and returns its chunks sorted by start, checking each index is visited
// exactly once.
std::vector<Chunk> run_chunks(int64_t n, int64_t min_per_thread) {
  std::vector<std::atomic<int>> visits(static_cast<size_t>(n));
  std::vector<Chunk> chunks;
  std::mutex mutex;
  tapir::parallel_for(n, min_per_thread, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) ++visits[i];
    std::lock_guard<std::mutex> lock(mutex);
    chunks.push_back({begin, end});
  });
  for (int64_t i = 0; i < n; ++i) REQUIRE(visits[i] == 1);
  std::sort(chunks.begin(), chunks.end());
  return chunks;
}

// Restores the serial default after a test changes the thread count.
struct ThreadCountGuard {
  ~ThreadCountGuard() { tapir::set_num_threads(1); }
};

}  // namespace

TEST_CASE("parallel_for covers [0, n) exactly once in deterministic contiguous chunks") {
  ThreadCountGuard guard;
  for (int threads : {1, 2, 3, 4, 7}) {
    tapir::set_num_threads(threads);
    CHECK(tapir::num_threads() == threads);
    for (int64_t n : {0, 1, 5, 16, 17, 100, 1001}) {
      for (int64_t min_per_thread : {1, 4, 50}) {
        CAPTURE(threads);
        CAPTURE(n);
        CAPTURE(min_per_thread);
        const auto chunks = run_chunks(n, min_per_thread);
        if (n == 0) {
          CHECK(chunks.empty());
          continue;
        }
        const int64_t expect = tapir::parallel_chunk_count(n, min_per_thread, threads);
        REQUIRE(static_cast<int64_t>(chunks.size()) == expect);
        CHECK(expect <= threads);
        if (n < 2 * min_per_thread || threads == 1) CHECK(expect == 1);
        for (int64_t k = 0; k < expect; ++k) {
          const auto r = tapir::parallel_chunk(n, expect, k);
          CHECK(chunks[k] == Chunk{r.begin, r.end});
          if (expect > 1) CHECK(chunks[k].end - chunks[k].begin >= min_per_thread);
        }
        CHECK(run_chunks(n, min_per_thread) == chunks);  // same cut on a second run
      }
    }
  }
}

TEST_CASE("parallel_chunk splits evenly, larger chunks first, without overflow") {
  const auto r0 = tapir::parallel_chunk(10, 3, 0), r1 = tapir::parallel_chunk(10, 3, 1),
             r2 = tapir::parallel_chunk(10, 3, 2);
  CHECK((r0.begin == 0 && r0.end == 4));
  CHECK((r1.begin == 4 && r1.end == 7));
  CHECK((r2.begin == 7 && r2.end == 10));
  const int64_t big = INT64_MAX - 1;
  const auto last = tapir::parallel_chunk(big, 4, 3);
  CHECK(last.end == big);
  CHECK(tapir::parallel_chunk_count(big, INT64_MAX, 4) == 1);
}

TEST_CASE("parallel_for rethrows an exception from a chunk") {
  ThreadCountGuard guard;
  tapir::set_num_threads(2);
  CHECK_THROWS_AS(tapir::parallel_for(100, 10,
                                      [](int64_t begin, int64_t) {
                                        if (begin == 0) tapir::fail("chunk failed");
                                      }),
                  tapir::Error);
}

TEST_CASE("a parallel_for inside a chunk runs its chunks in order on the chunk's thread") {
  ThreadCountGuard guard;
  tapir::set_num_threads(3);
  std::atomic<int> outer_calls{0}, misplaced{0};
  tapir::parallel_for(30, 10, [&](int64_t, int64_t) {
    ++outer_calls;
    const std::thread::id here = std::this_thread::get_id();
    std::vector<Chunk> inner;
    tapir::parallel_for(1000, 1, [&](int64_t begin, int64_t end) {
      if (std::this_thread::get_id() != here) ++misplaced;
      inner.push_back({begin, end});  // on this thread only: no lock
    });
    // The same cut as at the top level, so the same bits.
    REQUIRE(inner.size() == 3);
    for (int64_t k = 0; k < 3; ++k) {
      const auto r = tapir::parallel_chunk(1000, 3, k);
      CHECK(inner[size_t(k)] == Chunk{r.begin, r.end});
    }
  });
  CHECK(outer_calls == 3);
  CHECK(misplaced == 0);
}

TEST_CASE("a matrix product split over the threads equals the one-thread product") {
  ThreadCountGuard guard;
  struct Case {
    int64_t M, N, K;
  };
  // Split by rows of C, by columns, and one too small to split.
  for (const Case c : {Case{512, 96, 256}, Case{40, 600, 300}, Case{8, 8, 8}}) {
    for (int t = 0; t < 4; ++t) {
      const bool ta = t & 1, tb = t & 2;
      CAPTURE(c.M);
      CAPTURE(c.N);
      CAPTURE(ta);
      CAPTURE(tb);
      std::vector<float> a(static_cast<size_t>(c.M * c.K)), b(static_cast<size_t>(c.K * c.N));
      tapir::Rng rng(7, 0);
      rng.fill_uniform<float>(a.data(), c.M * c.K, -1.0f, 1.0f);
      rng.fill_uniform<float>(b.data(), c.K * c.N, -1.0f, 1.0f);
      // C starts non-zero: backward kernels accumulate (beta = 1).
      std::vector<float> start(static_cast<size_t>(c.M * c.N));
      rng.fill_uniform<float>(start.data(), c.M * c.N, -1.0f, 1.0f);
      std::vector<float> one = start, three = start;
      tapir::set_num_threads(1);
      tapir::cpu::gemm<float>(ta, tb, c.M, c.N, c.K, 0.5f, a.data(), b.data(), 1.0f, one.data());
      tapir::set_num_threads(3);
      tapir::cpu::gemm<float>(ta, tb, c.M, c.N, c.K, 0.5f, a.data(), b.data(), 1.0f, three.data());
      // Against a double-precision reference too: each block sees the right operands.
      double worst = 0;
      for (int64_t i = 0; i < c.M; ++i)
        for (int64_t j = 0; j < c.N; ++j) {
          double ref = start[size_t(i * c.N + j)];
          for (int64_t k = 0; k < c.K; ++k) {
            const double x = ta ? a[size_t(k * c.M + i)] : a[size_t(i * c.K + k)];
            const double y = tb ? b[size_t(j * c.K + k)] : b[size_t(k * c.N + j)];
            ref += 0.5 * x * y;
          }
          const size_t at = size_t(i * c.N + j);
          worst = std::max({worst, std::fabs(double(three[at]) - ref),
                            std::fabs(double(three[at]) - double(one[at]))});
        }
      CHECK(worst < 1e-4);
    }
  }
}

TEST_CASE("thread counts are validated") {
  CHECK_THROWS_AS(tapir::set_num_threads(0), tapir::Error);
  CHECK_THROWS_AS(tapir::set_num_threads(-2), tapir::Error);
  CHECK_THROWS_WITH_AS(tapir::set_num_threads(tapir::kMaxThreads + 1),
                       "threads must be in [1, 256], got 257", tapir::Error);

  const char* saved = std::getenv("TAPIR_THREADS");
  const std::string saved_value = saved ? saved : "";
  unsetenv("TAPIR_THREADS");
  // The usable cores: as many as this process's affinity mask allows.
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof set, &set) == 0);
  CHECK(tapir::default_num_threads() == CPU_COUNT(&set));
  setenv("TAPIR_THREADS", "3", 1);
  CHECK(tapir::default_num_threads() == 3);
  for (const char* bad : {"two", "2x", "", " 2"}) {
    CAPTURE(bad);
    setenv("TAPIR_THREADS", bad, 1);
    CHECK_THROWS_WITH_AS(
        tapir::default_num_threads(),
        ("TAPIR_THREADS: expected an integer, got '" + std::string(bad) + "'").c_str(),
        tapir::Error);
  }
  // Out of range: the same bounds as --threads and set_num_threads.
  for (const char* bad : {"0", "-1", "257", "5000"}) {
    CAPTURE(bad);
    setenv("TAPIR_THREADS", bad, 1);
    CHECK_THROWS_WITH_AS(tapir::default_num_threads(),
                         ("TAPIR_THREADS must be in [1, 256], got " + std::string(bad)).c_str(),
                         tapir::Error);
  }
  setenv("TAPIR_THREADS", "256", 1);
  CHECK(tapir::default_num_threads() == tapir::kMaxThreads);
  if (saved) {
    setenv("TAPIR_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("TAPIR_THREADS");
  }
}
