// The text of `tapir --version`: the release, the git commit, and how the
// build was made (build type, CPU target, CUDA, MPI). Defined in
// tools/version.cpp, which only the `tapir` program compiles.
#pragma once

#include <string>

namespace tapir {

std::string version_text();
// The build in one line, "tapir 0.1, commit 5a401df, Release, x86-64-v3":
// what a finished run records of the build that trained it (lab/run_jobs.h).
std::string build_stamp_text();

}  // namespace tapir
