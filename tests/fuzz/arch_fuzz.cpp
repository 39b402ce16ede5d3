// Fuzz target: architecture files (nn/architecture.h). The input is written
// to a temporary file (one per process) and read with load_architecture;
// an architecture that loads is applied to a small model config shaped like
// it, and when that config is valid its values are copied into the (tiny)
// model built from it.
// Expected outcomes: every step succeeds, or throws a tapir::Error; errors of
// load_architecture and load_architecture_values must name the file. A
// finding: a crash, a sanitizer report, a hang, any other exception, or a
// load error that does not say which file was wrong.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "base/error.h"
#include "nn/architecture.h"
#include "nn/transformer.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

const std::string& input_path() {
  static const tapir::fuzz::TempPath path("arch", ".safetensors");
  return path.str();
}

// A model of width 16 with the architecture's layers and heads where those
// are small, so the per-layer and per-head checks can pass.
tapir::ModelConfig small_config_like(const tapir::Architecture& arch) {
  tapir::ModelConfig config;
  config.vocab = 8;
  config.context = 8;
  config.width = 16;
  config.layers = arch.layers >= 1 && arch.layers <= 3 ? arch.layers : 1;
  config.heads = arch.heads >= 1 && arch.heads <= 16 && 16 % arch.heads == 0 ? arch.heads : 4;
  return config;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = input_path();
  tapir::fuzz::write_input(path, data, size);
  tapir::Architecture arch;
  try {
    arch = tapir::load_architecture(path);
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), path);
    return 0;
  }
  tapir::ModelConfig config = small_config_like(arch);
  try {
    tapir::apply_architecture(arch, config);
  } catch (const tapir::Error&) {
    return 0;  // a model unlike the one the file came from
  }
  // Spline grids of many knots are valid but would make every input slow.
  if (config.mlp_spline.grid.knots() > 4096 || config.attn_spline.grid.knots() > 4096) return 0;
  tapir::Transformer model(config);
  try {
    tapir::load_architecture_values(arch, model, /*trainable=*/false, path);
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), path);
  }
  return 0;
}
