// One writer per folder, and only in folders tapir made. A command that
// writes a run, search, comparison or transfer folder holds a FolderLock on it
// for as long as it writes: an exclusive flock(2) on DIR/.lock, which also
// records the holder's pid. A second writer stops at once with one line
// naming the folder and that pid. The kernel drops the lock when its holder
// exits, killed or not, so a lock left by a dead process never blocks; the
// .lock file itself stays, empty of meaning until the next writer takes it.
//
// A folder is tapir's when it holds the marker DIR/.tapir, which names its
// kind ("run folder"); tapir writes it when it starts the folder, and a
// command that would change a folder first checks the marker (owned_kind).
//
// Taking the lock also removes the temporary files (NAME.tmp.<pid>, from
// write_file_atomic) that a writer killed mid-write left in the folder: with
// the lock held, no other writer can own them. Only in a folder whose marker
// names the lock's kind, and only for the NAMEs that kind of folder writes.
#pragma once
#include <string>
#include <vector>

namespace tapir {

class FolderLock {
 public:
  static constexpr const char* kFile = ".lock";

  // Creates `dir` if needed and locks it; `what` names the folder's kind in
  // the error ("run folder", "comparison folder") and in its marker.
  // `written` lists the names whose temporaries are removed; a name ending in
  // '*' stands for every name that starts with what precedes it. A folder
  // that holds nothing else yet is marked as `what`.
  FolderLock(const std::string& dir, const std::string& what,
             const std::vector<std::string>& written = {});
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int fd_ = -1;
};

// Whether a writer holds DIR's lock now (an exclusive flock on DIR/.lock),
// read from the kernel's table of locks (/proc/locks) without touching the
// lock, so that a writer about to take it is never turned away. False when
// DIR has no lock file; true when the table cannot be read (not known).
bool folder_has_writer(const std::string& dir);

// The marker's file name.
constexpr const char* kMarkerFile = ".tapir";

// The kind DIR's marker names ("run folder"), or "" when it has none.
std::string owned_kind(const std::string& dir);

// Whether `name` is one of `written` (a trailing '*' matching any rest).
bool is_written(const std::string& name, const std::vector<std::string>& written);

// Marks DIR (which exists) as tapir's folder of kind `what`.
void mark_folder(const std::string& dir, const std::string& what);

// The entries of DIR other than its lock, its marker and the marker's
// temporary while it is written, by name, comma-separated ("" when none or
// when DIR does not exist).
std::string foreign_entries(const std::string& dir);

// Refuses, changing nothing, an existing DIR that holds anything and is not
// tapir's folder of kind `what`: "comparison folder DIR is not a tapir
// comparison folder (no .tapir marker; it holds a, b); choose another --out
// or remove it yourself".
void check_new_or_owned(const std::string& dir, const std::string& what);

// Held by a command that writes one folder on its own (`train --out DIR`)
// for as long as it writes: a shared flock(2) on the lock file of every
// tapir folder that encloses DIR (a comparison, search or transfer folder).
// Taking it fails, changing nothing, while one of them is in use by its
// writer, whose job would read or replace what this command writes: "run
// folder DIR is inside comparison folder P, which is in use by another tapir
// process (pid N); ...". While it is held, that writer cannot start.
class EnclosingFoldersLock {
 public:
  EnclosingFoldersLock(const std::string& dir, const std::string& what);
  ~EnclosingFoldersLock();
  EnclosingFoldersLock(const EnclosingFoldersLock&) = delete;
  EnclosingFoldersLock& operator=(const EnclosingFoldersLock&) = delete;

 private:
  std::vector<int> fds_;
};

// Removes DIR's NAME.tmp.<pid> files for the NAMEs in `written` (as in
// FolderLock) whose writer <pid> no longer runs; returns how many. Only for
// a writer that holds the folder's lock (a reader such as `report --watch`
// writes its page there without it).
int remove_stale_temporaries(const std::string& dir, const std::vector<std::string>& written);

}  // namespace tapir
