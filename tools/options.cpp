// Option helpers of the commands (tools/options.h).
#include "tools/options.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <utility>

#include "base/json.h"
#include "base/parse.h"
#include "engine/threads.h"
#include "nn/spline.h"

namespace tapir {

CLI::Option* add_threads_option(CLI::App& cmd, int& threads) {
  threads = std::min(default_num_threads(), kMaxThreads);
  return cmd
      .add_option_function<int>(
          "--threads",
          [&threads](const int& n) {
            try {
              threads = check_thread_count(n);
            } catch (const Error& e) {
              throw CLI::ValidationError("--threads", e.what());
            }
          },
          "Threads for kernels and BLAS (default: the usable cores, or TAPIR_THREADS)")
      ->type_name("INT")
      ->default_str(std::to_string(threads));
}

CLI::Option* add_device_option(CLI::App& cmd, Device& device, const std::string& help,
                               bool* given) {
  return cmd
      .add_option_function<std::string>(
          "--device",
          [&device, given](const std::string& text) {
            device = parse_option("--device", text, [](const std::string& t) {
              const Device d = parse_device(t);
              require_device(d);
              return d;
            });
            if (given) *given = true;
          },
          help + ": " + names_of<Device>(" or "))
      ->type_name("DEVICE")
      ->default_str(device_name(device));
}

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

}  // namespace

// "LO,HI" -> lo and hi.
void parse_range(const std::string& flag, const std::string& text, double& lo, double& hi) {
  const size_t comma = text.find(',');
  try {
    TAPIR_CHECK(comma != std::string::npos, "no comma");
    lo = parse_double(std::string_view(text).substr(0, comma), "LO");
    hi = parse_double(std::string_view(text).substr(comma + 1), "HI");
  } catch (const Error&) {
    fail(flag, " expects LO,HI (two finite numbers), got ", tapir::quoted(text));
  }
}

SplineGridOptions::SplineGridOptions(std::string flag_prefix, const SplineGrid& defaults)
    : prefix(std::move(flag_prefix)),
      knots(defaults.knots()),
      range(number_text(defaults.lo()) + "," + number_text(defaults.hi())),
      extrapolate(extrapolation_name(defaults.linear())) {}

SplineGrid SplineGridOptions::grid() const {
  const std::string flag = "--" + prefix;
  // Each check reported under its own flag.
  const auto checked = [](const std::string& name, auto&& check) {
    try {
      return check();
    } catch (const Error& e) {
      fail(name, ": ", e.what());
    }
  };
  double lo = 0, hi = 0;
  parse_range(flag + "-range", range, lo, hi);
  checked(flag + "-knots", [&] { SplineGrid::check_knots(knots); });
  checked(flag + "-range", [&] { SplineGrid::check_range(lo, hi); });
  const bool linear =
      checked(flag + "-extrapolate", [&] { return parse_extrapolation(extrapolate); });
  return SplineGrid(knots, lo, hi, linear);
}

void make_values_strict(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_expected_min() == 0) continue;  // a flag: no value
    // An unset shell variable (`--arch "$ARCH"`) is no value, never a
    // default: a run without the learned functions meant would follow.
    const std::string empty = option->get_positional()
                                  ? "an empty value; give it one"
                                  : "an empty value; give it one, or leave the flag out";
    option->check(CLI::Validator(
        [empty](std::string& text) -> std::string { return text.empty() ? empty : ""; }, "",
        "a value"));
    // "FLOAT", or "FLOAT:FLOAT in [0.01 - 0.5]" once a range check is added
    // (whose comparisons a NaN passes).
    const std::string full_type = option->get_type_name();
    const std::string type = full_type.substr(0, full_type.find(':'));
    const std::string flag = option->get_name();
    std::function<void(const std::string&)> check;
    if (type == "INT")
      check = [flag](const std::string& text) { parse_int64(text, flag); };
    else if (type == "UINT")
      check = [flag](const std::string& text) { parse_int64(text, flag, 0); };
    else if (type == "FLOAT")
      check = [flag](const std::string& text) { parse_double(text, flag); };
    else
      continue;
    option->check(CLI::Validator(
        [check, flag](std::string& text) -> std::string {
          try {
            check(text);
          } catch (const Error& e) {
            // CLI11 puts the flag in front again.
            return std::string(e.what()).substr(flag.size() + 2);
          }
          return "";
        },
        "", "strict number"));
  }
  for (CLI::App* command : app.get_subcommands({})) make_values_strict(*command);
}

}  // namespace tapir
