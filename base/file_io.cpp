// POSIX file I/O behind read_file, write_file_atomic and append_line. Raw file
// descriptors rather than streams, so each failure can report errno's reason.
#include "base/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/error.h"

namespace tapir {

namespace {

std::string reason(int error_number) {
  return std::strerror(error_number);
}

// Closes the descriptor when it goes out of scope unless released.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and returns 0 or the errno of a failed close.
  int close_now() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// Writes all bytes, retrying short writes and interrupts. Returns 0 or errno.
int write_all(int fd, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Makes the rename durable. Failure here is not reported: the data itself is
// already synced and some filesystems refuse fsync on directories.
void sync_directory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Writes, syncs and closes the temporary file; returns 0 or the errno of the
// first failing step, with its name in *step.
int write_temporary(const std::string& temp_path, std::string_view bytes, const char** step) {
  *step = "cannot create temporary file";
  const int raw_fd =
      ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (raw_fd < 0) return errno;
  FileDescriptor fd(raw_fd);
  *step = "cannot write";
  if (const int error = write_all(fd.get(), bytes)) return error;
  *step = "cannot sync";
  if (::fsync(fd.get()) != 0) return errno;
  *step = "cannot close";
  return fd.close_now();
}

}  // namespace

std::string read_file(const std::string& path, int64_t max_bytes) {
  const int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw_fd < 0) fail(path, ": cannot open (", reason(errno), ")");
  FileDescriptor fd(raw_fd);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail(path, ": cannot read (", reason(errno), ")");
  if (S_ISDIR(info.st_mode)) fail(path, ": is a folder, not a file");
  if (!S_ISREG(info.st_mode)) fail(path, ": is not a regular file");
  if (info.st_size > max_bytes)
    fail(path, ": holds ", info.st_size, " bytes; at most ", max_bytes, " expected");
  std::string bytes;
  bytes.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd.get(), buffer, sizeof(buffer));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path, ": cannot read (", reason(errno), ")");
    }
    if (n == 0) return bytes;
    bytes.append(buffer, static_cast<size_t>(n));
    // A file that grows while it is read stops at the cap all the same.
    if (static_cast<int64_t>(bytes.size()) > max_bytes)
      fail(path, ": holds more than ", max_bytes, " bytes; at most ", max_bytes, " expected");
  }
}

Json read_json_file(const std::string& path) {
  const std::string text = read_file(path, kMaxJsonBytes);  // its errors name the file already
  try {
    return parse_json(text);
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

void read_json_lines(const std::string& path, const std::function<void(const Json&)>& each) {
  const std::string text = read_file(path);
  size_t begin = 0;
  for (int64_t line = 1; begin < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view bytes = std::string_view(text).substr(begin, end - begin);
    begin = end + 1;
    if (bytes.empty()) continue;
    try {
      each(parse_json(bytes));
    } catch (const Error& e) {
      fail(path, ": line ", line, ": ", e.what());
    }
  }
}

void refuse_symbolic_link(const std::string& path) {
  struct stat info {};
  TAPIR_CHECK(::lstat(path.c_str(), &info) != 0 || !S_ISLNK(info.st_mode), path,
              ": is a symbolic link, and tapir writes only files of its own, never through a "
              "link; remove the link or choose another path");
}

void refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path out = fs::weakly_canonical(output, ec);
  struct stat out_info {};
  const bool out_exists = ::stat(output.c_str(), &out_info) == 0;
  for (const std::string& input : inputs) {
    if (input.empty()) continue;
    struct stat in_info {};
    bool same = out_exists && ::stat(input.c_str(), &in_info) == 0 &&
                in_info.st_dev == out_info.st_dev && in_info.st_ino == out_info.st_ino;
    std::error_code in_ec;
    const fs::path in = fs::weakly_canonical(input, in_ec);
    same = same || (!ec && !in_ec && in == out);
    TAPIR_CHECK(!same, output, " is the same file as ", input,
                ", which this command reads; choose another output path");
  }
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  refuse_symbolic_link(path);
  const std::string temp_path = path + ".tmp." + std::to_string(::getpid());
  const char* step = "";
  int error = write_temporary(temp_path, bytes, &step);
  if (error == 0 && ::rename(temp_path.c_str(), path.c_str()) != 0) {
    error = errno;
    step = "cannot rename temporary file over it";
  }
  if (error != 0) {
    ::unlink(temp_path.c_str());
    fail(path, ": ", step, " (", reason(error), ")");
  }
  sync_directory(directory_of(path));
}

void append_line(const std::string& path, std::string_view line) {
  TAPIR_CHECK(line.find('\n') == std::string_view::npos, path,
              ": appended line must not contain a newline");
  refuse_symbolic_link(path);
  const int raw_fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (raw_fd < 0) fail(path, ": cannot open for append (", reason(errno), ")");
  FileDescriptor fd(raw_fd);
  std::string record(line);
  record += '\n';
  if (const int error = write_all(fd.get(), record)) {
    fail(path, ": cannot append (", reason(error), ")");
  }
  if (const int error = fd.close_now()) fail(path, ": cannot close (", reason(error), ")");
}

std::string file_fingerprint(const std::string& path) {
  return bytes_fingerprint(read_file(path));
}

std::string bytes_fingerprint(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a, 64 bits
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

void sync_file(const std::string& path) {
  const int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) fail(path, ": cannot open to sync (", reason(errno), ")");
  FileDescriptor fd(raw_fd);
  if (::fsync(fd.get()) != 0) fail(path, ": cannot sync (", reason(errno), ")");
}

}  // namespace tapir
