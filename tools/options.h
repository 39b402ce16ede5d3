// Option helpers for the commands: each kind of value is parsed into its type
// once, when the command line (or a --config file) is read, and a bad value
// stops the command there with one line naming the flag, the value and what
// is accepted. Closed choices are enums named in base/names.h; --device is
// also checked to be usable (a cuda build with a GPU) before anything runs.
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/names.h"
#include "engine/device.h"
#include "engine/kernel_types.h"

namespace tapir {

// Runs parse(text) and turns a tapir::Error into CLI11's error for `flag`,
// so the command line reports it like any other bad option.
template <typename F>
auto parse_option(const std::string& flag, const std::string& text, F&& parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throw CLI::ValidationError(flag, e.what());
  }
}

// --flag NAME, one of the names of E; `help` gets the list of names.
template <typename E>
CLI::Option* add_name_option(CLI::App& cmd, const std::string& flag, E& value,
                             const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          flag,
          [flag, &value](const std::string& text) {
            value = parse_option(flag, text, [](const std::string& t) { return parse_name<E>(t); });
          },
          help + ": " + names_of<E>())
      ->type_name("NAME")
      ->default_str(name_of(value));
}

// --flag NAME ... (several values; the defaults are `values` as given).
template <typename E>
CLI::Option* add_names_option(CLI::App& cmd, const std::string& flag, std::vector<E>& values,
                              const std::string& help) {
  std::string defaults;
  for (E v : values) defaults += (defaults.empty() ? "" : " ") + std::string(name_of(v));
  return cmd
      .add_option_function<std::vector<std::string>>(
          flag,
          [flag, &values](const std::vector<std::string>& texts) {
            values.clear();
            for (const std::string& text : texts)
              values.push_back(
                  parse_option(flag, text, [](const std::string& t) { return parse_name<E>(t); }));
          },
          help + ": " + names_of<E>())
      ->type_name("NAME")
      ->default_str(defaults);
}

// --threads N, the threads for kernels and BLAS (engine/threads.h), the same
// for every command that computes: default default_num_threads() (the
// usable cores, or TAPIR_THREADS; `threads` is set to it here), and a value
// outside [1, kMaxThreads] stops the command line with check_thread_count's
// message.
CLI::Option* add_threads_option(CLI::App& cmd, int& threads);

// --device cpu|cuda, checked to be usable here; `given` (if not null) is set
// when the flag appears.
CLI::Option* add_device_option(CLI::App& cmd, Device& device, const std::string& help,
                               bool* given = nullptr);

// The knot grid of a spline from its three options --PREFIX-knots,
// --PREFIX-range LO,HI and --PREFIX-extrapolate, made (and so checked) once,
// after parsing; an error names the flags.
// "LO,HI" -> lo and hi; fails naming `flag` unless both are numbers.
void parse_range(const std::string& flag, const std::string& text, double& lo, double& hi);

struct SplineGridOptions {
  std::string prefix;  // "spline" or "attn-spline"
  int64_t knots;
  std::string range;        // "LO,HI"
  std::string extrapolate;  // linear | constant
  SplineGridOptions(std::string flag_prefix, const SplineGrid& defaults);
  SplineGrid grid() const;
};

// Makes every option of `app` and its commands strict before CLI11 converts
// its value: no value is empty (`--arch ""`, an unset shell variable), INT
// and UINT values are whole decimal integers that fit in 64 bits (UINT: not
// negative), FLOAT values finite decimal numbers; anything else stops the
// command with one line naming the flag, e.g.
//   --steps: expected an integer, got '99999999999999999999' (out of range)
//   --arch: an empty value; give it one, or leave the flag out
// (CLI11 alone saturates an integer that overflows and wraps a negative
// unsigned one.) Call once every command is added.
void make_values_strict(CLI::App& app);

}  // namespace tapir
