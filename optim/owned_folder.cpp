// The skeleton of tapir's folders (optim/owned_folder.h).
#include "optim/owned_folder.h"

#include <filesystem>

#include "base/file_io.h"
#include "base/folder_lock.h"
#include "optim/resume_codec.h"

namespace tapir {

namespace fs = std::filesystem;

std::string OwnedFolder::file(const char* name) const {
  return (fs::path(dir_) / name).string();
}

bool OwnedFolder::has(const char* name) const {
  return fs::exists(file(name));
}

namespace {

// The first entry below `dir` that tapir cannot remove or rewrite safely:
// a symbolic link (a removal or a write would go through it), anything
// other than a file or a folder, or a folder where the folder's files
// (`written`) are ("": none).
struct Fault {
  std::string path, what;
};

Fault first_fault(const std::string& dir, const std::vector<std::string>& written) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const fs::file_status status = it->symlink_status(ec);
    const std::string path = it->path().string();
    if (fs::is_symlink(status)) return {path, "a symbolic link"};
    if (fs::is_directory(status)) {
      if (it.depth() == 0 && is_written(it->path().filename().string(), written))
        return {path, "a folder where a file belongs"};
    } else if (!fs::is_regular_file(status)) {
      return {path, "not a regular file"};
    }
  }
  if (ec) return {dir, "a folder that cannot be read through (" + ec.message() + ")"};
  return {};
}

}  // namespace

void OwnedFolder::check_resumable(const std::vector<std::string>& written) const {
  const std::string marker = owned_kind(dir_);
  TAPIR_CHECK(marker.empty() || marker == kind_->marker, "cannot resume ", dir_,
              ": its marker says it is a tapir ", marker, ", not a ", kind_->marker);
  // A resume cuts logs back, removes later files and rewrites its own.
  if (const Fault fault = first_fault(dir_, written); !fault.path.empty())
    fail("cannot resume ", quoted(dir_), ": its ",
         quoted(fs::path(fault.path).lexically_relative(dir_).string()), " is ", fault.what,
         "; a resume rewrites the ", kind_->owner,
         "'s own files, so put a plain copy in its place");
}

bool OwnedFolder::check_replaceable(bool force, const std::function<void()>& read_config,
                                    const std::vector<std::string>& written) const {
  const std::string entries = foreign_entries(dir_);
  if (entries.empty()) return false;
  TAPIR_CHECK(force, "output folder ", dir_, " already exists (", kind_->reuse, ")");
  // Only a folder tapir made is replaced: one marked as of this kind, or
  // one from before the marker whose configuration file reads as one.
  bool ours = owned_kind(dir_) == kind_->marker;
  if (!ours && owned_kind(dir_).empty() && has(kind_->config)) {
    try {
      read_config();
      ours = true;
    } catch (const Error&) {
    }
  }
  TAPIR_CHECK(ours, "--force replaces only a tapir ", kind_->marker, ", and ", dir_,
              " is not one (no ", kMarkerFile, " marker of a ", kind_->owner,
              " and no readable tapir ", kind_->config, "; it holds ", entries,
              "); choose another --out or remove it yourself");
  // Everything is looked at before anything is removed: a link would have
  // the removal or the new files go through it, and a folder where a file
  // is written stops the removal half done.
  if (const Fault fault = first_fault(dir_, written); !fault.path.empty())
    fail("--force replaces the tapir ", kind_->marker, " ", quoted(dir_), ", but ",
         quoted(fault.path), " is ", fault.what,
         "; tapir removes and writes only the files it made, never through a link: remove it "
         "yourself, or choose another --out");
  return true;
}

void OwnedFolder::create_marked(const std::string& inner) const {
  fs::create_directories(inner.empty() ? fs::path(dir_) : fs::path(dir_) / inner);
  mark_folder(dir_, kind_->marker);
}

void OwnedFolder::write_json(const char* name, const Json& json) const {
  write_file_atomic(file(name), to_json(json, 2) + "\n");
}

void OwnedFolder::append(const char* name, const Json& line) const {
  append_line(file(name), to_json(line));
}

void OwnedFolder::sync(const char* name) const {
  if (writes() && has(name)) sync_file(file(name));
}

void OwnedFolder::save_resume_file(const char* format, const std::vector<SafeTensorWrite>& writes,
                                   const Metadata& meta) const {
  Metadata all = {{"format", format}};
  all.insert(all.end(), meta.begin(), meta.end());
  save_safetensors(file(kResume), writes, all);
}

SafeTensorsFile OwnedFolder::load_resume_file(const char* format) const {
  const std::string path = file(kResume);
  SafeTensorsFile loaded = SafeTensorsFile::load(path);
  check_format(loaded, path, format);
  return loaded;
}

LogCut cut_log_after(const std::string& path, int64_t step) {
  LogCut cut;
  cut.path = path;
  if (!fs::exists(path)) return cut;
  const std::string text = read_file(path);
  std::string kept, dropped;
  int64_t later = 0;
  size_t begin = 0, number = 0;
  while (begin < text.size()) {
    const size_t end = text.find('\n', begin);
    const std::string line = text.substr(begin, end == std::string::npos ? end : end - begin);
    ++number;
    const bool last = end == std::string::npos || end + 1 == text.size();
    int64_t line_step = 0;
    try {
      line_step = parse_json(line).at("step").as_int();
    } catch (const Error& e) {
      // Only the last line can be torn by a crash; anything else is damage
      // a person should look at.
      TAPIR_CHECK(last, path, ": line ", number, " is not a log line with a step (", e.what(), ")");
      dropped =
          "dropped the torn last line of " + path + " (" + std::to_string(line.size()) + " bytes)";
      break;
    }
    if (line_step <= step)
      kept += line + "\n";
    else
      ++later;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (later > 0) {
    if (!dropped.empty()) dropped += "; ";
    dropped += "dropped " + std::to_string(later) + " lines of " + path + " logged after step " +
               std::to_string(step) + ", the step of the resume file";
  }
  cut.changed = kept != text;
  cut.kept = std::move(kept);
  cut.note = std::move(dropped);
  return cut;
}

std::string LogCut::apply() const {
  if (changed) write_file_atomic(path, kept);
  return note;
}

std::string drop_log_lines_after(const std::string& path, int64_t step) {
  return cut_log_after(path, step).apply();
}

}  // namespace tapir
