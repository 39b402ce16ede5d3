#include "nn/positions.h"

#include <cmath>

namespace tapir {

void sinusoidal_table(int64_t rows, int64_t width, double scale, float* table) {
  for (int64_t t = 0; t < rows; ++t)
    for (int64_t c = 0; c < width; ++c) {
      const int64_t pair = c / 2;
      const double angle = double(t) / std::pow(10000.0, double(2 * pair) / double(width));
      table[t * width + c] =
          static_cast<float>(scale * (c % 2 == 0 ? std::sin(angle) : std::cos(angle)));
    }
}

namespace {
std::vector<double> power_of_two_slopes(int64_t n) {
  std::vector<double> s(static_cast<size_t>(n));
  const double start = std::pow(2.0, -8.0 / double(n));
  for (int64_t i = 0; i < n; ++i) s[static_cast<size_t>(i)] = std::pow(start, double(i + 1));
  return s;
}
}  // namespace

std::vector<double> alibi_slopes(int64_t heads) {
  int64_t m = 1;
  while (m * 2 <= heads) m *= 2;
  std::vector<double> slopes = power_of_two_slopes(m);
  if (m == heads) return slopes;
  const std::vector<double> finer = power_of_two_slopes(2 * m);
  for (int64_t i = 0; static_cast<int64_t>(slopes.size()) < heads; i += 2)
    slopes.push_back(finer[static_cast<size_t>(i)]);
  return slopes;
}

}  // namespace tapir
