#include "engine/arena.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/cuda/runtime.h"

namespace tapir {

namespace {
size_t round_up(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}
}  // namespace

Arena::Arena(size_t initial_bytes, bool on_device)
    : initial_bytes_(initial_bytes), on_device_(on_device) {
  if (!on_device_) add_block(initial_bytes);
}

Arena::~Arena() {
  for (auto& b : blocks_) free_block(b);
}

void Arena::free_block(Block& b) {
  if (on_device_)
    cuda::device_free(b.data);
  else
    std::free(b.data);
}

void Arena::add_block(size_t min_bytes) {
  size_t size = round_up(min_bytes < (size_t{1} << 20) ? size_t{1} << 20 : min_bytes, kAlign);
  auto* data = static_cast<uint8_t*>(on_device_ ? cuda::device_alloc(size)
                                                : std::aligned_alloc(kAlign, size));
  if (!data) throw std::bad_alloc();
  blocks_.push_back({data, size});
  ++block_allocations_;
}

void* Arena::take_recycled(size_t rounded_bytes) {
  for (size_t k = recycled_.size(); k-- > 0;) {
    if (recycled_[k].size != rounded_bytes) continue;
    void* p = recycled_[k].data;
    recycled_.erase(recycled_.begin() + static_cast<std::ptrdiff_t>(k));
    return p;
  }
  return nullptr;
}

void Arena::recycle(void* p, size_t bytes) {
  if (p) recycled_.push_back({static_cast<uint8_t*>(p), round_up(bytes == 0 ? 1 : bytes, kAlign)});
}

void* Arena::allocate(size_t bytes) {
  bytes = round_up(bytes == 0 ? 1 : bytes, kAlign);
  if (void* p = take_recycled(bytes)) return p;
  if (blocks_.empty()) add_block(bytes > initial_bytes_ ? bytes : initial_bytes_);
  while (offset_ + bytes > blocks_[current_].size) {
    used_before_current_ += offset_;
    offset_ = 0;
    if (current_ + 1 == blocks_.size()) {
      // Grow geometrically so a step that overflows needs few new blocks.
      size_t grow = blocks_[current_].size * 2;
      add_block(bytes > grow ? bytes : grow);
    }
    ++current_;
  }
  void* p = blocks_[current_].data + offset_;
  offset_ += bytes;
  if (bytes_in_use() > high_water_) high_water_ = bytes_in_use();
  return p;
}

void* Arena::allocate_zeroed(size_t bytes) {
  void* p = allocate(bytes);
  if (on_device_)
    cuda::memset_device(p, 0, bytes);
  else
    std::memset(p, 0, bytes);
  return p;
}

void Arena::reset() {
  recycled_.clear();
  if (blocks_.size() > 1) {
    size_t total = 0;
    for (auto& b : blocks_) total += b.size;
    for (auto& b : blocks_) free_block(b);
    blocks_.clear();
    add_block(total > high_water_ ? total : high_water_);
  }
  current_ = 0;
  offset_ = 0;
  used_before_current_ = 0;
}

size_t Arena::capacity() const {
  size_t total = 0;
  for (auto& b : blocks_) total += b.size;
  return total;
}

}  // namespace tapir
