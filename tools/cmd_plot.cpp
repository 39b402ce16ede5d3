// `tapir plot`: figures as self-contained SVG files (report/svg.h).
//   plot arch FILE -o out.svg   each learned function of an architecture file
//                               on its knot range, with its reference: GeLU
//                               for MLP slots, the identity for attention.
//     --run RUN                 each MLP function zoomed to the inputs RUN's
//                               model gave it (the central share of them on
//                               train batches, lab/poly_fit.h), shaded.
#include <cstdio>

#include "base/file_io.h"
#include "lab/poly_fit.h"
#include "nn/architecture.h"
#include "report/arch_plot.h"
#include "tools/commands.h"

namespace tapir {

Command add_plot_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plot", "Draw figures as SVG files");
  cmd->require_subcommand(1);
  auto* arch_cmd =
      cmd->add_subcommand("arch", "Plot the learned functions of an architecture file");
  struct Options {
    std::string file, out;
    PolyRangeSource inputs;
  };
  auto o = std::make_shared<Options>();
  o->inputs.command = "plot arch";
  o->inputs.central = 0.99;
  o->inputs.uniform = true;  // the range alone, no histogram
  arch_cmd->add_option("file", o->file, "Architecture file (arch.safetensors)")->required();
  arch_cmd->add_option("-o,--out", o->out, "SVG file to write")->required();
  arch_cmd->add_option("--run", o->inputs.run,
                       "A run (folder or checkpoint) that trained with these functions: each MLP "
                       "function is drawn where its inputs went, that range shaded");
  arch_cmd
      ->add_option("--central", o->inputs.central,
                   "With --run: the central share of the inputs to shade (1: all of them)")
      ->capture_default_str();
  arch_cmd->add_option("--batches", o->inputs.batches, "With --run: train batches to record")
      ->capture_default_str();
  arch_cmd->add_option("--seed", o->inputs.seed, "With --run: seed of the batches")
      ->capture_default_str();
  return {cmd, [o, arch_cmd]() {
            if (!arch_cmd->parsed()) return 1;
            const Architecture arch = load_architecture(o->file);
            std::string title = "learned functions of ";
            title += o->file;
            refuse_output_over_inputs(o->out, {o->file});
            std::map<std::string, UsedRange> used;
            if (!o->inputs.run.empty()) {
              char label[64];
              std::snprintf(label, sizeof label, "central %g%% of the inputs",
                            100 * o->inputs.central);
              for (const auto& [name, rec] : recorded_inputs_of(arch, o->file, o->inputs)) {
                used[name] = {rec.lo, rec.hi, label};
                std::printf("%s: %s in [%.4g, %.4g]\n", name.c_str(), label, rec.lo, rec.hi);
              }
            }
            write_file_atomic(o->out, architecture_svg(arch, title, used));
            std::printf("wrote %s (%zu functions%s)\n", o->out.c_str(), arch.functions.size(),
                        used.empty() ? "" : ", MLP functions zoomed to their inputs");
            return 0;
          }};
}

}  // namespace tapir
