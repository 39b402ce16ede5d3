// The resume codec (optim/resume_codec.h): a loop's state into tensors and
// metadata, and back with every value checked.
#include "optim/resume_codec.h"

#include "base/json.h"
#include "base/parse.h"

namespace tapir {

void add_rng_state(const std::string& name, const Rng& rng, HostBytes& host,
                   std::vector<SafeTensorWrite>& writes) {
  const std::vector<int32_t> words = rng.state().to_words();
  writes.push_back({name,
                    DType::i32,
                    {static_cast<int64_t>(words.size())},
                    host.copy(words.data(), words.size() * sizeof(int32_t))});
}

void read_rng_state(const SafeTensorsFile& file, const std::string& path, const std::string& name,
                    Rng& rng) {
  const SafeTensorView& v = file.at(name);
  TAPIR_CHECK(v.dtype == DType::i32, path, ": tensor '", name, "' is ", dtype_name(v.dtype),
              ", expected I32");
  try {
    const RngState state =
        RngState::from_words(reinterpret_cast<const int32_t*>(v.data), v.nbytes / sizeof(int32_t));
    // A state of another seed or stream would continue another run's numbers.
    TAPIR_CHECK(state.seed == rng.seed() && state.stream == rng.stream(), "the state of seed ",
                state.seed, " stream ", state.stream, ", expected seed ", rng.seed(), " stream ",
                rng.stream(), " (from the config)");
    rng.set_state(state);
  } catch (const Error& e) {
    fail(path, ": tensor '", name, "': ", e.what());  // the RNG's own checks know no file
  }
}

void add_resume_state(const std::string& prefix, const std::vector<Parameter*>& params,
                      Optimizer& optimizer, const Rng* data_rng, ResumeClock clock, HostBytes& host,
                      std::vector<SafeTensorWrite>& writes, Metadata& meta) {
  add_parameter_writes(writes, params, host, prefix + "param.");
  for (const StateTensor& s : optimizer.state_tensors())
    writes.push_back(
        {prefix + "optim." + s.name, s.tensor.dtype(), s.tensor.shape().vec(), host.of(s.tensor)});
  if (data_rng) add_rng_state(prefix + "data_rng", *data_rng, host, writes);
  meta.push_back({prefix + "step", std::to_string(clock.step)});
  meta.push_back({prefix + "optimizer_steps", std::to_string(optimizer.steps())});
  meta.push_back({prefix + "wall_s", std::to_string(clock.wall_s)});
}

void check_format(const SafeTensorsFile& file, const std::string& path,
                  const std::string& expected) {
  const std::string format = file.metadata_value("format", "");
  TAPIR_CHECK(format == expected, path, ": metadata 'format': expected '", expected, "', got ",
              tapir::quoted(format));
}

void reject_unknown_tensors(const SafeTensorsFile& file, const std::string& path,
                            const std::set<std::string>& known, const std::string& whose) {
  for (const SafeTensorView& v : file.tensors())
    TAPIR_CHECK(known.count(v.name), path, ": tensor ", tapir::quoted(v.name), " is not part of ",
                whose);
}

int64_t metadata_count(const SafeTensorsFile& file, const std::string& path,
                       const std::string& key) {
  return parse_int64(file.metadata_value(key, ""), path + ": metadata '" + key + "'", 0);
}

namespace {

double metadata_seconds(const SafeTensorsFile& file, const std::string& path,
                        const std::string& key) {
  const double value =
      parse_double(file.metadata_value(key, ""), path + ": metadata '" + key + "'");
  TAPIR_CHECK(value >= 0, path, ": metadata '", key, "': expected a non-negative number, got ",
              value);
  return value;
}

}  // namespace

void read_resume_state(const SafeTensorsFile& file, const std::string& path,
                       const std::string& prefix, const std::vector<Parameter*>& params,
                       Optimizer& optimizer, Rng* data_rng, ResumeClock& clock) {
  clock.step = metadata_count(file, path, prefix + "step");
  const int64_t optimizer_steps = metadata_count(file, path, prefix + "optimizer_steps");
  clock.wall_s = metadata_seconds(file, path, prefix + "wall_s");
  // At most one update per step (a Trainer makes exactly one, and checks it).
  TAPIR_CHECK(optimizer_steps <= clock.step, path, ": metadata '", prefix, "optimizer_steps' is ",
              optimizer_steps, ", more than the ", clock.step, " steps of metadata '", prefix,
              "step'");
  load_parameters(file, params, path, prefix + "param.");
  for (const StateTensor& s : optimizer.state_tensors()) {
    const std::string name = prefix + "optim." + s.name;
    const SafeTensorView& v = file.at(name);
    TAPIR_CHECK(Shape(v.shape) == s.tensor.shape() && v.dtype == s.tensor.dtype(), path,
                ": optimizer state '", name, "' is ", dtype_name(v.dtype), " ",
                Shape(v.shape).str(), ", expected ", dtype_name(s.tensor.dtype()), " ",
                s.tensor.shape().str());
    if (v.dtype == DType::f32) {
      const auto* values = reinterpret_cast<const float*>(v.data);
      check_finite(values, s.tensor.numel(), path, "optimizer state '" + name + "'");
      for (int64_t i = 0; s.non_negative && i < s.tensor.numel(); ++i)
        TAPIR_CHECK(values[i] >= 0, path, ": optimizer state '", name, "' holds ", values[i],
                    " at element ", i, ", expected a second moment >= 0");
      // The state starts at 0 and only an update changes it.
      for (int64_t i = 0; optimizer_steps == 0 && i < s.tensor.numel(); ++i)
        TAPIR_CHECK(values[i] == 0, path, ": optimizer state '", name, "' holds ", values[i],
                    " at element ", i, ", expected 0 before the first update (metadata '", prefix,
                    "optimizer_steps' is 0)");
    }
    write_bytes(s.tensor, v.data);
  }
  if (data_rng) read_rng_state(file, path, prefix + "data_rng", *data_rng);
  optimizer.set_steps(optimizer_steps);
}

}  // namespace tapir
