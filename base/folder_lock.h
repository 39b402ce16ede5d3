// One writer per folder. A command that writes a run, search, comparison or
// transfer folder holds a FolderLock on it for as long as it writes: an
// exclusive flock(2) on DIR/.lock, which also records the holder's pid. A
// second writer stops at once with one line naming the folder and that pid.
// The kernel drops the lock when its holder exits, killed or not, so a lock
// left by a dead process never blocks; the .lock file itself stays, empty of
// meaning until the next writer takes it.
//
// Taking the lock also removes the temporary files (NAME.tmp.<pid>, from
// write_file_atomic) that a writer killed mid-write left in the folder: with
// the lock held, no other writer can own them.
#pragma once
#include <string>

namespace tapir {

class FolderLock {
 public:
  static constexpr const char* kFile = ".lock";

  // Creates `dir` if needed and locks it; `what` names the folder's kind in
  // the error ("run folder", "comparison folder").
  FolderLock(const std::string& dir, const std::string& what);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int fd_ = -1;
};

// Removes DIR's NAME.tmp.<digits> files; returns how many. Only for a writer
// that holds the folder's lock.
int remove_stale_temporaries(const std::string& dir);

}  // namespace tapir
