#include "objectstore/local/local_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "common/random.h"

namespace tarn {

namespace {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

Status ErrnoError(std::string_view what, std::string_view path, int err) {
  std::string msg = std::string(what) + " " + std::string(path) + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Status::NotFound(std::move(msg));
    case EACCES:
    case EPERM:
      return Status::PermissionDenied(std::move(msg));
    case ELOOP:
      return Status::PermissionDenied(std::string(what) + " " + std::string(path) +
                                      ": a symbolic link (never followed in a warehouse)");
    case ENAMETOOLONG:
    case EINVAL:
      return Status::InvalidArgument(std::move(msg));
    default:
      return Status::IOError(std::move(msg));
  }
}

// In-progress writes end in ".tmp-<alphanumerics>" (CreateLocalFile's temporaries and our
// conditional-create staging files).
bool IsTempName(std::string_view name) {
  size_t pos = name.rfind(".tmp-");
  if (pos == std::string_view::npos || pos + 5 == name.size()) return false;
  for (size_t i = pos + 5; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
      return false;
    }
  }
  return true;
}

std::string_view LeafOf(std::string_view key) {
  size_t slash = key.rfind('/');
  return slash == std::string_view::npos ? key : key.substr(slash + 1);
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

std::string EtagOf(const struct stat& st) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%llx-%llx-%llx",
                static_cast<unsigned long long>(st.st_mtim.tv_sec) * 1000000000ULL +
                    static_cast<unsigned long long>(st.st_mtim.tv_nsec),
                static_cast<unsigned long long>(st.st_size),
                static_cast<unsigned long long>(st.st_ino));
  return buf;
}

// Objects and the directories made for them are the owner's only (issue 14): a warehouse
// holds every dataset's rows, whoever may read them through the catalog.
constexpr mode_t kDirMode = 0700;

uint64_t Nonce() { return RandomU64(); }

// Reads a whole regular file by descriptor.
Status ReadFully(int fd, uint64_t offset, size_t n, uint8_t* out, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, out + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("reading", path, errno);
    }
    if (r == 0) return Status::Corruption(path + ": file shrank while reading");
    done += static_cast<size_t>(r);
  }
  return Status::OK();
}

class LocalObjectFile : public RandomAccessFile {
 public:
  LocalObjectFile(UniqueFd fd, uint64_t size, std::string path)
      : fd_(std::move(fd)), size_(size), path_(std::move(path)) {}
  uint64_t Size() const override { return size_; }
  const std::string& name() const override { return path_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corruption(path_ + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end (size " +
                                std::to_string(size_) + ", truncated?)");
    }
    return ReadFully(fd_.get(), offset, n, out, path_);
  }

 private:
  UniqueFd fd_;
  uint64_t size_;
  std::string path_;
};

// Streams into CreateLocalFile's temporary (addressed through the held parent descriptor, so
// no path is re-resolved); for a conditional create, Close renames the finished staging file
// onto the key without replacing.
class LocalWriter : public OutputStream {
 public:
  LocalWriter(UniqueFd parent, std::string leaf, std::string stage,
              std::unique_ptr<OutputStream> inner, bool if_absent, std::string path)
      : parent_(std::move(parent)),
        leaf_(std::move(leaf)),
        stage_(std::move(stage)),
        inner_(std::move(inner)),
        if_absent_(if_absent),
        path_(std::move(path)) {}

  Status Write(const uint8_t* data, size_t n) override {
    if (!status_.ok()) return status_;
    if (closed_) return Status::FailedPrecondition("write to a closed object " + path_);
    Status st = inner_->Write(data, n);
    if (!st.ok()) status_ = st.WithContext("writing " + path_);
    return status_;
  }
  uint64_t Tell() const override { return inner_->Tell(); }
  Status Close() override {
    if (!status_.ok()) return status_;
    if (closed_) return Status::OK();
    closed_ = true;
    Status st = inner_->Close();
    if (!st.ok()) return status_ = st.WithContext("writing " + path_);
    if (!if_absent_) return Status::OK();
    int pfd = parent_.get();
    int rc = ::renameat2(pfd, stage_.c_str(), pfd, leaf_.c_str(), RENAME_NOREPLACE);
    int err = rc == 0 ? 0 : errno;
    bool linked = false;
    if (rc != 0 && (err == EINVAL || err == ENOSYS)) {
      // A file system without RENAME_NOREPLACE: link() fails atomically if the name exists.
      linked = true;
      rc = ::linkat(pfd, stage_.c_str(), pfd, leaf_.c_str(), 0);
      err = rc == 0 ? 0 : errno;
    }
    // A rename leaves no stage name behind; a link (or a failure) does.
    if (rc != 0 || linked) ::unlinkat(pfd, stage_.c_str(), 0);
    if (rc != 0) {
      if (err == EEXIST) {
        return status_ = Status::FailedPrecondition(path_ + " already exists (conditional create)");
      }
      return status_ = ErrnoError("renaming into", path_, err);
    }
    ::fsync(pfd);
    return Status::OK();
  }

