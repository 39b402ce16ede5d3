// `tapir arch stats FILE [--range LO,HI]`: the roughness of each learned
// function of an architecture file (lab/arch_stats.h), one line each and
// their means.
#include <cstdio>

#include "lab/arch_stats.h"
#include "nn/architecture.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

Command add_arch_stats_subcommand(CLI::App& arch) {
  auto* cmd = arch.add_subcommand(
      "stats", "Roughness of each learned function: curvature and degree-8 fit error");
  struct Options {
    std::string file, range = "-3,3";
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("file", o->file, "Architecture file (arch.safetensors)")->required();
  cmd->add_option("--range", o->range, "The inputs LO,HI the measures cover")
      ->capture_default_str();
  return {cmd, [o]() {
            double lo = 0, hi = 0;
            parse_range("--range", o->range, lo, hi);
            TAPIR_CHECK(lo < hi, "--range expects LO < HI, got ", tapir::quoted(o->range));
            const Architecture a = load_architecture(o->file);
            std::printf("%s", roughness_text(arch_roughness(a, lo, hi), lo, hi).c_str());
            return 0;
          }};
}

}  // namespace tapir
