// `tapir selfcheck`: the engine's end-to-end self-check (lab/selfcheck.h).
#include <cstdio>

#include "engine/threads.h"
#include "lab/selfcheck.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_selfcheck_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "selfcheck", "Train a 2-layer MLP through the tape on a 1-D regression problem");
  struct Options {
    int steps = 3000;
    uint64_t seed = 1;
    int threads = 1;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--steps", o->steps, "SGD steps")->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed, "Seed for the initial weights");
  add_threads_option(*cmd, o->threads);
  return {cmd, [o]() {
            set_num_threads(o->threads);
            std::printf(
                "self-check: 1-32-1 tanh MLP, y = sin(3x), 64 points, SGD lr 0.1 "
                "(lab/selfcheck.cpp: the model, the loss and the loop on the tape, in one file)\n");
            SelfcheckResult r = run_selfcheck(o->steps, o->seed, [](int step, double loss) {
              std::printf("  step %5d  mse %.6f\n", step, loss);
            });
            const bool ok = r.final_loss < 0.01;
            std::printf("%s: mse %.6f -> %.6f after %d steps (target < 0.01)\n",
                        ok ? "ok" : "FAILED", r.initial_loss, r.final_loss, r.steps);
            return ok ? 0 : 1;
          }};
}

}  // namespace tapir