 private:
  UniqueFd parent_;
  std::string leaf_;
  std::string stage_;
  std::unique_ptr<OutputStream> inner_;
  bool if_absent_;
  std::string path_;
  bool closed_ = false;
  Status status_;
};

bool ProcFdAvailable() {
  static const bool available = ::access("/proc/self/fd", X_OK) == 0;
  return available;
}

}  // namespace

// The descriptor-relative walking shared by every operation.
class LocalObjectStore::Impl {
 public:
  // Opens every directory from the root down to the key's parent (chain[0] is the root). With
  // `create`, missing directories are made (and their parents fsynced).
  static Result<std::vector<UniqueFd>> OpenParents(const LocalObjectStore& s, std::string_view key,
                                                   bool create) {
    std::vector<UniqueFd> chain;
    int root = ::openat(s.root_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) return ErrnoError("opening", s.root_, errno);
    chain.emplace_back(root);
    size_t start = 0;
    while (true) {
      size_t slash = key.find('/', start);
      if (slash == std::string_view::npos) break;
      std::string seg(key.substr(start, slash - start));
      int dir = chain.back().get();
      int fd = ::openat(dir, seg.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0 && errno == ENOENT && create) {
        bool made = false;
        if (::mkdirat(dir, seg.c_str(), kDirMode) == 0) {
          made = true;
          ::fsync(dir);
        } else if (errno != EEXIST) {
          return ErrnoError("creating directory", s.PathOf(key.substr(0, slash)), errno);
        }
        fd = ::openat(dir, seg.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && made) ::fchmod(fd, kDirMode);  // exactly, whatever the umask
      }
      if (fd < 0) {
        int err = errno;
        std::string path = s.PathOf(key.substr(0, slash));
        struct stat st;
        if ((err == ENOTDIR || err == ELOOP) &&
            ::fstatat(dir, seg.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
          if (S_ISLNK(st.st_mode)) return ErrnoError("opening", path, ELOOP);
          if (create) {
            return Status::FailedPrecondition(path + " is an object, so it cannot hold " +
                                              s.PathOf(key));
          }
          return Status::NotFound(s.PathOf(key) + ": no such object (" + path +
                                  " is not a directory)");
        }
        return ErrnoError("opening", path, err);
      }
      chain.emplace_back(fd);
      start = slash + 1;
    }
    return chain;
  }

  struct Entry {
    std::string sort_name;  // a directory's name ends in '/', so byte order is key order
    bool dir;
    struct stat st;
  };

  // Appends up to `limit` + 1 objects after `token` under `prefix` to `out`, in key order.
  // Returns true when the limit was reached (stop walking).
  static Result<bool> Walk(const LocalObjectStore& s, int dirfd, const std::string& base,
                           std::string_view prefix, std::string_view token, size_t limit,
                           std::vector<ObjectInfo>* out) {
    std::vector<Entry> entries;
    {
      int dup = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dup < 0) return ErrnoError("listing", s.PathOf(base), errno);
      DIR* d = ::fdopendir(dup);
      if (d == nullptr) {
        int err = errno;
        ::close(dup);
        return ErrnoError("listing", s.PathOf(base), err);
      }
      while (true) {
        errno = 0;
        struct dirent* e = ::readdir(d);
        if (e == nullptr) {
          int err = errno;
          ::closedir(d);
          if (err != 0) return ErrnoError("listing", s.PathOf(base), err);
          break;
        }
        std::string_view name(e->d_name);
        if (name == "." || name == "..") continue;
        Entry entry;
        if (::fstatat(dirfd, e->d_name, &entry.st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // raced
        if (S_ISDIR(entry.st.st_mode)) {
          entry.dir = true;
          entry.sort_name = std::string(name) + "/";
        } else if (S_ISREG(entry.st.st_mode)) {
          if (IsTempName(name)) continue;
          entry.dir = false;
          entry.sort_name = std::string(name);
        } else {
          continue;  // symlinks, fifos, sockets, devices: not objects
        }
        entries.push_back(std::move(entry));
      }
    }
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.sort_name < b.sort_name; });
    for (const Entry& entry : entries) {
      std::string full = base + entry.sort_name;
      if (entry.dir) {
        if (!StartsWith(full, prefix) && !StartsWith(prefix, full)) continue;
        // Every key below starts with `full`: all of them are <= token unless the token is
        // below `full` or before it.
        if (!token.empty() && std::string_view(full) < token && !StartsWith(token, full)) continue;
        std::string name = entry.sort_name.substr(0, entry.sort_name.size() - 1);
        int sub = ::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) continue;  // removed or replaced meanwhile
        UniqueFd subfd(sub);
        TARN_ASSIGN_OR_RETURN(bool done, Walk(s, sub, full, prefix, token, limit, out));
        if (done) return true;
      } else {
        if (!StartsWith(full, prefix)) continue;
        if (!token.empty() && std::string_view(full) <= token) continue;
        if (!ValidateKey(full).ok()) continue;  // a name no key can have
        ObjectInfo info;
        info.size = static_cast<uint64_t>(entry.st.st_size);
        info.mtime_ms = MtimeMs(entry.st);
        info.etag = EtagOf(entry.st);
        info.key = std::move(full);
        out->push_back(std::move(info));
        if (out->size() > limit) return true;
      }
    }
    return false;
  }
};

