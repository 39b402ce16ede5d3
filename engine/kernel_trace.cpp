// The kernel trace (engine/kernel_trace.h).
#include "engine/kernel_trace.h"

#include <algorithm>

namespace tapir {

namespace detail {

thread_local bool t_kernel_trace = false;
thread_local std::vector<std::string> t_noted;

void note_kernel(const char* name) {
  std::string text(name);
  text = text.substr(0, text.find('<'));
  if (std::find(t_noted.begin(), t_noted.end(), text) == t_noted.end())
    t_noted.push_back(std::move(text));
}

}  // namespace detail

void set_kernel_trace(bool on) {
  detail::t_kernel_trace = on;
  detail::t_noted.clear();
}

std::vector<std::string> take_kernels() {
  std::vector<std::string> names;
  names.swap(detail::t_noted);
  return names;
}

}  // namespace tapir
