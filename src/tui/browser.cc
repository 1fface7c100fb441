#include "tui/browser.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/utf8.h"
#include "formats/decompress.h"
#include "formats/format.h"

namespace tarn::tui {

namespace {

constexpr std::string_view kGlobMeta = "*?[";

bool HasGlobMeta(std::string_view s) { return s.find_first_of(kGlobMeta) != std::string::npos; }

bool IsHidden(std::string_view name) { return !name.empty() && name[0] == '.'; }

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// `path` (absolute) without "." and ".." components, doubled or trailing slashes. Lexical, so a
// symlinked directory keeps the name it was reached by (as a shell's `cd` does).
std::string Normalize(std::string_view path) {
  std::vector<std::string_view> kept;
  for (std::string_view part : SplitPath(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!kept.empty()) kept.pop_back();
      continue;
    }
    kept.push_back(part);
  }
  if (kept.empty()) return "/";
  std::string out;
  for (std::string_view part : kept) {
    out.push_back('/');
    out.append(part);
  }
  return out;
}

std::string Join(const std::string& dir, std::string_view name) {
  std::string out = dir;
  if (out.empty() || out.back() != '/') out.push_back('/');
  out.append(name);
  return out;
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

// $HOME without a trailing slash; "" when unset or "/" (nothing to abbreviate).
std::string Home() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] != '/') return "";
  std::string h = Normalize(home);
  return h == "/" ? "" : h;
}

std::string CurrentDir() {
  std::string buf(4096, '\0');
  if (::getcwd(buf.data(), buf.size()) == nullptr) return "/";
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

// `text` as an absolute, normalised path: "~" and "~/..." expand with $HOME, a relative path is
// taken from `base`.
std::string Absolute(std::string_view text, const std::string& base) {
  std::string expanded(text);
  if (text == "~" || text.substr(0, 2) == "~/") {
    const char* home = std::getenv("HOME");
    if (home != nullptr && home[0] == '/')
      expanded = std::string(home) + std::string(text.substr(1));
  }
  if (expanded.empty() || expanded[0] != '/') expanded = Join(base, expanded);
  return Normalize(expanded);
}

// A file's display relative to the directory being browsed when it is inside it.
std::string DisplayFrom(const std::string& dir, const std::string& path) {
  const std::string prefix = dir == "/" ? dir : dir + "/";
  if (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0) {
    return path.substr(prefix.size());
  }
  return DisplayPath(path);
}

std::string ErrnoReason(int err) {
  if (err == EACCES || err == EPERM) return "permission denied";
  if (err == ENOENT) return "not found";
  return std::strerror(err);
}

// The reason for a file that stat() already described (`st`, following links).
std::string FileReason(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (!formats::DetectFormat(path).ok()) {
    std::string_view stem;
    if (formats::CompressionFromSuffix(path, &stem) != formats::InputCompression::kNone &&
        stem.size() >= 8) {
      std::string tail(stem.substr(stem.size() - 8));
      std::transform(tail.begin(), tail.end(), tail.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (tail == ".parquet") return "a compressed Parquet file (Parquet compresses its pages)";
    }
    return "not CSV, NDJSON or Parquet";
  }
  if (::access(path.c_str(), R_OK) != 0) return ErrnoReason(errno);
  return "";
}

// Reads the names in `dir` (without "." and ".."). Sets *err to errno on failure.
bool ReadNames(const std::string& dir, std::vector<std::string>* names, int* err) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    *err = errno;
    return false;
  }
  while (true) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (e == nullptr) break;
    std::string_view name = e->d_name;
    if (name == "." || name == "..") continue;
    names->emplace_back(name);
  }
  ::closedir(d);
  return true;
}

// ---- glob matching ----

// The code point at s[*i], advancing *i. Invalid UTF-8 is taken byte by byte (as values above
// U+10FFFF so they never equal a real code point).
char32_t NextCodePoint(std::string_view s, size_t* i) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int len = Utf8SequenceLength(p + *i, p + s.size());
  if (len == 0) return 0x110000 + p[(*i)++];
  const char32_t cp = DecodeUtf8Sequence(p + *i, len);
  *i += static_cast<size_t>(len);
  return cp;
}

