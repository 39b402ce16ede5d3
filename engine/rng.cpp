// Philox-4x32-10 and the Rng built on it; see rng.h for the guarantees.
#include "engine/rng.h"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>
#include <utility>

#include "base/error.h"

namespace tapir {

namespace {

// Multipliers and key increments (the golden ratio and sqrt(3) - 1 in 32-bit fixed point)
// as published with Random123.
constexpr uint32_t kPhiloxM0 = 0xD2511F53u;
constexpr uint32_t kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u;
constexpr uint32_t kPhiloxW1 = 0xBB67AE85u;

uint32_t lo32(uint64_t x) {
  return static_cast<uint32_t>(x);
}
uint32_t hi32(uint64_t x) {
  return static_cast<uint32_t>(x >> 32);
}
uint64_t join64(uint32_t lo, uint32_t hi) {
  return (uint64_t{hi} << 32) | lo;
}

std::array<uint32_t, 4> philox_round(const std::array<uint32_t, 4>& c,
                                     const std::array<uint32_t, 2>& k) {
  const uint64_t p0 = uint64_t{kPhiloxM0} * c[0];
  const uint64_t p1 = uint64_t{kPhiloxM1} * c[2];
  return {hi32(p1) ^ c[1] ^ k[0], lo32(p1), hi32(p0) ^ c[3] ^ k[1], lo32(p0)};
}

// Accepts x only if it lies in the largest multiple of n that fits in 2^bits, so x % n is
// exactly uniform. `below` is 2^bits mod n, computed as (0 - n) mod n in unsigned arithmetic.
template <typename U, typename Draw>
U uniform_below(U n, Draw draw) {
  const U below = static_cast<U>(U{0} - n) % n;
  U x = draw();
  while (x < below) x = draw();
  return x % n;
}

}  // namespace

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter,
                                      std::array<uint32_t, 2> key) {
  counter = philox_round(counter, key);
  for (int round = 1; round < 10; ++round) {
    key[0] += kPhiloxW0;
    key[1] += kPhiloxW1;
    counter = philox_round(counter, key);
  }
  return counter;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// ---- RngState ----

std::vector<int32_t> RngState::to_words() const {
  const uint64_t normal_bits = std::bit_cast<uint64_t>(cached_normal);
  const uint32_t u[kNumWords] = {static_cast<uint32_t>(kFormatVersion),
                                 lo32(seed),
                                 hi32(seed),
                                 lo32(stream),
                                 hi32(stream),
                                 lo32(counter),
                                 hi32(counter),
                                 static_cast<uint32_t>(buffer_pos),
                                 has_cached_normal ? 1u : 0u,
                                 lo32(normal_bits),
                                 hi32(normal_bits)};
  std::vector<int32_t> words(kNumWords);
  for (size_t i = 0; i < kNumWords; ++i) words[i] = std::bit_cast<int32_t>(u[i]);
  return words;
}

RngState RngState::from_words(const int32_t* words, size_t n) {
  TAPIR_CHECK(n == kNumWords, "rng state has ", n, " words, expected ", kNumWords);
  TAPIR_CHECK(words[0] == kFormatVersion, "rng state format version ", words[0], ", expected ",
              kFormatVersion);
  uint32_t u[kNumWords];
  for (size_t i = 0; i < kNumWords; ++i) u[i] = std::bit_cast<uint32_t>(words[i]);
  TAPIR_CHECK(u[8] <= 1, "rng state has_cached_normal word is ", u[8], ", expected 0 or 1");
  RngState s;
  s.seed = join64(u[1], u[2]);
  s.stream = join64(u[3], u[4]);
  s.counter = join64(u[5], u[6]);
  s.buffer_pos = words[7];
  s.has_cached_normal = u[8] == 1;
  s.cached_normal = std::bit_cast<double>(join64(u[9], u[10]));
  return s;
}

RngState RngState::from_words(const std::vector<int32_t>& words) {
  return from_words(words.data(), words.size());
}

bool operator==(const RngState& a, const RngState& b) {
  // The cached value is compared by bits so that a restored state equals the saved one
  // even if it were a NaN, and an unused cache slot is ignored.
  const bool same_cache = a.has_cached_normal == b.has_cached_normal &&
                          (!a.has_cached_normal || std::bit_cast<uint64_t>(a.cached_normal) ==
                                                       std::bit_cast<uint64_t>(b.cached_normal));
  return a.seed == b.seed && a.stream == b.stream && a.counter == b.counter &&
         a.buffer_pos == b.buffer_pos && same_cache;
}

// ---- Rng ----

Rng::Rng(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}

std::array<uint32_t, 4> Rng::block(uint64_t index) const {
  return philox4x32_10({lo32(index), hi32(index), lo32(stream_), hi32(stream_)},
                       {lo32(seed_), hi32(seed_)});
}

void Rng::refill() {
  // The last block index is never used, so counter_ never wraps back to a state that looks
  // fresh; a stream thus yields 2^64 - 1 blocks.
  TAPIR_CHECK(counter_ != std::numeric_limits<uint64_t>::max(), "rng stream ", stream_,
              " is exhausted");
  buffer_ = block(counter_);
  ++counter_;
  buffer_pos_ = 0;
}

uint32_t Rng::next_u32() {
  if (buffer_pos_ == 4) refill();
  return buffer_[buffer_pos_++];
}

uint64_t Rng::next_u64() {
  const uint32_t lo = next_u32();
  const uint32_t hi = next_u32();
  return join64(lo, hi);
}

float Rng::uniform() {
  return static_cast<float>(next_u32() >> 8) * 0x1.0p-24f;
}

double Rng::uniform_f64() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double Rng::normal() {
  if (has_cached_normal_) {
    has_cached_normal_ = false;
    return cached_normal_;
  }
  const double u1 = 1.0 - uniform_f64();  // (0, 1], so the log is finite
  const double u2 = uniform_f64();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  cached_normal_ = radius * std::sin(angle);
  has_cached_normal_ = true;
  return radius * std::cos(angle);
}

int64_t Rng::randint(int64_t n) {
  TAPIR_CHECK(n >= 1, "randint needs n >= 1, got ", n);
  const uint64_t un = static_cast<uint64_t>(n);
  if (un <= (uint64_t{1} << 32)) {
    // n == 2^32 wraps to 0 in 32 bits; every u32 is then already uniform.
    if (un == (uint64_t{1} << 32)) return next_u32();
    return uniform_below<uint32_t>(static_cast<uint32_t>(un), [this] { return next_u32(); });
  }
  return static_cast<int64_t>(uniform_below<uint64_t>(un, [this] { return next_u64(); }));
}

void Rng::permutation(int64_t n, int32_t* out) {
  TAPIR_CHECK(n >= 0 && n <= std::numeric_limits<int32_t>::max(),
              "permutation needs 0 <= n <= 2^31 - 1, got ", n);
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<int32_t>(i);
  for (int64_t i = n - 1; i > 0; --i) {
    const int64_t j = randint(i + 1);
    std::swap(out[i], out[j]);
  }
}

std::vector<int32_t> Rng::permutation(int64_t n) {
  TAPIR_CHECK(n >= 0, "permutation needs n >= 0, got ", n);
  std::vector<int32_t> out(static_cast<size_t>(n));
  permutation(n, out.data());
  return out;
}

template <typename T>
void Rng::fill_uniform(T* out, int64_t n, T lo, T hi) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  TAPIR_CHECK(lo < hi, "fill_uniform needs lo < hi, got [", lo, ", ", hi, ")");
  const T width = hi - lo;
  const T below_hi = std::nextafter(hi, lo);
  for (int64_t i = 0; i < n; ++i) {
    T u;
    if constexpr (std::is_same_v<T, float>) {
      u = uniform();
    } else {
      u = uniform_f64();
    }
    const T x = lo + width * u;
    out[i] = x < hi ? x : below_hi;
  }
}

