// `tapir arch`: work on architecture files (learned functions).
//   arch fit-poly FILE --degree D (--run DIR | --range LO,HI) [-o OUT]
//     fits a polynomial to each MLP function over the range its inputs
//     visit and writes a poly file that `tapir train --mlp-poly` uses.
//   arch import FILE.csv -o OUT: the authors' CSV functions
//     (tools/cmd_arch_import.cpp).
//   arch stats FILE [--range LO,HI] (tools/cmd_arch_stats.cpp)
//     prints the roughness of each function.
#include <cstdio>
#include <filesystem>

#include "base/file_io.h"
#include "engine/threads.h"
#include "lab/poly_fit.h"
#include "optim/run_folder.h"
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
  return {cmd, [o, fit, import, stats]() {
            if (import.app->parsed()) return import.run();
            if (stats.app->parsed()) return stats.run();
            if (!fit->parsed()) return 1;
            set_num_threads(o->threads);  // the --run model's forward passes
            TAPIR_CHECK(!o->source.run.empty() || !o->range.empty(),
                        "fit-poly needs the range to fit over: --run DIR (a run that trained "
                        "with these functions) or --range LO,HI");
            if (!o->range.empty()) {
              parse_range("--range", o->range, o->source.lo, o->source.hi);
              TAPIR_CHECK(o->source.lo < o->source.hi, "--range expects LO < HI, got ",
                          tapir::quoted(o->range));
            }
            const Architecture arch = load_architecture(o->file);
            const PolyFile poly = fit_architecture(arch, o->file, o->degree, o->source);
            std::string out = o->out;
            if (out.empty()) {
              std::filesystem::path p(o->file);
              p.replace_extension(".poly" + std::to_string(o->degree) + ".json");
              out = p.string();
            }
            std::vector<std::string> inputs = {o->file};
            if (!o->source.run.empty())
              for (const char* name : {RunFolder::kConfig, RunFolder::kCheckpoint})
                inputs.push_back(RunFolder(o->source.run).file(name));
            refuse_output_over_inputs(out, inputs);
            save_poly_file(out, poly);
            for (const FittedPoly& f : poly.functions)
              std::printf("%s: degree %d on [%.4g, %.4g] (%s): max error %.3g, rms %.3g\n",
                          f.name.c_str(), o->degree, f.poly.lo, f.poly.hi, f.range_from.c_str(),
                          f.error.max_abs, f.error.rms);
            std::printf("wrote %s (use it with --mlp-poly %s)\n", out.c_str(), out.c_str());
            return 0;
          }};
}

}  // namespace tapir