// Matches the class starting at pattern[*pi] == '[' against `c`. Returns false and leaves *pi
// alone when the class has no closing ']' (the '[' is then literal).
bool ParseClass(std::string_view pattern, size_t* pi, char32_t c, bool* matched) {
  size_t i = *pi + 1;
  bool negate = false;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) {
    negate = true;
    ++i;
  }
  bool hit = false;
  bool first = true;
  while (i < pattern.size()) {
    if (pattern[i] == ']' && !first) {
      *matched = hit != negate;
      *pi = i + 1;
      return true;
    }
    first = false;
    const char32_t lo = NextCodePoint(pattern, &i);
    char32_t hi = lo;
    if (i + 1 < pattern.size() && pattern[i] == '-' && pattern[i + 1] != ']') {
      ++i;
      hi = NextCodePoint(pattern, &i);
    }
    if (lo <= c && c <= hi) hit = true;
  }
  return false;
}

// One component against one name: `*`, `?`, `[...]`; a leading '.' only literally.
bool MatchComponent(std::string_view pattern, std::string_view name) {
  if (IsHidden(name) && !IsHidden(pattern)) return false;
  size_t pi = 0, ni = 0;
  size_t star_pi = std::string_view::npos, star_ni = 0;
  while (ni < name.size()) {
    if (pi < pattern.size()) {
      const char pc = pattern[pi];
      if (pc == '*') {
        star_pi = ++pi;
        star_ni = ni;
        continue;
      }
      size_t next_ni = ni;
      const char32_t c = NextCodePoint(name, &next_ni);
      if (pc == '?') {
        ++pi;
        ni = next_ni;
        continue;
      }
      if (pc == '[') {
        size_t class_end = pi;
        bool matched = false;
        if (ParseClass(pattern, &class_end, c, &matched)) {
          if (matched) {
            pi = class_end;
            ni = next_ni;
            continue;
          }
        } else if (c == '[') {  // an unclosed '[' is literal
          ++pi;
          ni = next_ni;
          continue;
        }
      } else {
        size_t next_pi = pi;
        if (NextCodePoint(pattern, &next_pi) == c) {
          pi = next_pi;
          ni = next_ni;
          continue;
        }
      }
    }
    if (star_pi == std::string_view::npos) return false;
    // Backtrack: the last '*' takes one more code point.
    pi = star_pi;
    NextCodePoint(name, &star_ni);
    ni = star_ni;
  }
  while (pi < pattern.size() && pattern[pi] == '*') ++pi;
  return pi == pattern.size();
}

// ---- the `g` glob walk ----

struct GlobWalk {
  std::vector<std::string> comps;  // the pattern components after the base directory
  std::set<std::string> readable;  // matched files tarn can read, sorted by path
  std::set<std::string> unreadable;
  int64_t max_visits = 0;
  int64_t visits = 0;
  bool capped = false;

