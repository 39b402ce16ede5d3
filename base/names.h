// Closed choices spelled as words: the names of an enum's values, read once
// (from the command line or a config file) into the enum and written back
// the same way. An enum opts in with a specialisation of Names<E> holding
// `what` (the choice, for messages) and `table` (value, name) pairs, e.g.
//   template <> struct Names<Positions> {
//     static constexpr const char* what = "position scheme";
//     static constexpr std::pair<Positions, const char*> table[] = {...};
//   };
#pragma once
#include <string>
#include <string_view>
#include <utility>

#include "base/error.h"

namespace tapir {

template <typename E>
struct Names;

// The name of a value ("alibi").
template <typename E>
const char* name_of(E value) {
  for (const auto& [v, name] : Names<E>::table)
    if (v == value) return name;
  fail("no name for value ", static_cast<int>(value), " of the ", Names<E>::what);
}

// The names, in table order, joined by `sep` ("gelu | relu | spline").
template <typename E>
std::string names_of(std::string_view sep = " | ") {
  std::string out;
  for (const auto& entry : Names<E>::table) {
    if (!out.empty()) out += sep;
    out += entry.second;
  }
  return out;
}

// The value named `text`; anything else fails with one line naming the
// choice and the accepted names: "unknown position scheme
// 'rope' (known: learned, sinusoidal, none, alibi)".
template <typename E>
E parse_name(std::string_view text) {
  for (const auto& [v, name] : Names<E>::table)
    if (text == name) return v;
  fail("unknown ", Names<E>::what, " '", text, "' (known: ", names_of<E>(", "), ")");
}

}  // namespace tapir
