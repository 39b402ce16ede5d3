// Position information that is not a learned table: the fixed sinusoidal
// table (Vaswani et al. 2017) and the ALiBi slopes (Press et al. 2022).
#pragma once
#include <cstdint>
#include <vector>

namespace tapir {

// table (rows, width): row t, column 2i = scale sin(t / 10000^(2i / width)),
// column 2i + 1 = scale cos(t / 10000^(2i / width)).
void sinusoidal_table(int64_t rows, int64_t width, double scale, float* table);

// The ALiBi slope of each head: for n a power of two the geometric series
// 2^(-8/n), 2^(-16/n), ..., 2^(-8); otherwise the series for
// m = 2^floor(log2 n) followed by every other slope of the series for 2m
// (its 1st, 3rd, ...) until there are n, as in the authors' code.
std::vector<double> alibi_slopes(int64_t heads);

}  // namespace tapir
