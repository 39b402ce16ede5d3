// Data-parallel training under MPI (optim/data_parallel.h).
#include "optim/data_parallel.h"

#include <algorithm>

#include "engine/device.h"
#include "engine/dispatch.h"
#include "engine/dist.h"
#include "engine/threads.h"

namespace tapir {

namespace {

// Copies rows [begin, end) of an array of `per_row` values per row.
template <typename T>
void copy_rows(const std::vector<T>& from, int64_t per_row, int64_t begin, int64_t end,
               std::vector<T>& to) {
  to.assign(from.begin() + begin * per_row, from.begin() + end * per_row);
}

double mask_sum(const std::vector<float>& mask) {
  double s = 0;
  for (float m : mask) s += m;
  return s;
}

}  // namespace

double take_rank_rows(const Batch& whole, Batch& mine) {
  const int ranks = dist::size();
  TAPIR_CHECK(whole.B >= ranks, "data-parallel training splits --batch ", whole.B,
              " among the ranks; it needs at least one row for each of the ", ranks, " ranks");
  const ChunkRange rows = parallel_chunk(whole.B, ranks, dist::rank());
  mine.B = rows.end - rows.begin;
  mine.T = whole.T;
  mine.n = whole.n;
  copy_rows(whole.tokens, whole.T, rows.begin, rows.end, mine.tokens);
  copy_rows(whole.targets, whole.T, rows.begin, rows.end, mine.targets);
  copy_rows(whole.mask, whole.T, rows.begin, rows.end, mine.mask);
  copy_rows(whole.group, 1, rows.begin, rows.end, mine.group);
  if (whole.n > 0) {
    copy_rows(whole.inputs, whole.T * whole.n, rows.begin, rows.end, mine.inputs);
    copy_rows(whole.values, whole.T * whole.n, rows.begin, rows.end, mine.values);
  } else {
    mine.inputs.clear();
    mine.values.clear();
  }
  const double total = mask_sum(whole.mask);
  return total > 0 ? mask_sum(mine.mask) / total : 0.0;
}

namespace {

// The gradients the ranks sum, in the same order on every rank.
std::vector<Tensor> gradient_holders(const std::vector<Parameter*>& params) {
  std::vector<Tensor> out;
  for (const Parameter* p : params)
    if (p->has_gradient()) out.push_back(p->tensor());
  return out;
}

// On a device: the same buffer in its memory, summed there (cuda: by NCCL,
// in its order).
double sum_on_device(const std::vector<Tensor>& trained, float scale, float scaled_loss) {
  const Device device = trained.front().device();
  int64_t total = 1;  // the loss
  for (const Tensor& t : trained) total += t.numel();
  const HeapTensor flat(Shape({total}), DType::f32, false, device);
  float* f = flat.view().data<float>();
  int64_t at = 0;
  for (const Tensor& t : trained) {
    TAPIR_KERNEL(device, affine_forward<float>, t.grad<float>(), t.numel(), scale, 0.0f, f + at);
    at += t.numel();
  }
  copy_bytes_to(device, f + at, &scaled_loss, sizeof(float));
  sum_over_ranks_on(device, f, total);
  at = 0;
  for (const Tensor& t : trained) {
    copy_bytes_within(device, t.grad<float>(), f + at, t.nbytes());
    at += t.numel();
  }
  float summed = 0;
  copy_bytes_from(device, &summed, f + at, sizeof(float));
  return summed;
}

}  // namespace

double sum_over_ranks(const std::vector<Parameter*>& params, double share, double loss) {
  const std::vector<Tensor> trained = gradient_holders(params);
  const float scale = static_cast<float>(share);
  const float scaled_loss = static_cast<float>(share * loss);
  if (!trained.empty() && trained.front().device() == Device::cuda)
    return sum_on_device(trained, scale, scaled_loss);
  // One buffer: every trained gradient, then share * loss.
  thread_local std::vector<float> flat;
  flat.clear();
  for (const Tensor& t : trained) {
    const float* g = t.host_grad<float>();
    for (int64_t i = 0; i < t.numel(); ++i) flat.push_back(g[i] * scale);
  }
  flat.push_back(scaled_loss);
  dist::sum_in_rank_order(flat.data(), static_cast<int64_t>(flat.size()));
  size_t at = 0;
  for (const Tensor& t : trained) {
    std::copy_n(flat.data() + at, t.numel(), t.host_grad<float>());
    at += static_cast<size_t>(t.numel());
  }
  return flat.back();
}

}  // namespace tapir
