// The text of `tapir --version`: the release, the git commit, and how the
// build was made (build type, CPU target, CUDA, MPI). Defined in
// tools/version.cpp, which only the `tapir` program compiles.
#pragma once

#include <string>

namespace tapir {

std::string version_text();

}  // namespace tapir
