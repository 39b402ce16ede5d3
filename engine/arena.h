// Arena: a bump allocator for one training step's temporaries (activations,
// their gradients, tape bookkeeping). Allocation is a pointer bump; reset()
// frees everything at once. After the first step the arena owns one block as
// large as the step's high-water mark, so later steps never call malloc.
//
// Parameters and optimizer state do not live here: they are HeapTensors
// (engine/tensor.h) with their own lifetime.
//
// A device arena (on_device) bumps through GPU blocks from the CUDA caching
// allocator (engine/cuda/runtime.h) instead; it takes its first block on
// first use, so a CPU-only program never touches CUDA.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tapir {

class Arena {
 public:
  static constexpr size_t kAlign = 64;  // a cache line; also AVX-512 friendly

  explicit Arena(size_t initial_bytes = size_t{1} << 20, bool on_device = false);
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  // Uninitialised, kAlign-aligned memory valid until the next reset().
  void* allocate(size_t bytes);
  // Same, zero-filled.
  void* allocate_zeroed(size_t bytes);

  // Gives back memory from allocate() or allocate_zeroed() before reset(),
  // once nothing will read it again: the next request of the same rounded
  // size takes it, latest first (warm in cache), instead of new memory. A
  // backward pass gives back each activation's gradient once it has been
  // used, so the step's high-water mark holds the gradients that are alive
  // at once, not all of them.
  void recycle(void* p, size_t bytes);

  // Releases every allocation. If the step needed more than one block, the
  // blocks are merged into one of the total size so the next step fits.
  void reset();

  size_t bytes_in_use() const { return used_before_current_ + offset_; }
  size_t high_water_mark() const { return high_water_; }
  size_t capacity() const;
  // How many blocks were malloc'ed since construction: a test checks it
  // stops growing after the first step.
  int64_t block_allocations() const { return block_allocations_; }

 private:
  struct Block {
    uint8_t* data;
    size_t size;
  };
  void add_block(size_t min_bytes);

  void free_block(Block& b);
  void* take_recycled(size_t rounded_bytes);

  size_t initial_bytes_;
  bool on_device_;
  std::vector<Block> blocks_;
  std::vector<Block> recycled_;  // given back this step; keeps its capacity
  size_t current_ = 0;           // index of the block being bumped
  size_t offset_ = 0;            // bytes used in the current block
  size_t used_before_current_ = 0;
  size_t high_water_ = 0;
  int64_t block_allocations_ = 0;
};

}  // namespace tapir
