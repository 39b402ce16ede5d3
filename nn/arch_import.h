// `tapir arch import`: the functions Teney et al. published (idiap/lm-afs,
// data/lm-afs/) as an architecture file. Their CSV holds two lines per
// function, the knot positions then the values (equally spaced knots,
// linear between them, constant outside), in the order MLP function of
// layer 0..L-1, then the attention input function of layer 0..L-1 (absent
// in MLP-only files). docs/formats.md gives the format and the mapping.
#pragma once
#include <optional>
#include <string>

#include "nn/architecture.h"

namespace tapir {

struct CsvImportOptions {
  int64_t layers = 4;  // of the authors' model: 4 functions per slot
  // Per slot: one per layer, or one shared by all (then the copies must be
  // equal). Unset: shared exactly when every copy of a slot is equal.
  std::optional<SplineScope> scope;
};

// Reads the CSV; every error is one line naming the file (and the line).
Architecture import_lm_afs_csv(const std::string& path, const CsvImportOptions& options);

}  // namespace tapir
