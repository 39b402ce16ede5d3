// Tests of engine/rng: Philox known answers, stream independence, distributions, state
// save/restore and split. Statistical checks use fixed seeds, so they are deterministic;
// each bound is set at about 5 standard deviations of the estimate (or a chi-square
// quantile with tail probability below 1e-4) so that a correct generator passes for any
// seed while a biased one fails.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "base/error.h"
#include "engine/rng.h"

using tapir::Rng;
using tapir::RngState;

namespace {

std::vector<uint32_t> draw_u32(Rng& rng, int n) {
  std::vector<uint32_t> out(n);
  for (auto& x : out) x = rng.next_u32();
  return out;
}

}  // namespace

TEST_CASE("philox4x32_10 matches the Random123 known-answer vectors") {
  using C = std::array<uint32_t, 4>;
  using K = std::array<uint32_t, 2>;
  CHECK(tapir::philox4x32_10(C{0, 0, 0, 0}, K{0, 0}) ==
        C{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(tapir::philox4x32_10(C{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                             K{0xffffffff, 0xffffffff}) ==
        C{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(tapir::philox4x32_10(C{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                             K{0xa4093822, 0x299f31d0}) ==
        C{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("Rng hands out Philox blocks of (block, stream) under key seed, in word order") {
  const uint64_t seed = 0x0123456789abcdefull, stream = 0xfedcba9876543210ull;
  Rng rng(seed, stream);
  for (uint32_t block = 0; block < 3; ++block) {
    const auto expect =
        tapir::philox4x32_10({block, 0, 0x76543210u, 0xfedcba98u}, {0x89abcdefu, 0x01234567u});
    for (int i = 0; i < 4; ++i) CHECK(rng.next_u32() == expect[i]);
  }
  Rng zero(0);
  CHECK(zero.next_u32() == 0x6627e8d5u);  // the all-zero known answer
}

TEST_CASE("next_u64 joins two u32 draws, low half first") {
  Rng a(7, 3), b(7, 3);
  for (int i = 0; i < 10; ++i) {
    const uint64_t lo = b.next_u32();
    const uint64_t hi = b.next_u32();
    CHECK(a.next_u64() == (hi << 32 | lo));
  }
}

TEST_CASE("same seed and stream give the same sequence") {
  Rng a(42, 5), b(42, 5);
  CHECK(draw_u32(a, 1000) == draw_u32(b, 1000));
  CHECK(a.seed() == 42);
  CHECK(a.stream() == 5);
}

TEST_CASE("a stream's numbers do not depend on draws from other streams") {
  Rng alone(9, 2);
  const auto expect = draw_u32(alone, 200);
  Rng other(9, 1), b(9, 2);
  std::vector<uint32_t> got;
  for (int i = 0; i < 200; ++i) {
    for (int j = 0; j < i % 5; ++j) other.normal();  // uneven interleaving
    got.push_back(b.next_u32());
  }
  CHECK(got == expect);
}

TEST_CASE("different streams and different seeds give different sequences") {
  Rng base(1, 0), other_stream(1, 1), other_seed(2, 0);
  const auto x = draw_u32(base, 64);
  const auto y = draw_u32(other_stream, 64);
  const auto z = draw_u32(other_seed, 64);
  CHECK(x != y);
  CHECK(x != z);
  CHECK(y != z);
  // Not merely shifted copies of each other: no value of x reappears in y.
  int shared = 0;
  for (uint32_t v : x) shared += std::count(y.begin(), y.end(), v) > 0 ? 1 : 0;
  CHECK(shared == 0);
}

TEST_CASE("uniform and uniform_f64 lie in [0, 1) with mean 1/2 and variance 1/12") {
  // Over 1e5 draws the mean has standard deviation sqrt(1/12 / 1e5) = 9.1e-4 and the
  // variance estimate sqrt((1/80 - 1/144) / 1e5) = 7.5e-4; bounds are 5.5 of those.
  const int n = 100000;
  Rng rng(2024, 1);
  for (int pass = 0; pass < 2; ++pass) {
    double sum = 0, sum_sq = 0, lo = 1, hi = 0;
    for (int i = 0; i < n; ++i) {
      const double u = pass == 0 ? rng.uniform() : rng.uniform_f64();
      sum += u;
      sum_sq += u * u;
      lo = std::min(lo, u);
      hi = std::max(hi, u);
    }
    const double mean = sum / n;
    const double var = sum_sq / n - mean * mean;
    CHECK(lo >= 0.0);
    CHECK(hi < 1.0);
    CHECK(std::abs(mean - 0.5) < 0.005);
    CHECK(std::abs(var - 1.0 / 12) < 0.004);
  }
}

TEST_CASE("uniform uses the top 24 bits of one u32, uniform_f64 the top 53 of one u64") {
  Rng a(5), b(5);
  CHECK(a.uniform() == static_cast<float>(b.next_u32() >> 8) / 16777216.0f);
  CHECK(a.uniform_f64() == static_cast<double>(b.next_u64() >> 11) / 9007199254740992.0);
}

TEST_CASE("normal has mean 0, variance 1 and normal tails") {
  // Over 1e5 draws: sd of the mean 3.2e-3, of the variance estimate sqrt(2 / 1e5) = 4.5e-3.
  // P(|Z| > 2) = 0.0455 gives 4550 +- 66 draws, P(|Z| > 3) = 0.0027 gives 270 +- 16;
  // all bounds are about 5 sd.
  const int n = 100000;
  Rng rng(77, 4);
  double sum = 0, sum_sq = 0;
  int beyond2 = 0, beyond3 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z;
    sum_sq += z * z;
    beyond2 += std::abs(z) > 2 ? 1 : 0;
    beyond3 += std::abs(z) > 3 ? 1 : 0;
  }
  const double mean = sum / n;
  CHECK(std::abs(mean) < 0.016);
  CHECK(std::abs(sum_sq / n - mean * mean - 1.0) < 0.023);
  CHECK(std::abs(beyond2 - 4550) < 330);
  CHECK(std::abs(beyond3 - 270) < 82);
}

TEST_CASE("randint is uniform on [0, n) without modulo bias") {
  SUBCASE("n = 3: chi-square with 2 degrees of freedom") {
    // P(chi2_2 > 20) = exp(-10) = 4.5e-5.
    const int draws = 300000;
    Rng rng(3, 3);
    std::array<int, 3> count{};
    for (int i = 0; i < draws; ++i) {
      const int64_t x = rng.randint(3);
      REQUIRE((x >= 0 && x < 3));
      ++count[x];
    }
    double chi2 = 0;
    for (int c : count) chi2 += (c - draws / 3.0) * (c - draws / 3.0) / (draws / 3.0);
    CHECK(chi2 < 20);
  }
  SUBCASE("n = 3 * 2^30: a plain u32 % n would put half the mass below 2^30") {
    // Unbiased: P(x < 2^30) = 1/3, sd over 1e5 draws 1.5e-3; x % n of a raw u32 gives 1/2.
    const int64_t n = 3ll << 30;
    const int draws = 100000;
    Rng rng(11);
    int below = 0;
    for (int i = 0; i < draws; ++i) {
      const int64_t x = rng.randint(n);
      REQUIRE((x >= 0 && x < n));
      below += x < (1ll << 30) ? 1 : 0;
    }
    CHECK(std::abs(below / double(draws) - 1.0 / 3) < 0.008);
  }
  SUBCASE("n = 3 * 2^61: a plain u64 % n would put 3/8 of the mass below 2^61") {
    const int64_t n = 3ll << 61;
    const int draws = 100000;
    Rng rng(12);
    int below = 0;
    for (int i = 0; i < draws; ++i) {
      const int64_t x = rng.randint(n);
      REQUIRE((x >= 0 && x < n));
      below += x < (1ll << 61) ? 1 : 0;
    }
    CHECK(std::abs(below / double(draws) - 1.0 / 3) < 0.008);
  }
  SUBCASE("n = 1 always gives 0; n <= 0 is refused") {
    Rng rng(1);
    for (int i = 0; i < 100; ++i) CHECK(rng.randint(1) == 0);
    CHECK_THROWS_AS(rng.randint(0), tapir::Error);
    CHECK_THROWS_AS(rng.randint(-5), tapir::Error);
  }
  SUBCASE("n = 2^32 and the largest n stay in range") {
    Rng rng(13);
    for (int i = 0; i < 1000; ++i) {
      const int64_t a = rng.randint(1ll << 32);
      CHECK((a >= 0 && a < (1ll << 32)));
      const int64_t b = rng.randint(INT64_MAX);
      CHECK((b >= 0 && b < INT64_MAX));
    }
  }
}

TEST_CASE("permutation is a permutation, depends on the seed, and is uniform for n = 3") {
  Rng a(100), b(101);
  const auto p = a.permutation(1000);
  const auto q = b.permutation(1000);
  auto sorted = p;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 1000; ++i) CHECK(sorted[i] == i);
  CHECK(p != q);
  CHECK(a.permutation(0).empty());
  CHECK(a.permutation(1) == std::vector<int32_t>{0});
  CHECK_THROWS_AS(a.permutation(-1), tapir::Error);

  // 6 orders of 3 items: chi-square with 5 degrees of freedom, P(chi2_5 > 30) = 1.5e-5.
  const int draws = 60000;
  Rng rng(5, 1);
  std::map<std::vector<int32_t>, int> count;
  int32_t buf[3];
  for (int i = 0; i < draws; ++i) {
    rng.permutation(3, buf);
    ++count[std::vector<int32_t>(buf, buf + 3)];
  }
  CHECK(count.size() == 6);
  double chi2 = 0;
  for (const auto& [order, c] : count)
    chi2 += (c - draws / 6.0) * (c - draws / 6.0) / (draws / 6.0);
  CHECK(chi2 < 30);
}

TEST_CASE("fill_uniform and fill_normal") {
  Rng rng(8);
  std::vector<float> f(20000);
  rng.fill_uniform(f.data(), 20000, -2.0f, 3.0f);
  CHECK(*std::min_element(f.begin(), f.end()) >= -2.0f);
  CHECK(*std::max_element(f.begin(), f.end()) < 3.0f);
  std::vector<double> d(20000);
  rng.fill_uniform(d.data(), 20000, 1.0, 1.5);
  CHECK(*std::min_element(d.begin(), d.end()) >= 1.0);
  CHECK(*std::max_element(d.begin(), d.end()) < 1.5);
  CHECK_THROWS_AS(rng.fill_uniform(d.data(), 1, 1.0, 1.0), tapir::Error);

  // fill_normal takes the same draws as repeated normal(), cached value included.
  Rng a(21), b(21);
  a.normal();
  b.normal();
  std::vector<double> filled(7);
  a.fill_normal(filled.data(), 7, 10.0, 0.5);
  for (double x : filled) CHECK(x == 10.0 + 0.5 * b.normal());
  std::vector<float> ff(5);
  a.fill_normal(ff.data(), 5, 0.0f, 2.0f);
  for (float x : ff) CHECK(x == static_cast<float>(2.0 * b.normal()));
  CHECK_THROWS_AS(a.fill_normal(ff.data(), 1, 0.0f, -1.0f), tapir::Error);
}

TEST_CASE("a restored state continues the same sequence") {
  auto continue_equal = [](Rng& original, const RngState& saved) {
    Rng restored(0);
    restored.set_state(RngState::from_words(saved.to_words()));
    CHECK(restored.state() == saved);
    for (int i = 0; i < 20; ++i) {
      CHECK(restored.next_u32() == original.next_u32());
      CHECK(restored.normal() == original.normal());
      CHECK(restored.randint(1000) == original.randint(1000));
    }
  };
  SUBCASE("fresh") {
    Rng rng(31, 2);
    continue_equal(rng, rng.state());
  }
  SUBCASE("at every position within a block") {
    for (int used = 1; used <= 4; ++used) {
      CAPTURE(used);
      Rng rng(31, 2);
      for (int i = 0; i < 4 + used; ++i) rng.next_u32();
      const RngState s = rng.state();
      CHECK(s.buffer_pos == used);
      CHECK(s.counter == 2);
      continue_equal(rng, s);
    }
  }
  SUBCASE("with a cached normal") {
    Rng rng(31, 2);
    rng.next_u32();
    rng.normal();
    const RngState s = rng.state();
    CHECK(s.has_cached_normal);
    continue_equal(rng, s);
  }
  SUBCASE("into a generator of another seed and stream") {
    Rng rng(31, 2), other(99, 7);
    rng.normal();
    rng.next_u32();
    other.set_state(rng.state());
    CHECK(other.seed() == 31);
    CHECK(other.stream() == 2);
    CHECK(draw_u32(other, 50) == draw_u32(rng, 50));
  }
}

TEST_CASE("bad saved states are refused") {
  Rng rng(1);
  auto words = rng.state().to_words();
  CHECK(words.size() == RngState::kNumWords);
  CHECK_THROWS_AS(RngState::from_words(words.data(), words.size() - 1), tapir::Error);
  words[0] = 99;  // unknown format version
  CHECK_THROWS_AS(RngState::from_words(words), tapir::Error);
  RngState s;
  s.buffer_pos = 5;
  CHECK_THROWS_AS(rng.set_state(s), tapir::Error);
  s.buffer_pos = 2;  // a partly used block needs a generated block
  s.counter = 0;
  CHECK_THROWS_AS(rng.set_state(s), tapir::Error);
}

TEST_CASE("split gives deterministic, distinct, independent streams") {
  Rng parent(55, 3);
  Rng c1 = parent.split(1), c1_again = parent.split(1), c2 = parent.split(2);
  CHECK(c1.seed() == 55);
  CHECK(c1.stream() == c1_again.stream());
  CHECK(c1.stream() != c2.stream());
  CHECK(c1.stream() != parent.stream());
  CHECK(c1.stream() != Rng(55, 4).split(1).stream());  // depends on the parent's stream
  const auto x = draw_u32(c1, 100);
  CHECK(x == draw_u32(c1_again, 100));
  CHECK(x != draw_u32(c2, 100));

  // Independent of what the parent has drawn.
  draw_u32(parent, 13);
  Rng late = parent.split(1);
  CHECK(draw_u32(late, 100) == x);
  CHECK(draw_u32(parent, 100) != x);

  // Children of one parent never collide (splitmix64 is a bijection).
  std::vector<uint64_t> streams;
  for (uint64_t child = 0; child < 1000; ++child) streams.push_back(parent.split(child).stream());
  std::sort(streams.begin(), streams.end());
  CHECK(std::adjacent_find(streams.begin(), streams.end()) == streams.end());
}
