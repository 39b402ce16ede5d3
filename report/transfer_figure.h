// The transfer matrix of `tapir transfer` (lab/transfer.h) as a heat map,
// transfer.svg: one cell per (functions from, trained on) pair, blue where
// it beats the task's baseline, red where it falls short.
// Sits in report/, on lab/.
#pragma once
#include <string>

#include "lab/transfer.h"

namespace tapir {

std::string transfer_svg(const TransferResult& r);

}  // namespace tapir
