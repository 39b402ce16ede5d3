// Fuzz target: poly files (nn/polynomial.h, `tapir arch fit-poly`). The input
// is written to a temporary file (one per process) and read with
// load_poly_file; the polynomials of a file that loads are given to a small
// model config as its MLP activations (one block for a shared polynomial,
// else one block each), as `train --mlp-poly FILE` gives them, and each is
// built as a Polynomial.
// Expected outcomes: the file loads and its polynomials are accepted by the
// config and the activation, or load_poly_file throws a tapir::Error naming
// the file. A finding: a crash, a sanitizer report, a hang, any other
// exception, a load error that does not name the file, or a file that loads
// but whose polynomials the model refuses (its checks and the file's differ).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "nn/polynomial.h"
#include "nn/transformer.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

const std::string& input_path() {
  static const tapir::fuzz::TempPath path("poly", ".json");
  return path.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = input_path();
  tapir::fuzz::write_input(path, data, size);
  tapir::PolyFile file;
  try {
    file = tapir::load_poly_file(path);
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), path);
    return 0;
  }
  tapir::ModelConfig config;
  config.vocab = 8;
  config.context = 8;
  config.width = 16;
  config.heads = 4;
  config.mlp_act = tapir::MlpAct::poly;
  config.mlp_poly = tapir::poly_functions(file);
  const auto n = static_cast<int64_t>(config.mlp_poly.size());
  config.layers = n == 1 && config.mlp_poly.front().layer == -1 ? 1 : n;
  try {
    config.validate();
    for (const tapir::PolyFunction& f : config.mlp_poly) tapir::Polynomial p(f);
  } catch (const tapir::Error& e) {
    std::fprintf(stderr, "fuzz: a poly file that loads is refused by the model: %s\n", e.what());
    std::abort();
  }
  return 0;
}
