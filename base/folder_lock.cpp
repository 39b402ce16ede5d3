// Folder locks with flock(2), and the marker of tapir's folders
// (base/folder_lock.h).
#include "base/folder_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/file_io.h"

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
  // The pid of the last exclusive holder: stale when the lock is held shared
  // (EnclosingFoldersLock) after that holder is gone.
  const long number = std::strtol(pid.c_str(), nullptr, 10);
  if (number > 0 && ::kill(static_cast<pid_t>(number), 0) != 0 && errno == ESRCH) return "";
  return pid;
}

std::string marker_text(const std::string& what) {
  return "tapir " + what + "\n";
}

// The marker's own temporary (".tapir.tmp.PID", write_file_atomic), seen
// between its writing and its rename by anyone who looks at that moment.
bool is_marker_temporary(const std::string& name) {
  const std::string prefix = std::string(kMarkerFile) + ".tmp.";
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

}  // namespace

bool is_written(const std::string& name, const std::vector<std::string>& written) {
  for (const std::string& w : written) {
    if (!w.empty() && w.back() == '*') {
      if (name.compare(0, w.size() - 1, w, 0, w.size() - 1) == 0) return true;
    } else if (name == w) {
      return true;
    }
  }
  return false;
}

std::string owned_kind(const std::string& dir) {
  const fs::path path = fs::path(dir) / kMarkerFile;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return "";
  std::string text;
  try {
    text = read_file(path.string());
  } catch (const Error&) {
    return "";
  }
  if (text.rfind("tapir ", 0) != 0 || text.empty() || text.back() != '\n') return "";
  return text.substr(6, text.size() - 7);
}

void mark_folder(const std::string& dir, const std::string& what) {
  if (owned_kind(dir) != what)
    write_file_atomic((fs::path(dir) / kMarkerFile).string(), marker_text(what));
}

std::string foreign_entries(const std::string& dir) {
  std::string names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name != FolderLock::kFile && name != kMarkerFile && !is_marker_temporary(name))
      names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

void check_new_or_owned(const std::string& dir, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir, ec))) return;
  TAPIR_CHECK(fs::is_directory(dir, ec), what, " ", dir, " is not a folder");
  const std::string kind = owned_kind(dir);
  if (kind == what) return;
  const std::string entries = foreign_entries(dir);
  if (entries.empty() && kind.empty()) return;
  TAPIR_CHECK(kind.empty(), what, " ", dir, " is a tapir ", kind, ", not a ", what,
              "; choose another --out");
  fail(what, " ", dir, " is not a tapir ", what, " (no ", kMarkerFile, " marker; it holds ",
       entries,
       "); tapir changes only folders it made: choose another --out or remove it "
       "yourself");
}

EnclosingFoldersLock::EnclosingFoldersLock(const std::string& dir, const std::string& what) {
  std::error_code ec;
  const fs::path inside = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) return;
  for (fs::path p = inside.parent_path(); !p.empty(); p = p.parent_path()) {
    const std::string kind = owned_kind(p.string());
    if (!kind.empty()) {
      const std::string lock = (p / FolderLock::kFile).string();
      const int fd = ::open(lock.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) {
        if (::flock(fd, LOCK_SH | LOCK_NB) == 0) {
          fds_.push_back(fd);
        } else {
          const bool busy = errno == EWOULDBLOCK;
          const std::string pid = busy ? holder_pid(fd) : "";
          ::close(fd);
          if (busy) {
            for (const int held : fds_) ::close(held);
            fail(what, " ", dir, " is inside ", kind, " ", p.string(),
                 ", which is in use by another tapir process",
                 pid.empty() ? std::string() : " (pid " + pid + ")",
                 "; wait for it to finish or stop it, or choose another --out");
          }
        }
      }
    }
    if (p == p.parent_path()) break;
  }
}

EnclosingFoldersLock::~EnclosingFoldersLock() {
  for (const int fd : fds_) ::close(fd);  // releases the shared locks
}

FolderLock::FolderLock(const std::string& dir, const std::string& what,
                       const std::vector<std::string>& written)
    : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  TAPIR_CHECK(!ec, what, " ", dir, ": cannot create it (", ec.message(), ")");
  const std::string path = (fs::path(dir) / kFile).string();
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    TAPIR_CHECK(err != ELOOP, what, " ", dir, ": its lock file ", kFile,
                " is a symbolic link, and tapir locks only a file of its own; remove the link");
    fail(what, " ", dir, ": cannot open its lock file ", kFile, " (", std::strerror(err), ")");
  }
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
  try {
    if (foreign_entries(dir).empty()) mark_folder(dir, what);
    if (owned_kind(dir) == what) remove_stale_temporaries(dir, written);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

bool folder_has_writer(const std::string& dir) {
  struct stat lock;
  if (::stat((fs::path(dir) / FolderLock::kFile).c_str(), &lock) != 0) return false;
  std::ifstream table("/proc/locks");
  if (!table) return true;
  // "1: FLOCK  ADVISORY  WRITE 4711 08:01:1234567 0 EOF": a lock, its holder
  // and its file as MAJOR:MINOR:INODE (hexadecimal device numbers); a line
  // with "->" after the number is a process waiting for that lock.
  char device[64];
  std::snprintf(device, sizeof device, "%02x:%02x:%llu", major(lock.st_dev), minor(lock.st_dev),
                static_cast<unsigned long long>(lock.st_ino));
  std::string line;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string number, kind, mode, access, pid, file;
    fields >> number >> kind;
    if (kind == "->") continue;
    fields >> mode >> access >> pid >> file;
    if (kind == "FLOCK" && access == "WRITE" && file == device) return true;
  }
  return false;
}

int remove_stale_temporaries(const std::string& dir, const std::vector<std::string>& written) {
  int removed = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t at = name.rfind(".tmp.");
    if (at == std::string::npos || at == 0) continue;
    const std::string digits = name.substr(at + 5);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    // The digits are the writer's pid: a process that still runs (a
    // `report --watch` writing report.html beside the job) may be about to
    // rename its file, so only a dead writer's temporary is stale.
    const long long writer = digits.size() <= 9 ? std::atoll(digits.c_str()) : 0;
    if (writer > 0 && (::kill(static_cast<pid_t>(writer), 0) == 0 || errno != ESRCH)) continue;
    const std::string base = name.substr(0, at);
    if (base != kMarkerFile && !is_written(base, written)) continue;
    if (!entry.is_regular_file(ec) || entry.is_symlink(ec)) continue;
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

}  // namespace tapir
