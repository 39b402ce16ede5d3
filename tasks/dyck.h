// The membership test of Dyck-(k, m), the language of balanced strings over k
// bracket types whose nesting depth never exceeds m. Shared by the dyck task
// (tasks/dyck.cpp), which uses it to keep corrupted strings out of the
// language, and by whatever reads a label out of a Dyck sequence.
#pragma once
#include <vector>

namespace tapir {

// True when `brackets` is in Dyck-(types, max_depth). Brackets are encoded
// 0..types-1 for the opening and types..2*types-1 for the closing bracket of
// each type; any other value makes the string not balanced.
bool dyck_is_balanced(const std::vector<int>& brackets, int types, int max_depth);

}  // namespace tapir
