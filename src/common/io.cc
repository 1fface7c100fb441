#include "common/io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/random.h"

namespace tarn {

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  if (err == ENOENT) return Status::NotFound(msg);
  if (err == EACCES || err == EPERM) return Status::PermissionDenied(msg);
  if (err == EISDIR || err == ENOTDIR || err == ENAMETOOLONG) return Status::InvalidArgument(msg);
  return Status::IOError(msg);
}

class LocalFile : public RandomAccessFile {
 public:
  LocalFile(int fd, uint64_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  ~LocalFile() override { ::close(fd_); }
  uint64_t Size() const override { return size_; }
  const std::string& name() const override { return path_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > size_ || n > size_ - offset) {
      return Status::Corruption(path_ + ": read of " + std::to_string(n) + " bytes at offset " +
                                std::to_string(offset) + " is past the end (size " +
                                std::to_string(size_) + ", truncated?)");
    }
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("reading", path_, errno);
      }
      if (r == 0) return Status::Corruption(path_ + ": file shrank while reading");
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
};

class MemFile : public RandomAccessFile {
 public:
  MemFile(std::string bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  uint64_t Size() const override { return bytes_.size(); }
  const std::string& name() const override { return name_; }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    if (offset > bytes_.size() || n > bytes_.size() - offset) {
      return Status::Corruption(name_ + ": read past the end (truncated?)");
    }
    if (n > 0) std::memcpy(out, bytes_.data() + offset, n);
    return Status::OK();
  }

 private:
  std::string bytes_;
  std::string name_;
};

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes through a buffer of up to 1 MiB (grown as bytes come, so a small file never touches
// a megabyte of fresh memory) to a temporary file beside the target; Close fsyncs and renames
// it into place, then fsyncs the directory so the rename is durable.
class LocalOutputStream : public OutputStream {
 public:
  // `tmp` == `path`: a staging file (CreateLocalStagingFile), neither renamed nor its directory
  // synced at Close.
  LocalOutputStream(int fd, std::string tmp, std::string path)
      : fd_(fd), tmp_(std::move(tmp)), path_(std::move(path)) {}
  ~LocalOutputStream() override {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(tmp_.c_str());
    }
  }
  Status Write(const uint8_t* data, size_t n) override {
    if (fd_ < 0) return Status::FailedPrecondition("write to a closed file " + path_);
    written_ += n;
    if (buffer_.size() + n <= kBufferSize) {
      buffer_.insert(buffer_.end(), data, data + n);
      return Status::OK();
    }
    TARN_RETURN_NOT_OK(Flush());
    if (n >= kBufferSize) return WriteAll(data, n);
    buffer_.insert(buffer_.end(), data, data + n);
    return Status::OK();
  }
  uint64_t Tell() const override { return written_; }
  Status Close() override {
    if (fd_ < 0) return Status::OK();
    TARN_RETURN_NOT_OK(Flush());
    if (::fsync(fd_) != 0) return ErrnoStatus("syncing", tmp_, errno);
    if (::close(fd_) != 0) {
      fd_ = -1;
      ::unlink(tmp_.c_str());
      return ErrnoStatus("closing", tmp_, errno);
    }
    fd_ = -1;
    if (tmp_ == path_) return Status::OK();  // staged: the caller renames it
    if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp_.c_str());
      return ErrnoStatus("renaming into", path_, err);
    }
    int dfd = ::open(DirName(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
    return Status::OK();
  }

 private:
  static constexpr size_t kBufferSize = 1 << 20;
  Status Flush() {
    Status st = WriteAll(buffer_.data(), buffer_.size());
    buffer_.clear();
    return st;
  }
  Status WriteAll(const uint8_t* data, size_t n) {
    while (n > 0) {
      ssize_t r = ::write(fd_, data, n);
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("writing", tmp_, errno);
      }
      data += r;
      n -= static_cast<size_t>(r);
    }
    return Status::OK();
  }
  int fd_;
  std::string tmp_;
  std::string path_;
  ByteBuffer buffer_;
  uint64_t written_ = 0;
};

}  // namespace

Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("opening", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("inspecting", path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument(path + " is a directory");
  }
  return std::shared_ptr<RandomAccessFile>(
      new LocalFile(fd, static_cast<uint64_t>(st.st_size), path));
}

namespace {

// Opens `tmp` exclusively for a file that will be `path`.
Result<std::unique_ptr<OutputStream>> OpenLocalOutput(const std::string& tmp,
                                                      const std::string& path, FileAccess access) {
  const bool private_file = access == FileAccess::kOwnerOnly;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, private_file ? 0600 : 0644);
  if (fd < 0) return ErrnoStatus("creating", path, errno);
  // The umask may have removed owner bits from 0600; never added group/other ones.
  if (private_file && ::fchmod(fd, 0600) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return ErrnoStatus("setting the mode of", path, err);
  }
  return std::unique_ptr<OutputStream>(new LocalOutputStream(fd, tmp, path));
}

}  // namespace

Result<std::unique_ptr<OutputStream>> CreateLocalFile(const std::string& path, FileAccess access) {
  // 64 random bits name the temporary file: no two writers (threads or processes) share one.
  return OpenLocalOutput(path + ".tmp-" + std::to_string(RandomU64()), path, access);
}

Result<std::unique_ptr<OutputStream>> CreateLocalStagingFile(const std::string& path,
                                                             FileAccess access) {
  return OpenLocalOutput(path, path, access);
}

Status CreateLocalDirectories(const std::string& path, FileAccess access) {
  const mode_t mode = access == FileAccess::kOwnerOnly ? 0700 : 0755;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != '/') continue;
    if (path[i - 1] == '/') continue;  // "a//b", or a trailing '/'
    std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), mode) == 0) {
      if (access == FileAccess::kOwnerOnly && ::chmod(part.c_str(), mode) != 0) {
        return ErrnoStatus("setting the mode of", part, errno);
      }
      continue;
    }
    int err = errno;
    struct stat st;
    if (::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;  // existed already
    return ErrnoStatus("creating directory", part, err == EEXIST ? ENOTDIR : err);
  }
  return Status::OK();
}

std::shared_ptr<RandomAccessFile> MemoryFile(std::string bytes, std::string name) {
  return std::make_shared<MemFile>(std::move(bytes), std::move(name));
}

Status MemoryOutputStream::Write(const uint8_t* data, size_t n) {
  if (closed_) return Status::FailedPrecondition("write to a closed stream");
  bytes_.append(reinterpret_cast<const char*>(data), n);
  return Status::OK();
}

}  // namespace tarn