  // `path` has matched comps[0, idx).
  void Walk(const std::string& path, size_t idx) {
    if (idx == comps.size()) {
      struct stat st;
      if (::stat(path.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) return;
      if (FileReason(path, st).empty()) {
        readable.insert(path);
      } else {
        unreadable.insert(path);
      }
      return;
    }
    const std::string& comp = comps[idx];
    if (comp == "**") {
      Walk(path, idx + 1);  // ** as no component at all
      std::vector<std::string> names;
      if (!List(path, &names)) return;
      for (const std::string& name : names) {
        if (IsHidden(name)) continue;
        const std::string child = Join(path, name);
        struct stat lst;
        if (::lstat(child.c_str(), &lst) != 0) continue;
        if (S_ISDIR(lst.st_mode)) {
          Walk(child, idx);  // ** takes this directory and maybe more
        } else if (idx + 1 == comps.size() && (!S_ISLNK(lst.st_mode) || !IsDirectory(child))) {
          // A file (or a link to one) taken by a trailing **. Symlinked directories are not
          // entered by **: they could lead back up the tree.
          Walk(child, idx + 1);
        }
      }
      return;
    }
    if (!HasGlobMeta(comp)) {
      const std::string child = Join(path, comp);
      struct stat st;
      if (::lstat(child.c_str(), &st) == 0) Walk(child, idx + 1);
      return;
    }
    std::vector<std::string> names;
    if (!List(path, &names)) return;
    for (const std::string& name : names) {
      if (MatchComponent(comp, name)) Walk(Join(path, name), idx + 1);
    }
  }

  static bool IsDirectory(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  }

  // The names in `dir`, counted against the cap; false (quietly) when it cannot be listed.
  bool List(const std::string& dir, std::vector<std::string>* names) {
    if (capped) return false;
    int err = 0;
    if (!ReadNames(dir, names, &err)) return false;
    visits += static_cast<int64_t>(names->size());
    if (visits > max_visits) {
      capped = true;
      names->resize(names->size() - std::min<size_t>(names->size(), visits - max_visits));
    }
    std::sort(names->begin(), names->end());
    return true;
  }
};

}  // namespace

std::string DisplayPath(const std::string& path) {
  const std::string home = Home();
  if (home.empty()) return path;
  if (path == home) return "~";
  if (path.size() > home.size() && path.compare(0, home.size(), home) == 0 &&
      path[home.size()] == '/') {
    return "~" + path.substr(home.size());
  }
  return path;
}

std::string UnreadableReason(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return ErrnoReason(errno);
  return FileReason(path, st);
}

bool GlobMatch(std::string_view pattern, std::string_view path) {
  const std::vector<std::string_view> pat = SplitPath(pattern);
  const std::vector<std::string_view> parts = SplitPath(path);
  const size_t np = pat.size(), ns = parts.size();
  // memo[i * (ns + 1) + j]: 0 unknown, 1 no, 2 yes for pat[i..] against parts[j..].
  std::vector<unsigned char> memo((np + 1) * (ns + 1), 0);
  auto match = [&](auto& self, size_t i, size_t j) -> bool {
    unsigned char& m = memo[i * (ns + 1) + j];
    if (m != 0) return m == 2;
    bool result = false;
    if (i == np) {
      result = j == ns;
    } else if (pat[i] == "**") {
      // ** takes parts[j, k) for each k, but never a hidden component.
      for (size_t k = j; k <= ns; ++k) {
        if (self(self, i + 1, k)) {
          result = true;
          break;
        }
        if (k < ns && IsHidden(parts[k])) break;
      }
    } else {
      result = j < ns && MatchComponent(pat[i], parts[j]) && self(self, i + 1, j + 1);
    }
    m = result ? 2 : 1;
    return result;
  };
  return match(match, 0, 0);
}

FileBrowser::FileBrowser(const std::string& start_dir, std::vector<std::string> listed,
                         FileBrowserOptions options)
    : options_(options) {
  const std::string cwd = CurrentDir();
  for (const std::string& file : listed) {
    const std::string path = Absolute(file, cwd);
    listed_.insert(path);
    Tag(path);
  }
  // The nearest directory that opens, from the one asked for up to /.
  std::string dir = Absolute(start_dir.empty() ? cwd : start_dir, cwd);
  while (true) {
    if (Open(dir).ok() || dir == "/") break;
    dir = ParentOf(dir);
  }
  if (dir_.empty()) dir_ = dir;
}

const BrowserEntry* FileBrowser::current() const {
  if (cursor_ < 0 || cursor_ >= static_cast<int>(entries_.size())) return nullptr;
  return &entries_[cursor_];
}

void FileBrowser::Move(int delta) { MoveTo(cursor_ + delta); }

void FileBrowser::MoveTo(int row) {
  const int n = static_cast<int>(entries_.size());
  if (row == -1) row = n - 1;
  cursor_ = std::max(0, std::min(row, n - 1));
}

