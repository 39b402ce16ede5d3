// Built and run at configure time (cmake/cpu.cmake) and as the test
// codegen_check, with the project's own compile flags. It must print
// "1 1 1 1 0 0 0 0". Debian 12's GCC 12.2 prints eight ones when it generates
// AVX-512 code or tunes for an AVX-512 CPU (-march=x86-64-v4, -march=native
// on such a CPU, -march=x86-64-v3 -mtune=skylake-avx512): it stores a
// broadcast of the first value over the whole vector. Nothing proves tapir's
// own code free of the pattern, so such flags are refused. The program is
// the smallest known reproduction; do not add to main(): a comparison of the
// values changes the generated code and hides the bug. The caller compares
// the printed line.
#include <cstdio>
#include <vector>

int main() {
  std::vector<float> w = {1, 1, 1, 1, 0, 0, 0, 0};
  for (float x : w) std::printf("%g ", x);
  std::printf("\n");
}
