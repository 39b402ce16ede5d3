// Fuzz target: the JSON parser (base/json.h) and the run config read from
// it (optim/train_config.h). The input is JSON text given to parse_json; a
// value that parses must print and parse back to the same value, and is then
// given to TrainConfig::from_json. A config that reads must read back from
// its own to_json unchanged.
// Expected outcomes: a value, or a tapir::Error. A finding: a crash, a
// sanitizer report, a hang, any other exception, or a broken round trip.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "base/error.h"
#include "base/json.h"
#include "optim/train_config.h"

namespace {

void require_round_trip(bool same, const char* what, const tapir::Json& value) {
  if (!same) {
    std::fprintf(stderr, "fuzz: %s does not read back as written: %s\n", what,
                 tapir::to_json(value).c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tapir::Json value;
  try {
    value = tapir::parse_json(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const tapir::Error&) {
    return 0;
  }
  require_round_trip(tapir::parse_json(tapir::to_json(value)) == value &&
                         tapir::parse_json(tapir::to_json(value, 2)) == value,
                     "JSON", value);
  tapir::Json written;
  try {
    written = tapir::TrainConfig::from_json(value).to_json();
  } catch (const tapir::Error&) {
    return 0;
  }
  // Outside the try: a config tapir wrote must read back without an error.
  require_round_trip(tapir::TrainConfig::from_json(written).to_json() == written, "config",
                     written);
  return 0;
}