LocalObjectStore::LocalObjectStore(std::string root, int root_fd, LocalStoreOptions options)
    : root_(std::move(root)), uri_("file://" + root_), root_fd_(root_fd), options_(options) {}

LocalObjectStore::~LocalObjectStore() { ::close(root_fd_); }

Result<std::shared_ptr<LocalObjectStore>> LocalObjectStore::Open(std::string_view root,
                                                                 LocalStoreOptions options) {
  if (root.empty()) return Status::InvalidArgument("empty local warehouse path");
  if (root.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("local warehouse path contains a NUL byte");
  }
  std::string path(root);
  if (options.create_root) {
    Status made = CreateLocalDirectories(path, FileAccess::kOwnerOnly);
    if (!made.ok()) return made.WithContext("creating the warehouse directory");
  }
  char resolved[PATH_MAX];
  if (::realpath(path.c_str(), resolved) == nullptr) {
    return ErrnoError("opening warehouse directory", path, errno);
  }
  int fd = ::open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoError("opening warehouse directory", resolved, errno);
  std::string canonical(resolved);
  while (canonical.size() > 1 && canonical.back() == '/') canonical.pop_back();
  if (options.list_page_size == 0) options.list_page_size = 1000;
  return std::shared_ptr<LocalObjectStore>(new LocalObjectStore(canonical, fd, options));
}

std::string LocalObjectStore::PathOf(std::string_view key) const {
  if (key.empty()) return root_;
  std::string path = root_;
  if (path != "/") path += '/';
  path += key;
  return path;
}

