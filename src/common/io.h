// Byte-level I/O interfaces the file formats are written against. The object store module
// provides implementations over local files and S3; here live the local-file and in-memory ones.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn {

// A readable object of known size. Implementations are safe for concurrent ReadAt calls.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  virtual uint64_t Size() const = 0;
  // Reads exactly n bytes at offset into out. Reading past the end is kCorruption
  // ("truncated"), an OS failure kIOError.
  virtual Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const = 0;
  // A name for error messages (path or URI).
  virtual const std::string& name() const = 0;
};

// A sequential sink. Not thread-safe. Close() must be called for the bytes to be durable and
// visible; destroying an unclosed stream abandons what was written.
class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const uint8_t* data, size_t n) = 0;
  Status Write(std::string_view s) {
    return Write(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
  virtual uint64_t Tell() const = 0;
  virtual Status Close() = 0;
};

// Opens a local file for reading (kNotFound when missing).
Result<std::shared_ptr<RandomAccessFile>> OpenLocalFile(const std::string& path);
// Who may read a file or directory tarn creates.
enum class FileAccess : uint8_t {
  kDefault,    // files 0644, directories 0755, less what the umask removes
  kOwnerOnly,  // files 0600, directories 0700 exactly, whatever the umask (catalog files)
};

// Creates a local file; it appears at `path` atomically at Close (written to a temporary name,
// fsynced, renamed, the directory fsynced). Without Close, nothing appears. The temporary already
// has its final mode.
Result<std::unique_ptr<OutputStream>> CreateLocalFile(const std::string& path,
                                                      FileAccess access = FileAccess::kDefault);
// Creates `path` itself, exclusively (an error when it exists), for a caller that renames it
// into place: Close fsyncs the file and nothing else; without Close it is removed. For names
// that are already temporaries (the local object store's staged writes).
Result<std::unique_ptr<OutputStream>> CreateLocalStagingFile(const std::string& path,
                                                             FileAccess access);
// mkdir -p: the directories it creates get the mode of `access`; existing ones are left as
// they are. kIOError / kPermissionDenied naming the component that failed.
Status CreateLocalDirectories(const std::string& path, FileAccess access);

// In-memory implementations, for tests and for bytes already in memory.
std::shared_ptr<RandomAccessFile> MemoryFile(std::string bytes, std::string name = "<memory>");
class MemoryOutputStream : public OutputStream {
 public:
  Status Write(const uint8_t* data, size_t n) override;
  uint64_t Tell() const override { return bytes_.size(); }
  Status Close() override {
    closed_ = true;
    return Status::OK();
  }
  const std::string& bytes() const { return bytes_; }
  bool closed() const { return closed_; }

 private:
  std::string bytes_;
  bool closed_ = false;
};

}  // namespace tarn
