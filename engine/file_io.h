// Whole-file reads, crash-safe whole-file writes and line appends. Checkpoints
// and configs go through write_file_atomic so a crash mid-write leaves either
// the old file or the new one, never a torn mix.
#pragma once
#include <string>
#include <string_view>

namespace tapir {

// The file's bytes. Throws "path: cannot open (reason)" or "path: cannot read
// (reason)".
std::string read_file(const std::string& path);

// Writes bytes to path + ".tmp.<pid>", fsyncs it, renames it over path, then
// fsyncs the directory. On failure the temporary file is removed, path is left
// as it was, and the error names path and the reason.
void write_file_atomic(const std::string& path, std::string_view bytes);

// fsync(2)s an existing file (metrics.jsonl with each checkpoint); fails
// naming the path.
void sync_file(const std::string& path);

// Appends line + '\n' with one write on a file opened for append, creating it
// if needed (for metrics.jsonl). The line must not contain '\n'.
void append_line(const std::string& path, std::string_view line);

}  // namespace tapir
