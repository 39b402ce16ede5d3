// Layout kernels: transpose of the last two axes, block copies along an axis
// (concat and slice), masked fill.
#include "engine/kernels.h"
#include "engine/threads.h"

namespace tapir::cpu {

template <typename T>
void transpose_last2(const T* x, int64_t batch, int64_t R, int64_t C, T* out, bool accumulate) {
  parallel_for(batch, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const T* px = x + b * R * C;
      T* po = out + b * R * C;
      for (int64_t r = 0; r < R; ++r)
        for (int64_t c = 0; c < C; ++c) {
          if (accumulate)
            po[c * R + r] += px[r * C + c];
          else
            po[c * R + r] = px[r * C + c];
        }
    }
  });
}

template <typename T>
void copy_axis_block(const T* src, int64_t outer, int64_t n_src, int64_t src_offset, T* dst,
                     int64_t n_dst, int64_t dst_offset, int64_t n_copy, int64_t inner,
                     bool accumulate) {
  parallel_for(outer, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const T* ps = src + (o * n_src + src_offset) * inner;
      T* pd = dst + (o * n_dst + dst_offset) * inner;
      const int64_t len = n_copy * inner;
      if (accumulate)
        for (int64_t i = 0; i < len; ++i) pd[i] += ps[i];
      else
        for (int64_t i = 0; i < len; ++i) pd[i] = ps[i];
    }
  });
}

template <typename T>
void masked_fill_forward(const T* x, int64_t n, const int32_t* mask, int64_t n_mask, T value,
                         T* out) {
  for (int64_t base = 0; base < n; base += n_mask)
    for (int64_t i = 0; i < n_mask; ++i) out[base + i] = mask[i] ? value : x[base + i];
}

template <typename T>
void masked_fill_backward(const T* d_out, int64_t n, const int32_t* mask, int64_t n_mask, T* d_x) {
  for (int64_t base = 0; base < n; base += n_mask)
    for (int64_t i = 0; i < n_mask; ++i)
      if (!mask[i]) d_x[base + i] += d_out[base + i];
}

TAPIR_INSTANTIATE_FLOAT_KERNEL(transpose_last2);
TAPIR_INSTANTIATE_FLOAT_KERNEL(copy_axis_block);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_forward);
TAPIR_INSTANTIATE_FLOAT_KERNEL(masked_fill_backward);

}  // namespace tapir::cpu
