// `tapir bench`: training-step throughput of the benchmark configurations,
// matrix products (--gemm: lab/bench_gemm.h), or a Stage I search step
// (--search); the measurements are lab/bench.h's.
#include "lab/bench.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time training steps of the benchmark configurations");
  auto o = std::make_shared<BenchOptions>();
  cmd->add_option("--config", o->configs,
                  "Configurations: tiny, small, lm, main (the main job's model), search (the main "
                  "job's Stage I step)")
      ->check(CLI::IsMember(bench_config_names()))
      ->capture_default_str();
  add_names_option(*cmd, "--mlp-act", o->mlp_acts, "MLP activations to compare");
  add_names_option(*cmd, "--attn", o->attns, "Attention kernels to compare");
  cmd->add_option("--steps", o->steps, "Timed steps (median reported)")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--warmup", o->warmup, "Untimed warm-up steps")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  add_threads_option(*cmd, o->threads);
  add_device_option(*cmd, o->device, "Where to step");
  cmd->add_flag("--json", o->json, "One JSON object per run");
  cmd->add_flag(
      "--gemm", o->gemm,
      "Square sgemm GFLOP/s through tapir's matmul (split over --threads) vs one cblas call, "
      "then the main job's products through OpenBLAS, Eigen and libxsmm (one thread)");
  cmd->add_option("--search", o->search,
                  "Time a Stage I step of M models against M one-model steps")
      ->check(CLI::Range(1, 64));
  return {cmd, [o]() {
            run_bench(*o);
            return 0;
          }};
}

}  // namespace tapir