template <typename T>
void Rng::fill_normal(T* out, int64_t n, T mean, T std) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  TAPIR_CHECK(std >= 0, "fill_normal needs std >= 0, got ", std);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(static_cast<double>(mean) + static_cast<double>(std) * normal());
  }
}

template void Rng::fill_uniform<float>(float*, int64_t, float, float);
template void Rng::fill_uniform<double>(double*, int64_t, double, double);
template void Rng::fill_normal<float>(float*, int64_t, float, float);
template void Rng::fill_normal<double>(double*, int64_t, double, double);

Rng Rng::split(uint64_t child) const {
  return Rng(seed_, splitmix64(splitmix64(stream_) ^ child));
}

RngState Rng::state() const {
  RngState s;
  s.seed = seed_;
  s.stream = stream_;
  s.counter = counter_;
  s.buffer_pos = buffer_pos_;
  s.has_cached_normal = has_cached_normal_;
  s.cached_normal = has_cached_normal_ ? cached_normal_ : 0.0;
  return s;
}

void Rng::set_state(const RngState& s) {
  TAPIR_CHECK(s.buffer_pos >= 0 && s.buffer_pos <= 4, "rng state buffer_pos ", s.buffer_pos,
              " is outside [0, 4]");
  TAPIR_CHECK(s.buffer_pos == 4 || s.counter >= 1,
              "rng state has a partly used block but counter 0");
  seed_ = s.seed;
  stream_ = s.stream;
  counter_ = s.counter;
  buffer_pos_ = s.buffer_pos;
  if (buffer_pos_ < 4) {
    buffer_ = block(counter_ - 1);
  }
  has_cached_normal_ = s.has_cached_normal;
  cached_normal_ = s.has_cached_normal ? s.cached_normal : 0.0;
}

}  // namespace tapir
