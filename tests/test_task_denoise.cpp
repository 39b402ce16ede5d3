// Tests of the denoise task (tasks/denoise.{h,cpp}): the clean frames are
// sparse in the fixed dictionary (exactly s atoms, the AR(1) amplitudes),
// have unit RMS, the noise has the stated standard deviation, the test splits
// share the clean signal and scale one noise draw, and the same seed gives
// the same data.
#include "tasks/denoise.h"

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "task_checks.h"

using namespace task_checks;

namespace {

double mean_square(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i)
    sum += (double(a[i]) - double(b[i])) * (double(a[i]) - double(b[i]));
  return sum / double(a.size());
}

}  // namespace

TEST_CASE("denoise signal: unit atoms, s distinct atoms per sequence, frames = scale * D a") {
  const tapir::DenoiseSignal signal(12, 10, 20, 3, 0.8, 4);
  const std::vector<float>& D = signal.dictionary();
  REQUIRE(D.size() == 200);
  for (int k = 0; k < 20; ++k) {
    double norm = 0;
    for (int i = 0; i < 10; ++i) norm += double(D[k * 10 + i]) * double(D[k * 10 + i]);
    CHECK(norm == doctest::Approx(1.0).epsilon(1e-6));
  }
  tapir::Rng rng(1, 1);
  tapir::DenoiseSignal::Sequence seq;
  double square_sum = 0, lag_sum = 0, amp_square = 0;
  int count = 0, lags = 0;
  for (int draw = 0; draw < 400; ++draw) {
    signal.draw(rng, seq);
    REQUIRE(seq.support.size() == 3);
    CHECK(std::set<int32_t>(seq.support.begin(), seq.support.end()).size() == 3);
    for (int32_t k : seq.support) CHECK((k >= 0 && k < 20));
    for (int t = 0; t < 12; ++t) {
      for (int i = 0; i < 10; ++i) {
        double x = 0;
        for (int j = 0; j < 3; ++j)
          x += double(seq.amplitude[t * 3 + j]) * double(D[seq.support[j] * 10 + i]);
        REQUIRE(seq.clean[t * 10 + i] == doctest::Approx(signal.scale() * x).epsilon(1e-5));
        square_sum += double(seq.clean[t * 10 + i]) * double(seq.clean[t * 10 + i]);
        ++count;
      }
      for (int j = 0; j < 3; ++j) {
        amp_square += double(seq.amplitude[t * 3 + j]) * double(seq.amplitude[t * 3 + j]);
        if (t > 0) {
          lag_sum += double(seq.amplitude[t * 3 + j]) * double(seq.amplitude[(t - 1) * 3 + j]);
          ++lags;
        }
      }
    }
  }
  CHECK(signal.scale() == doctest::Approx(std::sqrt(10.0 / 3.0)));
  // Unit RMS per entry, unit amplitude variance, lag-1 correlation rho.
  CHECK(std::sqrt(square_sum / count) == doctest::Approx(1.0).epsilon(0.06));
  CHECK(amp_square / (400 * 12 * 3) == doctest::Approx(1.0).epsilon(0.06));
  CHECK(lag_sum / lags == doctest::Approx(0.8).epsilon(0.06));
}

