// Pins OpenBLAS's kernels (engine/blas_kernels.h).
//
// Debian's OpenBLAS (built for every x86 core, DYNAMIC_ARCH) picks its
// kernel table in its library constructor, from OPENBLAS_CORETYPE or the
// CPU, before any code of the program runs. A constructor of the program
// runs next, before main() and before any product: it sets
// OPENBLAS_CORETYPE from TAPIR_BLAS_CORETYPE or to the build's core, checks
// that the CPU can run those kernels, and has OpenBLAS choose its table
// again (gotoblas_dynamic_quit, then gotoblas_dynamic_init, which reads the
// variable). An OpenBLAS built for one core has neither function and is
// left as it is: its kernels are fixed when it is built.
#include <cblas.h>
#include <strings.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/json.h"
#include "engine/blas_kernels.h"

// OpenBLAS's own, weak so that a build against an OpenBLAS without them
// links and runs unpinned.
extern "C" {
__attribute__((weak)) void gotoblas_dynamic_init(void);
__attribute__((weak)) void gotoblas_dynamic_quit(void);
}

namespace tapir {

namespace {

// The kernels of the build's CPU target: the best every machine that runs
// this build is sure to have.
const char* build_core() {
#if defined(__AVX2__) && defined(__FMA__)
  return "Haswell";
#elif defined(__SSE4_2__)
  return "Nehalem";
#else
  return "Prescott";
#endif
}

bool has_avx2_fma() {
  return __builtin_cpu_supports("avx2") != 0 && __builtin_cpu_supports("fma") != 0;
}

// The core names TAPIR_BLAS_CORETYPE takes, with what the CPU must have.
struct Core {
  const char* name;
  bool (*supported)();
};
const Core kCores[] = {
    {"Prescott", [] { return true; }},
    {"Nehalem", [] { return __builtin_cpu_supports("sse4.2") != 0; }},
    {"Sandybridge", [] { return __builtin_cpu_supports("avx") != 0; }},
    {"Haswell", has_avx2_fma},
    {"Zen", has_avx2_fma},
    {"SkylakeX", [] { return __builtin_cpu_supports("avx512f") != 0; }},
    {"Cooperlake", [] { return __builtin_cpu_supports("avx512bf16") != 0; }},
};

enum class Pin { build, named, machine, fixed };
Pin g_pin = Pin::build;

// Before main(): a message and exit code 2, as a bad flag.
[[noreturn]] void refuse(const char* what, const char* value) {
  std::string line = std::string("tapir: TAPIR_BLAS_CORETYPE: ") + what + " " + quoted(value) +
                     " (expected machine";
  for (const Core& c : kCores) line += std::string(", ") + c.name;
  line += ", and one this CPU can run)\n";
  (void)!::write(2, line.data(), line.size());
  ::_exit(2);
}

void pin_blas_kernels() {
  if (gotoblas_dynamic_init == nullptr || gotoblas_dynamic_quit == nullptr) {
    g_pin = Pin::fixed;
    return;
  }
  __builtin_cpu_init();
  const char* asked = std::getenv("TAPIR_BLAS_CORETYPE");
  if (asked != nullptr && std::strcmp(asked, "machine") == 0) {
    g_pin = Pin::machine;
    return;
  }
  const char* core = build_core();
  if (asked != nullptr) {
    const Core* found = nullptr;
    for (const Core& c : kCores)
      if (::strcasecmp(asked, c.name) == 0) found = &c;
    if (found == nullptr) refuse("unknown core type", asked);
    if (!found->supported()) refuse("this CPU cannot run the kernels of", asked);
    core = found->name;
    g_pin = Pin::named;
  }
  ::setenv("OPENBLAS_CORETYPE", core, 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
}

}  // namespace

std::string blas_kernels_description() {
  std::string core = openblas_get_corename();
  switch (g_pin) {
    case Pin::build:
      return core + " (pinned: the build's CPU target)";
    case Pin::named:
      return core + " (pinned: TAPIR_BLAS_CORETYPE)";
    case Pin::fixed:
      return core + " (fixed when this OpenBLAS was built)";
    case Pin::machine:
      break;
  }
  return core + " (OpenBLAS's choice: TAPIR_BLAS_CORETYPE=machine)";
}

}  // namespace tapir

// Before main() and every other constructor of the program (101: the first
// priority not reserved for the implementation).
__attribute__((constructor(101))) static void tapir_pin_blas() {
  tapir::pin_blas_kernels();
}
