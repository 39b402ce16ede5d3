// Denoise: a regression task standing in for video denoising with unrolled
// transformers (docs/constraints.md). The model reads T noisy frames of n
// values (input = clean + sigma * noise, the signal of tasks/denoise.h) and
// outputs the clean frames at every position; the loss is the mean squared
// error, the metric the RMSE. Out of distribution is a larger sigma at test
// time: the evaluation splits are "test" (the training sigma) and test_s<g>
// for each g in test-sigmas. Every test split holds the same clean
// sequences and the same standard-normal noise, scaled by its own sigma, so
// results across sigma differ only by the noise level.
//
// accuracy: the share of sequences the model improves, whose output is closer
// to the clean frames (mean squared error) than its input is; token accuracy:
// the same per frame. With sigma = 0 nothing can be improved.
#include "tasks/denoise.h"

#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "base/error.h"
#include "tasks/generated.h"
#include "tasks/task.h"

namespace tapir {

DenoiseSignal::DenoiseSignal(int64_t frames, int64_t dim, int64_t atoms, int64_t active, double rho,
                             uint64_t data_seed)
    : frames_(frames), dim_(dim), atoms_(atoms), active_(active), rho_(rho) {
  Rng rng(data_seed, 0);
  dictionary_.resize(static_cast<size_t>(atoms * dim));
  for (int64_t k = 0; k < atoms; ++k) {
    float* atom = dictionary_.data() + k * dim;
    rng.fill_normal(atom, dim, 0.0f, 1.0f);
    double norm = 0;
    for (int64_t i = 0; i < dim; ++i) norm += double(atom[i]) * double(atom[i]);
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < dim; ++i) atom[i] = static_cast<float>(atom[i] / norm);
  }
}

double DenoiseSignal::scale() const {
  return std::sqrt(double(dim_) / double(active_));
}

void DenoiseSignal::draw(Rng& rng, Sequence& out) const {
  // The support: the first s entries of a partial Fisher-Yates shuffle.
  std::vector<int32_t> ids(static_cast<size_t>(atoms_));
  std::iota(ids.begin(), ids.end(), 0);
  for (int64_t j = 0; j < active_; ++j)
    std::swap(ids[static_cast<size_t>(j)], ids[static_cast<size_t>(j + rng.randint(atoms_ - j))]);
  out.support.assign(ids.begin(), ids.begin() + active_);
  out.amplitude.resize(static_cast<size_t>(frames_ * active_));
  const double innovation = std::sqrt(1.0 - rho_ * rho_);
  for (int64_t j = 0; j < active_; ++j) {
    double a = rng.normal();
    for (int64_t t = 0; t < frames_; ++t) {
      if (t > 0) a = rho_ * a + innovation * rng.normal();
      out.amplitude[static_cast<size_t>(t * active_ + j)] = static_cast<float>(a);
    }
  }
  out.clean.assign(static_cast<size_t>(frames_ * dim_), 0.0f);
  for (int64_t t = 0; t < frames_; ++t) {
    for (int64_t i = 0; i < dim_; ++i) {
      double x = 0;
      for (int64_t j = 0; j < active_; ++j)
        x += double(out.amplitude[static_cast<size_t>(t * active_ + j)]) *
             double(
                 dictionary_[static_cast<size_t>(out.support[static_cast<size_t>(j)] * dim_ + i)]);
      out.clean[static_cast<size_t>(t * dim_ + i)] = static_cast<float>(scale() * x);
    }
  }
  out.noise.resize(static_cast<size_t>(frames_ * dim_));
  rng.fill_normal(out.noise.data(), frames_ * dim_, 0.0f, 1.0f);
}

namespace {

std::string sigma_split(double sigma) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", sigma);
  std::string name = "test_s";
  name += buf;
  return name;
}

class Denoise final : public GeneratedTask {
 public:
  explicit Denoise(const TaskOptions& o)
      : signal_(o.get_int("frames", 16, 1, 4096), o.get_int("dim", 16, 1, 4096),
                o.get_int("atoms", 32, 1, 65536), o.get_int("active", 3, 1, 65536),
                o.get_double("rho", 0.9, 0.0, 0.999),
                static_cast<uint64_t>(o.get_int("data-seed", 0, 0, INT64_MAX))),
        sigma_(o.get_double("sigma", 0.5, 0.0, 100.0)),
        test_sigmas_(o.get_double_list("test-sigmas", "0.25,1,1.5,2", 0.0, 100.0)),
        eval_size_(o.get_int("eval-size", 512, 1, 10'000'000)),
        data_seed_(static_cast<uint64_t>(o.get_int("data-seed", 0, 0, INT64_MAX))) {
    TAPIR_CHECK(signal_.active() <= signal_.atoms(), "option active = ", signal_.active(),
                " is above atoms = ", signal_.atoms());
  }

