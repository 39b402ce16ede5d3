// `tapir arch control FILE --kind gelu|scaled-gelu|rough --out F`: a shape or
// scale control of an architecture file's MLP functions
// (lab/arch_controls.h), to compare against the learned functions.
#include <cstdio>

#include "lab/arch_controls.h"
#include "tools/commands.h"
#include "tools/options.h"

namespace tapir {

struct ArchControlOptions {
  std::string file, out, range = "-3,3";
  ArchControl kind = ArchControl::gelu;
  uint64_t seed = 0;
};

Command add_arch_control_subcommand(CLI::App& arch) {
  auto* cmd = arch.add_subcommand(
      "control",
      "A control of the MLP functions: GeLU on their grid, GeLU at their mean slope, "
      "or GeLU with noise of their roughness");
  auto o = std::make_shared<ArchControlOptions>();
  cmd->add_option("file", o->file, "Architecture file (arch.safetensors)")->required();
  add_name_option(*cmd, "--kind", o->kind,
                  "gelu (the spline alone), scaled-gelu (GeLU times the functions' mean slope "
                  "over GeLU's), rough (GeLU plus noise of the functions' curvature)")
      ->required();
  cmd->add_option("--range", o->range, "The inputs LO,HI the slope and curvature are taken over")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the rough control's noise")->capture_default_str();
  cmd->add_option("-o,--out", o->out, "Architecture file to write")->required();
  return {cmd, [o]() {
            double lo = 0, hi = 0;
            parse_range("--range", o->range, lo, hi);
            TAPIR_CHECK(lo < hi, "--range expects LO < HI, got ", tapir::quoted(o->range));
            std::printf("%s\n", write_control(o->file, o->kind, lo, hi, o->seed, o->out).c_str());
            return 0;
          }};
}

}  // namespace tapir
