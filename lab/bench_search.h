// `tapir bench --search M`: what a Stage I step of M models costs against M
// single-model steps (docs/experiments.md).
// Sits in lab/, on optim/; run_bench (lab/bench.h) calls it.
#pragma once
#include <cstdint>

#include "optim/search_config.h"

namespace tapir {

// The main job's search (scripts/main.sh, modular addition): M models of
// modadd p = 47, width 64, one block, spline MLP, batch 256 (and D_arch
// batch 256), AdamW lr 3e-3 with weight decay 1, on the current thread
// count; `steps` long, with no evaluation before its end.
SearchConfig main_search_config(int models, int64_t steps);

// Steps, in turn, a plain training run, a 1-model search and two M-model
// searches on the main job's configuration (modadd p = 47, width 64, one
// block, spline MLP, batch 256) at the current thread count: one steps its
// models one after the other (their kernels share the threads), the other
// concurrently (Search::step). Prints the median seconds per step and the
// ratios, and fails unless the two M-model searches end with the same bits.
// Returns the ratio concurrent search(M) / (M * search(1)).
double bench_search(int models, int warmup, int steps);

}  // namespace tapir