  std::string name() const override { return "denoise"; }
  std::string describe() const override {
    std::string sigmas;
    for (double s : test_sigmas_) {
      if (!sigmas.empty()) sigmas += ",";
      sigmas += sigma_split(s).substr(6);
    }
    return "denoise frames=" + std::to_string(signal_.frames()) +
           " dim=" + std::to_string(signal_.dim()) + " atoms=" + std::to_string(signal_.atoms()) +
           " active=" + std::to_string(signal_.active()) + " rho=" + std::to_string(signal_.rho()) +
           " sigma=" + std::to_string(sigma_) + " test-sigmas=" + sigmas +
           " eval-size=" + std::to_string(eval_size_) + " data-seed=" + std::to_string(data_seed_);
  }
  const Vocab& vocab() const override { return vocab_; }
  int32_t pad_token() const override { return 0; }
  int64_t max_length() const override { return signal_.frames(); }
  int64_t frame_dim() const override { return signal_.dim(); }
  std::vector<std::string> eval_splits() const override {
    std::vector<std::string> splits = {"test"};
    for (double s : test_sigmas_) splits.push_back(sigma_split(s));
    return splits;
  }

  void score(const Batch& batch, const float* /*outputs*/, const float* losses,
             EvalTally& tally) const override {
    const int64_t n = batch.n;
    for (int64_t b = 0; b < batch.B; ++b) {
      Tally one;
      one.examples = 1;
      double output_err = 0, input_err = 0;
      for (int64_t t = 0; t < batch.T; ++t) {
        const int64_t i = batch.at(b, t);
        if (batch.mask[i] == 0.0f) continue;
        double in = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double d = double(batch.inputs[i * n + k]) - double(batch.values[i * n + k]);
          in += d * d;
        }
        in /= double(n);
        one.tokens += 1;
        one.tokens_correct += losses[i] < in;
        one.loss_sum += losses[i];
        one.loss_tokens += 1;
        output_err += losses[i];
        input_err += in;
      }
      one.correct = output_err < input_err;
      tally.add(one);
    }
  }

 protected:
  int64_t eval_set_size() const override { return eval_size_; }
  uint64_t data_seed() const override { return data_seed_; }
  // Every test split holds the same sequences: the stream of "test".
  int eval_stream(int /*split*/) const override { return kTestSplit; }
  int64_t row_length(int /*split*/) const override { return signal_.frames(); }
  void write_row(int split, int64_t /*index*/, Rng& rng, int64_t b, Batch& out) const override {
    DenoiseSignal::Sequence seq;
    signal_.draw(rng, seq);
    write(seq, sigma_of(split), b, out);
  }

  // The per-frame errors are in losses; the outputs themselves are not needed.

 private:
  // train, arch and test: the training sigma; test_s<g>: g.
  double sigma_of(int split) const {
    return split <= kTestSplit ? sigma_ : test_sigmas_[static_cast<size_t>(split - kTestSplit - 1)];
  }

  void write(const DenoiseSignal::Sequence& seq, double sigma, int64_t b, Batch& out) const {
    const int64_t size = signal_.frames() * signal_.dim();
    float* in = out.inputs.data() + b * size;
    float* values = out.values.data() + b * size;
    for (int64_t i = 0; i < size; ++i) {
      const auto k = static_cast<size_t>(i);
      values[i] = seq.clean[k];
      in[i] = static_cast<float>(double(seq.clean[k]) + sigma * double(seq.noise[k]));
    }
    for (int64_t t = 0; t < signal_.frames(); ++t) out.mask[out.at(b, t)] = 1.0f;
  }

  DenoiseSignal signal_;
  double sigma_;
  std::vector<double> test_sigmas_;
  int64_t eval_size_;
  uint64_t data_seed_;
  Vocab vocab_;
};

}  // namespace

TAPIR_REGISTER_TASK(kDenoiseTask, "denoise",
                    "recover clean frames (sparse in a random dictionary) from noisy ones "
                    "(regression, MSE)",
                    make_task_of<Denoise>, {"--schedule", "cosine"}, {"--min-lr-ratio", "0.05"});

}  // namespace tapir
