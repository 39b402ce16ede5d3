// The `tapir` command. Subcommands are CLI11 apps; each prints a one-line
// error and exits non-zero on bad input.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "engine/error.h"
#include "engine/threads.h"
#include "tools/selfcheck.h"

int main(int argc, char** argv) {
  CLI::App app{"tapir: a from-scratch tensor engine and lab for transformers' inductive biases"};
  app.require_subcommand(1);
  int threads = tapir::default_num_threads();
  app.add_option("--threads", threads, "Threads for kernels and BLAS")->check(CLI::Range(1, 256));

  auto* selfcheck = app.add_subcommand(
      "selfcheck", "Train a 2-layer MLP through the tape on a 1-D regression problem");
  int steps = 3000;
  uint64_t seed = 1;
  selfcheck->add_option("--steps", steps, "SGD steps")->check(CLI::Range(1, 1000000));
  selfcheck->add_option("--seed", seed, "Seed for the initial weights");

  CLI11_PARSE(app, argc, argv);
  try {
    tapir::set_num_threads(threads);
    if (*selfcheck) {
      std::printf("self-check: 1-32-1 tanh MLP, y = sin(3x), 64 points, SGD lr 0.1\n");
      auto r = tapir::run_selfcheck(steps, seed, [](int step, double loss) {
        std::printf("  step %5d  mse %.6f\n", step, loss);
      });
      const bool ok = r.final_loss < 0.01;
      std::printf("%s: mse %.6f -> %.6f after %d steps (target < 0.01)\n", ok ? "ok" : "FAILED",
                  r.initial_loss, r.final_loss, r.steps);
      return ok ? 0 : 1;
    }
  } catch (const tapir::Error& e) {
    std::fprintf(stderr, "tapir: %s\n", e.what());
    return 1;
  }
  return 0;
}
