// Folder locks with flock(2) (base/folder_lock.h).
#include "base/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/error.h"

namespace tapir {

namespace fs = std::filesystem;

namespace {

// The pid the holder wrote, or "" when the file holds none.
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string pid(buf, static_cast<size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

}  // namespace

FolderLock::FolderLock(const std::string& dir, const std::string& what) : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  TAPIR_CHECK(!ec, what, " ", dir, ": cannot create it (", ec.message(), ")");
  const std::string path = (fs::path(dir) / kFile).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  TAPIR_CHECK(fd_ >= 0, what, " ", dir, ": cannot open its lock file ", kFile, " (",
              std::strerror(errno), ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = holder_pid(fd_);
    ::close(fd_);
    fd_ = -1;
    TAPIR_CHECK(err != EWOULDBLOCK, what, " ", dir, " is in use by another tapir process",
                pid.empty() ? std::string() : " (pid " + pid + ")",
                "; wait for it to finish or stop it");
    fail(what, " ", dir, ": cannot lock it (", std::strerror(err), ")");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
    // The pid is for the message of a second writer only; the lock holds.
  }
  remove_stale_temporaries(dir);
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

int remove_stale_temporaries(const std::string& dir) {
  int removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos || at == 0) continue;
    const std::string digits = name.substr(at + 5);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (!entry.is_regular_file(ec)) continue;
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace tapir