namespace {

// The rows of `dir` (absolute, normalised), or why it cannot be listed.
Result<std::vector<BrowserEntry>> ListDir(const std::string& dir, bool show_hidden) {
  std::vector<std::string> names;
  int err = 0;
  if (!ReadNames(dir, &names, &err)) {
    const std::string shown = DisplayPath(dir);
    if (err == ENOENT) return Status::NotFound("no such directory: " + shown);
    if (err == ENOTDIR) return Status::NotFound("not a directory: " + shown);
    if (err == EACCES || err == EPERM) {
      return Status::PermissionDenied("cannot open " + shown + ": permission denied");
    }
    return Status::IOError("cannot open " + shown + ": " + std::strerror(err));
  }
  std::vector<BrowserEntry> dirs, files;
  for (std::string& name : names) {
    if (IsHidden(name) && !show_hidden) continue;
    BrowserEntry e;
    e.path = Join(dir, name);
    e.name = std::move(name);
    struct stat st;
    if (::stat(e.path.c_str(), &st) != 0) {
      const int err = errno;
      struct stat lst;
      e.unreadable = ::lstat(e.path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)
                         ? "broken symbolic link"
                         : ErrnoReason(err);
      files.push_back(std::move(e));
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      e.is_dir = true;
      if (::access(e.path.c_str(), R_OK | X_OK) != 0) e.unreadable = "permission denied";
      dirs.push_back(std::move(e));
    } else {
      e.size = static_cast<int64_t>(st.st_size);
      e.unreadable = FileReason(e.path, st);
      files.push_back(std::move(e));
    }
  }
  auto by_name = [](const BrowserEntry& a, const BrowserEntry& b) { return a.name < b.name; };
  std::sort(dirs.begin(), dirs.end(), by_name);
  std::sort(files.begin(), files.end(), by_name);
  std::vector<BrowserEntry> rows;
  rows.reserve(dirs.size() + files.size() + 1);
  if (dir != "/") {
    BrowserEntry up;
    up.name = "..";
    up.path = ParentOf(dir);
    up.is_dir = true;
    up.parent = true;
    rows.push_back(std::move(up));
  }
  for (BrowserEntry& e : dirs) rows.push_back(std::move(e));
  for (BrowserEntry& e : files) rows.push_back(std::move(e));
  return rows;
}

}  // namespace

Status FileBrowser::Open(const std::string& dir) {
  const std::string path = Absolute(dir, dir_.empty() ? CurrentDir() : dir_);
  TARN_ASSIGN_OR_RETURN(entries_, ListDir(path, show_hidden_));
  dir_ = path;
  cursor_ = 0;
  return Status::OK();
}

Status FileBrowser::Activate() {
  const BrowserEntry* e = current();
  if (e == nullptr) return Status::OK();
  if (e->parent) return Up();
  if (e->is_dir) return Open(e->path);
  return ToggleTag();
}

Status FileBrowser::Up() {
  if (dir_ == "/") return Status::OK();
  return Open(ParentOf(dir_));
}

Status FileBrowser::ToggleTag() {
  const BrowserEntry* e = current();
  if (e == nullptr) return Status::FailedPrecondition("nothing here to tag");
  if (e->is_dir) {
    return Status::FailedPrecondition(e->name + " is a directory: Enter opens it, g with " +
                                      e->name + "/* tags what is in it");
  }
  if (IsTagged(e->path)) {
    Untag(e->path);  // even when it has since become unreadable
    return Status::OK();
  }
  if (!e->readable()) {
    return Status::FailedPrecondition("tarn cannot read " + e->name + ": " + e->unreadable);
  }
  Tag(e->path);
  return Status::OK();
}

int FileBrowser::TagAllHere() {
  int added = 0;
  for (const BrowserEntry& e : entries_) {
    if (e.is_dir || !e.readable() || IsTagged(e.path)) continue;
    Tag(e.path);
    ++added;
  }
  return added;
}

void FileBrowser::ToggleHidden() {
  show_hidden_ = !show_hidden_;
  auto rows = ListDir(dir_, show_hidden_);
  if (rows.ok()) entries_ = std::move(rows).value();
  cursor_ = 0;
}

