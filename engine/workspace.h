// The workspace holds the step arenas that every temporary tensor comes from:
// one on the host, one on the GPU (used only by cuda tensors).
// One training step = build tensors, run backward, read the results, then
// reset_step() (which clears the tape and both arenas, see autograd/tape.h).
// Each thread has arenas of its own, like its tape.
#pragma once
#include "engine/arena.h"
#include "engine/device.h"

namespace tapir {

Arena& step_arena();    // host (the calling thread's)
Arena& device_arena();  // GPU: blocks from cuda::device_alloc, taken on first use
Arena& arena_for(Device d);

}  // namespace tapir
