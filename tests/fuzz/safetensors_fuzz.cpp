// Fuzz target: the safetensors reader (engine/safetensors.h). The input is a
// whole file given to SafeTensorsFile::parse; when it parses, every byte of
// every tensor view and every metadata entry is read, and each view must
// agree with its shape and dtype and lie 8-byte aligned in the buffer.
// Expected outcomes: the file parses, or parse throws a tapir::Error naming
// the file. A finding: a crash, a sanitizer report, a hang, any other
// exception, or a view that breaks those promises.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "base/error.h"
#include "engine/safetensors.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

constexpr const char* kLabel = "fuzz.safetensors";

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz: parsed file breaks a promise: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto file = tapir::SafeTensorsFile::parse(tapir::fuzz::input_bytes(data, size), kLabel);
    uint64_t sum = 0;
    for (const tapir::SafeTensorView& t : file.tensors()) {
      uint64_t count = 1;
      for (int64_t d : t.shape) {
        check(d >= 0, "negative dimension");
        count *= static_cast<uint64_t>(d);
      }
      check(count * tapir::dtype_size(t.dtype) == t.nbytes, "nbytes matches shape and dtype");
      check(reinterpret_cast<uintptr_t>(t.data) % 8 == 0, "data aligned to 8 bytes");
      check(file.find(t.name) == &t, "find returns the tensor of that name");
      for (size_t i = 0; i < t.nbytes; ++i) sum += t.data[i];  // ASan: every byte in the buffer
    }
    for (const auto& [key, value] : file.metadata())
      check(file.metadata_value(key) == value, "metadata_value returns the entry");
    volatile uint64_t sink = sum;
    (void)sink;
  } catch (const tapir::Error& e) {
    tapir::fuzz::require_names(e.what(), kLabel);
  }
  return 0;
}
