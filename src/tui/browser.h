// The file browser of the full-screen app (`a`): a directory listing with a cursor, tags that
// survive moving between directories, files tarn cannot read listed dimmed (never hidden), hidden
// files on request, and `g` for a typed path, folder or glob. Plain state over the file system,
// so it is tested without a terminal.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "tarn/status.h"

namespace tarn::tui {

struct BrowserEntry {
  std::string name;  // as listed; ".." for the parent
  std::string path;  // absolute, normalised
  bool is_dir = false;
  bool parent = false;  // the ".." row
  int64_t size = -1;    // files: bytes
  // Files: "" when tarn can read it, else why not ("not CSV, NDJSON or Parquet", "permission
  // denied", "not a regular file"). Directories: "" or "permission denied".
  std::string unreadable;
  bool readable() const { return unreadable.empty(); }
};

// "" when tarn can upload the file at `path`: a regular file this process may read whose name
// says CSV, TSV, NDJSON/JSONL/JSON or Parquet, optionally compressed (.gz .zst .br .deflate),
// as formats/format.h and decompress.h read names. Otherwise the reason, as BrowserEntry.
std::string UnreadableReason(const std::string& path);

// A path as a person reads it: under $HOME as ~/..., else as given.
std::string DisplayPath(const std::string& path);

// Whether `path` (relative, '/'-separated) matches a glob: `*` and `?` within one path
// component, `[...]` classes (`[!...]` negated), `**` as a whole component for any number of
// components (including none). A leading '.' in a component is matched only by a literal '.'.
bool GlobMatch(std::string_view pattern, std::string_view path);

struct FileBrowserOptions {
  // A `g` glob stops after looking at this many directory entries, so `/**` on a large disk
  // answers in bounded time.
  int64_t max_glob_visits = 100000;
};

class FileBrowser {
 public:
  // Opens `start_dir` (the working directory when empty). `listed`: files already on the upload
  // list; they show as tagged and tagged() starts with them.
  explicit FileBrowser(const std::string& start_dir, std::vector<std::string> listed = {},
                       FileBrowserOptions options = {});

  const std::string& dir() const { return dir_; }
  // The rows: ".." first (except at /), then directories, then files, each by name (bytewise).
  // Names starting with '.' only when show_hidden().
  const std::vector<BrowserEntry>& entries() const { return entries_; }
  // The row under the cursor; 0 (the top row) whenever a directory is opened.
  int cursor() const { return cursor_; }
  const BrowserEntry* current() const;

  void Move(int delta);  // clamped to the rows
  void MoveTo(int row);  // clamped; -1 = last row

  // Opens a directory (cursor on the top row). kNotFound / kPermissionDenied (the listing
  // stays as it was) with a message a person can act on.
  Status Open(const std::string& dir);
  // Enter / Right on the row under the cursor: a directory opens; a file toggles its tag
  // (refused with a message for a file tarn cannot read).
  Status Activate();
  // Left: the parent directory, with the cursor on the top row.
  Status Up();
  // Space: toggles the tag of the file under the cursor. kFailedPrecondition with the reason
  // for a directory or a file tarn cannot read.
  Status ToggleTag();
  // `a`: tags every readable file listed here (hidden ones only when shown); returns how many
  // were newly tagged.
  int TagAllHere();
  // `.`: shows or hides names starting with '.' (relisting; cursor on the top row).
  void ToggleHidden();
  bool show_hidden() const { return show_hidden_; }
  // Lists the directory again (after a change on disk).
  Status Refresh();

  // `g`: a typed path (absolute, relative to dir(), or starting with ~/): a directory is
  // opened; a file is tagged; a glob (any of * ? [ in it) tags every readable regular file
  // matching it, relative to dir() unless absolute (hidden directories and files only when the
  // pattern names them with a literal '.'; at most options.max_glob_visits entries are visited).
  // Returns what happened for the status line ("opened ~/x", "tagged a.csv", "tagged 12 files (3
  // unreadable skipped)"). kNotFound for a path that does not exist or a glob that matches nothing;
  // kFailedPrecondition for a file tarn cannot read.
  Result<std::string> GoTo(const std::string& text);

  // Every tagged file, absolute: the files listed at construction first (in their order), then
  // in the order they were tagged. Untagging removes.
  const std::vector<std::string>& tagged() const { return tagged_; }
  bool IsTagged(const std::string& path) const { return tagged_set_.count(path) != 0; }
  // Tagged here and not on the list at construction ("2 to add").
  int added() const;

 private:
  void Tag(const std::string& path);
  void Untag(const std::string& path);

  FileBrowserOptions options_;
  std::string dir_;
  std::vector<BrowserEntry> entries_;
  int cursor_ = 0;
  bool show_hidden_ = false;
  std::vector<std::string> tagged_;
  std::set<std::string> tagged_set_;
  std::set<std::string> listed_;
};

}  // namespace tarn::tui
