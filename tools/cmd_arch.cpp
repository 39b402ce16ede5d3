// `tapir arch`: work on architecture files (learned functions).
//   arch fit-poly FILE --degree D (--run DIR | --range LO,HI) [-o OUT]
//     fits a polynomial to each MLP function over the range its inputs
//     visit and writes a poly file that `tapir train --mlp-poly` uses.
//   arch import FILE.csv -o OUT: the authors' CSV functions
//     (tools/cmd_arch_import.cpp).
//   arch stats FILE [--range LO,HI] (tools/cmd_arch_stats.cpp)
//     prints the roughness of each function.
#include <memory>

#include "base/error.h"
#include "lab/poly_fit.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_arch_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("arch", "Work on architecture files (learned functions)");
  cmd->require_subcommand(1);
  auto* fit =
      cmd->add_subcommand("fit-poly", "Fit a polynomial to each MLP function where its inputs go");
  struct Options {
    std::string file, out, range;
    int degree = 0, threads = 1;
    PolyRangeSource source;
  };
  auto o = std::make_shared<Options>();
  const Command stats = add_arch_stats_subcommand(*cmd);
  const Command control = add_arch_control_subcommand(*cmd);
  fit->add_option("file", o->file, "Architecture file (arch.safetensors)")->required();
  fit->add_option("--degree", o->degree, "Degree of the polynomials (0 to 20)")
      ->required()
      ->check(CLI::Range(0, 20));
  auto* run = fit->add_option("--run", o->source.run,
                              "A run trained with these functions (--arch FILE): the range is "
                              "where their inputs go on its train batches");
  auto* range =
      fit->add_option("--range", o->range, "The range LO,HI for every function instead of --run");
  run->excludes(range);
  range->excludes(run);
  auto* central = fit->add_option(
      "--central", o->source.central,
      "With --run: fit over the central share Q of the inputs (0 < Q <= 1; 1: from the least to "
      "the greatest)");
  central->capture_default_str()->needs(run);
  fit->add_flag("--uniform", o->source.uniform,
                "With --run: weigh every point of the range the same (default: by how many "
                "inputs fell near it)")
      ->needs(run);
  fit->add_option("--batches", o->source.batches, "Train batches of --run to record")
      ->capture_default_str();
  fit->add_option("--seed", o->source.seed, "Seed of those batches")->capture_default_str();
  add_threads_option(*fit, o->threads);
  fit->add_option("-o,--out", o->out, "Poly file to write (default: FILE's name with .polyD.json)");
  const Command import = add_arch_import_subcommand(*cmd);
  return {cmd, [o, fit, import, stats, control]() {
            if (import.app->parsed()) return import.run();
            if (stats.app->parsed()) return stats.run();
            if (control.app->parsed()) return control.run();
            if (!fit->parsed()) return 1;
            TAPIR_CHECK(!o->source.run.empty() || !o->range.empty(),
                        "fit-poly needs the range to fit over: --run DIR (a run that trained "
                        "with these functions) or --range LO,HI");
            if (!o->range.empty()) {
              parse_range("--range", o->range, o->source.lo, o->source.hi);
              TAPIR_CHECK(o->source.lo < o->source.hi, "--range expects LO < HI, got ",
                          tapir::quoted(o->range));
            }
            return write_poly_fit(o->file, o->degree, o->source, o->out, o->threads);
          }};
}

}  // namespace tapir
