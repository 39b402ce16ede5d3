// `tapir plot`: figures as self-contained SVG files (lab/svg.h).
//   plot arch FILE -o out.svg   each learned function of an architecture file
//                               on its knot range, with its reference: GeLU
//                               for MLP slots, the identity for attention.
#include <cstdio>

#include "base/file_io.h"
#include "lab/arch_plot.h"
#include "nn/architecture.h"
#include "tools/commands.h"

namespace tapir {

Command add_plot_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plot", "Draw figures as SVG files");
  cmd->require_subcommand(1);
  auto* arch_cmd =
      cmd->add_subcommand("arch", "Plot the learned functions of an architecture file");
  struct Options {
    std::string file, out;
  };
  auto o = std::make_shared<Options>();
  arch_cmd->add_option("file", o->file, "Architecture file (arch.safetensors)")->required();
  arch_cmd->add_option("-o,--out", o->out, "SVG file to write")->required();
  return {cmd, [o, arch_cmd]() {
            if (!arch_cmd->parsed()) return 1;
            const Architecture arch = load_architecture(o->file);
            std::string title = "learned functions of ";
            title += o->file;
            refuse_output_over_inputs(o->out, {o->file});
            write_file_atomic(o->out, architecture_svg(arch, title));
            std::printf("wrote %s (%zu functions)\n", o->out.c_str(), arch.functions.size());
            return 0;
          }};
}

}  // namespace tapir