Status FileBrowser::Refresh() {
  TARN_ASSIGN_OR_RETURN(entries_, ListDir(dir_, show_hidden_));
  MoveTo(cursor_);
  return Status::OK();
}

Result<std::string> FileBrowser::GoTo(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return Status::InvalidArgument("type a path, folder or glob");
  const size_t last = text.find_last_not_of(" \t\r\n");
  const std::string typed = text.substr(first, last - first + 1);
  const std::string path = Absolute(typed, dir_);

  // Leading components without glob characters name the directory a glob walks from.
  const std::vector<std::string_view> parts = SplitPath(path);
  size_t base_len = 0;
  while (base_len < parts.size() && !HasGlobMeta(parts[base_len])) ++base_len;

  if (base_len == parts.size()) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) {
        return Status::NotFound("no such file or directory: " + DisplayPath(path));
      }
      return Status::FailedPrecondition("tarn cannot read " + DisplayPath(path) + ": " +
                                        ErrnoReason(errno));
    }
    if (S_ISDIR(st.st_mode)) {
      TARN_RETURN_NOT_OK(Open(path));
      return "opened " + DisplayPath(path);
    }
    const std::string reason = FileReason(path, st);
    if (!reason.empty()) {
      return Status::FailedPrecondition("tarn cannot read " + DisplayPath(path) + ": " + reason);
    }
    const std::string shown = DisplayFrom(dir_, path);
    if (IsTagged(path)) return shown + " is already tagged";
    Tag(path);
    return "tagged " + shown;
  }

  GlobWalk walk;
  walk.max_visits = options_.max_glob_visits;
  std::string base = "/";
  for (size_t i = 0; i < base_len; ++i) base = Join(base, parts[i]);
  for (size_t i = base_len; i < parts.size(); ++i) walk.comps.emplace_back(parts[i]);
  walk.Walk(base, 0);

  const std::string capped_note =
      "stopped after looking at " + std::to_string(options_.max_glob_visits) + " entries";
  if (walk.readable.empty()) {
    if (walk.unreadable.empty()) {
      return Status::NotFound("nothing matches " + DisplayPath(path) +
                              (walk.capped ? " (" + capped_note + ")" : ""));
    }
    const std::string& example = *walk.unreadable.begin();
    const size_t n = walk.unreadable.size();
    return Status::FailedPrecondition(
        std::to_string(n) + (n == 1 ? " file matches" : " files match") + " " + DisplayPath(path) +
        " but tarn cannot read " + (n == 1 ? "it" : "any of them") + " (" +
        DisplayFrom(dir_, example) + ": " + UnreadableReason(example) + ")");
  }
  int newly = 0, already = 0;
  for (const std::string& file : walk.readable) {
    if (IsTagged(file)) {
      ++already;
      continue;
    }
    Tag(file);
    ++newly;
  }
  std::vector<std::string> notes;
  if (already > 0) notes.push_back(std::to_string(already) + " already tagged");
  if (!walk.unreadable.empty()) {
    notes.push_back(std::to_string(walk.unreadable.size()) + " unreadable skipped");
  }
  if (walk.capped) notes.push_back(capped_note);
  std::string message = "tagged " + std::to_string(newly) + (newly == 1 ? " file" : " files");
  for (size_t i = 0; i < notes.size(); ++i) {
    message += (i == 0 ? " (" : ", ") + notes[i];
  }
  if (!notes.empty()) message += ")";
  return message;
}

int FileBrowser::added() const {
  int n = 0;
  for (const std::string& path : tagged_) {
    if (listed_.count(path) == 0) ++n;
  }
  return n;
}

void FileBrowser::Tag(const std::string& path) {
  if (!tagged_set_.insert(path).second) return;
  tagged_.push_back(path);
}

void FileBrowser::Untag(const std::string& path) {
  if (tagged_set_.erase(path) == 0) return;
  tagged_.erase(std::find(tagged_.begin(), tagged_.end(), path));
}

}  // namespace tarn::tui
