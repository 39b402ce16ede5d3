// Whole-file reads, crash-safe whole-file writes and line appends. Checkpoints
// and configs go through write_file_atomic so a crash mid-write leaves either
// the old file or the new one, never a torn mix. Every error names the file.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json.h"

namespace tapir {

// The file's bytes. Throws "path: cannot open (reason)", "path: cannot read
// (reason)", "path: is a folder, not a file" or "path: is not a regular
// file" (a device, a pipe: /dev/zero would never end), and, past
// `max_bytes`, "path: holds N bytes; at most M expected" before reading.
inline constexpr int64_t kNoByteCap = INT64_MAX;
std::string read_file(const std::string& path, int64_t max_bytes = kNoByteCap);
// The cap of read_json_file: no JSON file tapir reads comes near it.
inline constexpr int64_t kMaxJsonBytes = int64_t{256} << 20;

// The JSON value in the file, e.g. "runs/x/config.json: invalid JSON at byte
// 0: unexpected 'g'" when it is not JSON.
Json read_json_file(const std::string& path);

// read(the file's JSON value), with a tapir::Error that `read` throws
// prefixed by "path: ": read_json_file(path, TrainConfig::from_json) gives
// "runs/x/config.json: JSON: unknown key 'model.widht' (known: ...)".
template <typename Read>
auto read_json_file(const std::string& path, Read&& read) {
  const Json j = read_json_file(path);
  try {
    return std::invoke(std::forward<Read>(read), j);
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

// Calls each(value) for every non-empty line of a JSON Lines file (such as
// metrics.jsonl), in order. A line that is not JSON, or an error `each`
// throws, stops it with "path: line N: ...".
void read_json_lines(const std::string& path, const std::function<void(const Json&)>& each);

// Writes bytes to path + ".tmp.<pid>", fsyncs it, renames it over path, then
// fsyncs the directory. On failure the temporary file is removed, path is left
// as it was, and the error names path and the reason. A path that is a
// symbolic link is refused (refuse_symbolic_link).
void write_file_atomic(const std::string& path, std::string_view bytes);

// A fingerprint of the file's bytes, "fnv1a64:" and 16 hex digits, to tell
// later whether the file is still the one that was read or written.
std::string file_fingerprint(const std::string& path);
// The same fingerprint of bytes held in memory.
std::string bytes_fingerprint(std::string_view bytes);

// fsync(2)s an existing file (metrics.jsonl with each checkpoint); fails
// naming the path.
void sync_file(const std::string& path);

// Throws "path: is a symbolic link, ..." when path is one: tapir writes its
// own files, never another file through a link.
void refuse_symbolic_link(const std::string& path);

// Refuses to write `output` over one of the command's `inputs`: the same file
// (same device and inode) or the same path once made canonical. "OUTPUT is
// the same file as INPUT, which this command reads; choose another output
// path".
void refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs);

// Appends line + '\n' with one write on a file opened for append, creating it
// if needed (for metrics.jsonl). The line must not contain '\n'; a path that
// is a symbolic link is refused.
void append_line(const std::string& path, std::string_view line);

}  // namespace tapir
