// The workspace holds the step arena that every temporary tensor comes from.
// One training step = build tensors, run backward, read the results, then
// reset_step() (which also clears the tape, see autograd/tape.h).
#pragma once
#include "engine/arena.h"

namespace tapir {

Arena& step_arena();

}  // namespace tapir
