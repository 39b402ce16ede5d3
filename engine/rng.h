// Counter-based random numbers for tapir: Philox-4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11) and the Rng that every part of the stack draws from.
// Sits at the bottom of the stack next to dtype.h; nothing here knows about tensors.
//
// Determinism. The numbers an Rng returns are a pure function of (seed, stream) and of the
// sequence of calls made on that object. Block b of stream s under seed k is
//   philox4x32_10({lo(b), hi(b), lo(s), hi(s)}, {lo(k), hi(k)})
// and its four words are handed out in order 0..3. Integer draws (next_u32, next_u64,
// randint, permutation) and uniform/uniform_f64 use integer arithmetic and exact scaling
// only, so they are bit-identical on every platform. normal() goes through std::log,
// std::sqrt, std::cos and std::sin, so it is bit-identical for a given C library; another
// libm may differ in the last bit.
//
// Streams. The stream number fills the high 64 bits of the Philox counter and the block
// index the low 64 bits, so two streams of one seed never share a counter value: they
// cannot overlap, and what one stream returns never depends on what was drawn from another.
// Use one stream per purpose (say 0 = parameter init, 1 = data order, 2 = dropout,
// 3 = sampling): then adding a draw to one purpose, e.g. a new dropout layer, leaves the
// numbers of every other purpose unchanged. split(child) derives further streams from one
// (per worker, per task generator, per layer) without coordinating stream numbers by hand.
//
// Resuming. state() captures everything needed to continue the exact sequence, including a
// partly used Philox block and the cached second Box-Muller value; to_words() turns it into
// int32 words that fit an i32 tensor in a checkpoint.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tapir {

// One Philox-4x32 block with 10 rounds: a bijection of the counter for each key.
std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// The splitmix64 finalizer (Steele et al.): a bijection of 64-bit words that scrambles
// nearby inputs into unrelated outputs. Used to derive child streams.
uint64_t splitmix64(uint64_t x);

// Everything an Rng needs to continue its sequence. The current Philox block is not stored:
// it is recomputed from (seed, stream, counter - 1) when buffer_pos < 4.
struct RngState {
  uint64_t seed = 0;
  uint64_t stream = 0;
  uint64_t counter = 0;    // number of Philox blocks generated so far
  int32_t buffer_pos = 4;  // next word of the current block to hand out; 4 = block used up
  bool has_cached_normal = false;
  double cached_normal = 0.0;

  static constexpr int32_t kFormatVersion = 1;
  static constexpr size_t kNumWords = 11;

  // Layout: version, seed lo/hi, stream lo/hi, counter lo/hi, buffer_pos, has_cached_normal,
  // cached_normal bits lo/hi. Each 32-bit half is stored with its bits unchanged. Words are
  // int32 because i32 is the integer dtype a checkpoint tensor can hold.
  std::vector<int32_t> to_words() const;
  static RngState from_words(const int32_t* words, size_t n);
  static RngState from_words(const std::vector<int32_t>& words);
};

bool operator==(const RngState& a, const RngState& b);

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0);

  uint32_t next_u32();
  uint64_t next_u64();   // low half from the first next_u32, high half from the second
  float uniform();       // [0, 1), 24 random bits from one next_u32
  double uniform_f64();  // [0, 1), 53 random bits from one next_u64

  // Standard normal by Box-Muller from two uniform_f64 draws. Each pair of uniforms gives
  // two normals; the second is cached, returned by the next call, and part of state().
  double normal();

  // Uniform on [0, n) for n >= 1, without modulo bias: draws that fall in the incomplete
  // last copy of [0, n) are rejected. Uses next_u32 when n <= 2^32, next_u64 otherwise.
  int64_t randint(int64_t n);

  // A uniformly random permutation of 0..n-1 (Fisher-Yates, swapping i with randint(i + 1)
  // for i = n-1 down to 1). n must fit in int32.
  void permutation(int64_t n, int32_t* out);
  std::vector<int32_t> permutation(int64_t n);

  // out[i] = lo + (hi - lo) * u in [lo, hi) for T = float (u from uniform) or double (u from
  // uniform_f64); a value that rounds up to hi is replaced by the largest T below hi.
  template <typename T>
  void fill_uniform(T* out, int64_t n, T lo, T hi);
  // out[i] = mean + std * normal(), computed in double: the same draws as n calls to normal().
  template <typename T>
  void fill_normal(T* out, int64_t n, T mean, T std);

  // A new Rng on stream splitmix64(splitmix64(stream) ^ child) of the same seed. It depends
  // only on (seed, stream, child), not on what has been drawn; distinct children of one
  // parent get distinct streams (splitmix64 is a bijection), and a child meets its parent or
  // another chosen stream only with chance about 2^-64 per pair.
  Rng split(uint64_t child) const;

  uint64_t seed() const { return seed_; }
  uint64_t stream() const { return stream_; }

  RngState state() const;
  void set_state(const RngState& state);

 private:
  std::array<uint32_t, 4> block(uint64_t index) const;  // block `index` of this stream
  void refill();

  uint64_t seed_;
  uint64_t stream_;
  uint64_t counter_ = 0;
  std::array<uint32_t, 4> buffer_{};
  int32_t buffer_pos_ = 4;
  bool has_cached_normal_ = false;
  double cached_normal_ = 0.0;
};

extern template void Rng::fill_uniform<float>(float*, int64_t, float, float);
extern template void Rng::fill_uniform<double>(double*, int64_t, double, double);
extern template void Rng::fill_normal<float>(float*, int64_t, float, float);
extern template void Rng::fill_normal<double>(double*, int64_t, double, double);

}  // namespace tapir