TEST_CASE("denoise batches: noise of std sigma, shared clean frames across test sigmas") {
  auto task = make("denoise", {{"sigma", "0.5"}, {"test-sigmas", "0,1,2"}, {"eval-size", "64"}});
  CHECK(task->frame_dim() == 16);
  CHECK(task->is_regression());
  CHECK(task->max_length() == 16);
  CHECK(task->eval_splits() == std::vector<std::string>{"test", "test_s0", "test_s1", "test_s2"});
  const Batch train = sample(*task, "train", 256, 3);
  REQUIRE(train.n == 16);
  REQUIRE(train.inputs.size() == size_t(256 * 16 * 16));
  for (float m : train.mask) CHECK(m == 1.0f);
  double mean = 0;
  for (size_t i = 0; i < train.inputs.size(); ++i)
    mean += double(train.inputs[i]) - double(train.values[i]);
  mean /= double(train.inputs.size());
  CHECK(std::abs(mean) < 0.01);
  CHECK(std::sqrt(mean_square(train.inputs, train.values)) == doctest::Approx(0.5).epsilon(0.02));
  CHECK(std::sqrt(mean_square(train.values, std::vector<float>(train.values.size(), 0.0f))) ==
        doctest::Approx(1.0).epsilon(0.1));

  const Batch test = eval_all(*task, "test"), s0 = eval_all(*task, "test_s0"),
              s2 = eval_all(*task, "test_s2");
  CHECK(test.values == s2.values);
  CHECK(s0.inputs == s0.values);  // sigma 0: nothing to remove
  for (size_t i = 0; i < test.inputs.size(); ++i)
    REQUIRE(double(s2.inputs[i]) - double(s2.values[i]) ==
            doctest::Approx(4.0 * (double(test.inputs[i]) - double(test.values[i]))).epsilon(1e-4));
}

TEST_CASE("denoise: the same seed gives the same data, another seed other data") {
  auto a = make("denoise", {{"data-seed", "5"}, {"eval-size", "16"}});
  auto b = make("denoise", {{"data-seed", "5"}, {"eval-size", "16"}});
  auto other = make("denoise", {{"data-seed", "6"}, {"eval-size", "16"}});
  const Batch ea = eval_all(*a, "test"), eb = eval_all(*b, "test"), eo = eval_all(*other, "test");
  CHECK(ea.inputs == eb.inputs);
  CHECK(ea.values == eb.values);
  CHECK(ea.values != eo.values);
  const Batch sa = sample(*a, "train", 8, 1), sb = sample(*b, "train", 8, 1);
  CHECK(sa.inputs == sb.inputs);
  CHECK(sa.inputs != sample(*a, "train", 8, 2).inputs);
  Batch slice;
  a->eval_batch("test", 3, 5, slice);
  const size_t frame = 16 * 16;
  CHECK(std::vector<float>(slice.values.begin(), slice.values.end()) ==
        std::vector<float>(ea.values.begin() + 3 * frame, ea.values.begin() + 8 * frame));
}

TEST_CASE("denoise: score counts improved sequences and averages per-frame errors") {
  auto task = make("denoise", {{"frames", "2"}, {"dim", "2"}, {"atoms", "2"}, {"active", "1"}});
  Batch batch;
  batch.reset_frames(2, 2, 2);
  for (float& m : batch.mask) m = 1.0f;
  batch.inputs = {1, 1, 1, 1, 0, 0, 0, 0};  // row 0 off by 1 everywhere, row 1 exact
  const float losses[4] = {0.5f, 0.25f, 0.1f, 0.3f};
  tapir::EvalTally tally;
  task->score(batch, nullptr, losses, tally);
  CHECK(tally.all.examples == 2);
  CHECK(tally.all.correct == 1);  // row 0: 0.375 < 1; row 1: 0.2 > 0
  CHECK(tally.all.tokens == 4);
  CHECK(tally.all.tokens_correct == 2);
  CHECK(tally.all.loss() == doctest::Approx((0.5 + 0.25 + 0.1 + 0.3) / 4));
}

TEST_CASE("denoise: bad options and splits are refused by name") {
  check_rejected("denoise", {{"active", "5"}, {"atoms", "4"}}, "active");
  check_rejected("denoise", {{"sigma", "-1"}}, "sigma");
  check_rejected("denoise", {{"test-sigmas", "1,,2"}}, "test-sigmas");
  check_rejected("denoise", {{"rho", "1"}}, "rho");
  CHECK_THROWS_WITH_AS(make("denoise")->eval_size("test_s9"), doctest::Contains("test_s9"),
                       tapir::Error);
}
