// `tapir arch import FILE.csv -o OUT [--layers L] [--scope auto|layer|shared]`:
// the authors' published functions (nn/arch_import.h) as an architecture file.
#include <cstdio>

#include "base/file_io.h"
#include "nn/arch_import.h"
#include "tools/commands.h"

namespace tapir {

Command add_arch_import_subcommand(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "import", "Read the authors' CSV functions (data/lm-afs/) into an architecture file");
  struct Options {
    std::string file, out, scope = "auto";
    CsvImportOptions import;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("file", o->file, "CSV file: pairs of lines, knots then values")->required();
  cmd->add_option("-o,--out", o->out, "Architecture file to write")->required();
  cmd->add_option("--layers", o->import.layers, "Layers of the model the functions came from")
      ->capture_default_str();
  cmd->add_option("--scope", o->scope,
                  "auto (shared when a slot's copies are all equal), layer or shared")
      ->capture_default_str();
  return {cmd, [o]() {
            TAPIR_CHECK(o->scope == "auto" || o->scope == "layer" || o->scope == "shared",
                        "--scope expects auto, layer or shared, got ", quoted(o->scope));
            if (o->scope != "auto") o->import.scope = parse_name<SplineScope>(o->scope);
            const Architecture arch = import_lm_afs_csv(o->file, o->import);
            refuse_output_over_inputs(o->out, {o->file});
            save_architecture(o->out, arch);
            for (const char* slot : {"mlp", "attn_fn"})
              if (arch.learns(slot))
                std::printf("%s: %s, %lld knots on [%g, %g], constant outside\n", slot,
                            name_of(arch.spline_of(slot).scope),
                            static_cast<long long>(arch.spline_of(slot).grid.knots()),
                            arch.spline_of(slot).grid.lo(), arch.spline_of(slot).grid.hi());
            std::printf("wrote %s (use it with --arch %s)\n", o->out.c_str(), o->out.c_str());
            return 0;
          }};
}

}  // namespace tapir