Result<ObjectInfo> LocalObjectStore::Head(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  TARN_ASSIGN_OR_RETURN(auto chain, Impl::OpenParents(*this, key, false));
  std::string leaf(LeafOf(key));
  struct stat st;
  if (::fstatat(chain.back().get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return ErrnoError("inspecting", PathOf(key), errno);
  }
  if (S_ISLNK(st.st_mode)) return ErrnoError("inspecting", PathOf(key), ELOOP);
  if (!S_ISREG(st.st_mode) || IsTempName(leaf)) {
    return Status::NotFound(PathOf(key) + ": no such object (not a regular file)");
  }
  ObjectInfo info;
  info.key = std::string(key);
  info.size = static_cast<uint64_t>(st.st_size);
  info.etag = EtagOf(st);
  info.mtime_ms = MtimeMs(st);
  return info;
}

Result<std::shared_ptr<RandomAccessFile>> LocalObjectStore::OpenRead(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  TARN_ASSIGN_OR_RETURN(auto chain, Impl::OpenParents(*this, key, false));
  std::string leaf(LeafOf(key));
  std::string path = PathOf(key);
  if (IsTempName(leaf)) return Status::NotFound(path + ": no such object");
  // O_NONBLOCK: opening a FIFO planted in the warehouse must not hang.
  int fd =
      ::openat(chain.back().get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ErrnoError("opening", path, errno);
  UniqueFd file(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return ErrnoError("inspecting", path, errno);
  if (!S_ISREG(st.st_mode)) return Status::NotFound(path + ": no such object (not a regular file)");
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return std::shared_ptr<RandomAccessFile>(
      new LocalObjectFile(std::move(file), static_cast<uint64_t>(st.st_size), std::move(path)));
}

Result<std::string> LocalObjectStore::Get(std::string_view key) {
  TARN_ASSIGN_OR_RETURN(auto file, OpenRead(key));
  uint64_t size = file->Size();
  if (size > SIZE_MAX / 2) return Status::TooLarge(file->name() + " is too large to read whole");
  std::string bytes(static_cast<size_t>(size), '\0');
  TARN_RETURN_NOT_OK(file->ReadAt(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data())));
  return bytes;
}

Result<std::unique_ptr<OutputStream>> LocalObjectStore::OpenWrite(std::string_view key,
                                                                  const WriteOptions& options) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  std::string leaf(LeafOf(key));
  std::string path = PathOf(key);
  if (IsTempName(leaf)) {
    return Status::InvalidArgument(path + ": names ending in \".tmp-<letters or digits>\" are " +
                                   "reserved for in-progress writes");
  }
  Result<std::vector<UniqueFd>> chain = Status::Internal("unset");
  // A concurrent Delete may remove a just-created empty directory: walk again.
  for (int attempt = 0; attempt < 3; ++attempt) {
    chain = Impl::OpenParents(*this, key, true);
    if (!chain.ok()) return chain.status();
    struct stat st;
    int pfd = chain->back().get();
    if (::fstatat(pfd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISDIR(st.st_mode)) {
        return Status::FailedPrecondition(path + " is a directory of other objects");
      }
      if (S_ISLNK(st.st_mode)) return ErrnoError("writing", path, ELOOP);
      if (options.if_absent) {
        return Status::FailedPrecondition(path + " already exists (conditional create)");
      }
    }
    std::string stage = options.if_absent ? leaf + ".tmp-c" + std::to_string(Nonce()) : leaf;
    std::string dir_path = ProcFdAvailable() ? "/proc/self/fd/" + std::to_string(pfd)
                                             : PathOf(key.substr(0, key.size() - leaf.size()));
    if (!dir_path.empty() && dir_path.back() != '/') dir_path += '/';
    // A conditional create writes its unique stage name directly (renamed into place and the
    // directory synced by LocalWriter::Close); a plain one goes through a temporary of its own.
    Result<std::unique_ptr<OutputStream>> inner =
        options.if_absent ? CreateLocalStagingFile(dir_path + stage, FileAccess::kOwnerOnly)
                          : CreateLocalFile(dir_path + stage, FileAccess::kOwnerOnly);
    if (!inner.ok()) {
      if (inner.status().kind() == ErrorKind::kNotFound && attempt < 2) continue;
      return inner.status().WithContext("creating " + path);
    }
    UniqueFd parent = std::move(chain->back());
    return std::unique_ptr<OutputStream>(new LocalWriter(std::move(parent), std::move(leaf),
                                                         std::move(stage), std::move(*inner),
                                                         options.if_absent, std::move(path)));
  }
  return Status::Unavailable("creating " + path + ": its directory keeps disappearing");
}

Status LocalObjectStore::Put(std::string_view key, std::string_view data,
                             const WriteOptions& options) {
  TARN_ASSIGN_OR_RETURN(auto out, OpenWrite(key, options));
  TARN_RETURN_NOT_OK(out->Write(data));
  return out->Close();
}

Result<ListPage> LocalObjectStore::List(std::string_view prefix, std::string_view token,
                                        size_t max_keys) {
  TARN_RETURN_NOT_OK(ValidatePrefix(prefix));
  if (max_keys == 0) max_keys = options_.list_page_size;
  ListPage page;
  TARN_ASSIGN_OR_RETURN(bool more,
                        Impl::Walk(*this, root_fd_, "", prefix, token, max_keys, &page.objects));
  if (more && page.objects.size() > max_keys) {
    page.objects.pop_back();
    page.next_token = page.objects.back().key;
  }
  return page;
}

Status LocalObjectStore::Delete(std::string_view key) {
  TARN_RETURN_NOT_OK(ValidateKey(key));
  Result<std::vector<UniqueFd>> chain = Impl::OpenParents(*this, key, false);
  if (!chain.ok()) {
    return chain.status().kind() == ErrorKind::kNotFound ? Status::OK() : chain.status();
  }
  std::string leaf(LeafOf(key));
  if (IsTempName(leaf)) return Status::OK();
  struct stat st;
  int pfd = chain->back().get();
  if (::fstatat(pfd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? Status::OK() : ErrnoError("deleting", PathOf(key), errno);
  }
  if (S_ISDIR(st.st_mode)) return Status::OK();  // not an object
  if (::unlinkat(pfd, leaf.c_str(), 0) != 0 && errno != ENOENT) {
    return ErrnoError("deleting", PathOf(key), errno);
  }
  // Remove the directories this delete left empty, up to (not including) the root.
  std::vector<std::string_view> segments;
  size_t start = 0;
  for (size_t slash; (slash = key.find('/', start)) != std::string_view::npos; start = slash + 1) {
    segments.push_back(key.substr(start, slash - start));
  }
  for (size_t i = segments.size(); i > 0; --i) {
    std::string seg(segments[i - 1]);
    if (::unlinkat((*chain)[i - 1].get(), seg.c_str(), AT_REMOVEDIR) != 0) break;
  }
  return Status::OK();
}

}  // namespace tarn
