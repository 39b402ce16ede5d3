// Tests of engine/threads: parallel_for covers [0, n) exactly once with boundaries that
// depend only on n, min_per_thread and the thread count; thread counts are validated.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/error.h"
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

TEST_CASE("thread counts are validated") {
  CHECK_THROWS_AS(tapir::set_num_threads(0), tapir::Error);
  CHECK_THROWS_AS(tapir::set_num_threads(-2), tapir::Error);

  const char* saved = std::getenv("TAPIR_THREADS");
  const std::string saved_value = saved ? saved : "";
  unsetenv("TAPIR_THREADS");
  CHECK(tapir::default_num_threads() == 1);
  setenv("TAPIR_THREADS", "3", 1);
  CHECK(tapir::default_num_threads() == 3);
  for (const char* bad : {"0", "-1", "two", "2x", "", " 2", "5000"}) {
    CAPTURE(bad);
    setenv("TAPIR_THREADS", bad, 1);
    CHECK_THROWS_WITH_AS(
        tapir::default_num_threads(),
        ("TAPIR_THREADS: expected an integer in [1, 4096], got '" + std::string(bad) + "'").c_str(),
        tapir::Error);
  }
  if (saved) {
    setenv("TAPIR_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("TAPIR_THREADS");
  }
}
