// ObjectStore: the one interface every byte of the warehouse goes through (local directory,
// S3-compatible store, memory), chosen by URI. See src/objectstore/README.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/io.h"
#include "tarn/status.h"

namespace tarn {

// What Head and listings report about one object.
struct ObjectInfo {
  std::string key;  // relative to the store's root
  uint64_t size = 0;
  std::string etag;      // opaque version tag (S3 ETag without quotes); changes when rewritten
  int64_t mtime_ms = 0;  // last modification, milliseconds since the Unix epoch
};

// One page of a listing: objects in byte order of their keys.
struct ListPage {
  std::vector<ObjectInfo> objects;
  std::string next_token;  // pass to the next ListPage call; empty when this was the last page
};

struct WriteOptions {
  // Conditional create: fail with kFailedPrecondition if the key already exists. Atomic on the
  // local and memory stores and on S3 backends that honour If-None-Match (see the README for
  // the fallback on those that do not).
  bool if_absent = false;
  // Multipart part size for streaming writes; 0 = the store's default (S3: 8 MiB). The writer
  // holds at most (1 + upload concurrency) parts in memory.
  uint64_t part_size = 0;
};

// A store of immutable objects under a root, addressed by keys: relative '/'-separated UTF-8
// paths without empty, "." or ".." segments (ValidateKey). All methods are thread-safe; the
// streams they return are not (one thread at a time per stream).
//
// Errors: kNotFound (no such object), kPermissionDenied (credentials refused, including a wrong
// secret; a symlink in a local store), kFailedPrecondition (conditional create found the key,
// or an object changed under an open reader), kUnavailable (retryable: the store is down or
// throttling and retries ran out), kInvalidArgument (bad key, URI or option), kCorruption (a
// malformed response), kIOError (local I/O).
class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // URI of the root: "file:///abs/dir", "s3://bucket/prefix", "gs://bucket", "mem://name".
  virtual const std::string& uri() const = 0;

  // Size, etag and modification time of an object.
  virtual Result<ObjectInfo> Head(std::string_view key) = 0;
  // The whole object.
  virtual Result<std::string> Get(std::string_view key) = 0;
  // A reader for ranged reads (on S3 each ReadAt is one ranged GET). The size is fixed when
  // opened; a read after the object was replaced fails with kFailedPrecondition where the
  // backend can tell (S3 If-Match), otherwise it reads the object as it was (local: the open
  // file; memory: the old bytes).
  virtual Result<std::shared_ptr<RandomAccessFile>> OpenRead(std::string_view key) = 0;

  // Writes a whole object atomically: readers see the old object, or the new one, never a mix.
  virtual Status Put(std::string_view key, std::string_view data, const WriteOptions& options) = 0;
  Status Put(std::string_view key, std::string_view data) { return Put(key, data, {}); }
  // A streaming writer: nothing is visible until Close() succeeds; then the whole object appears
  // at once. Destroying it unclosed (or a failed Write/Close) discards everything written,
  // aborting the multipart upload on S3. Memory is bounded by the part size, not the object.
  virtual Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key,
                                                          const WriteOptions& options) = 0;
  Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key) {
    return OpenWrite(key, {});
  }

  // One page of the objects whose keys start with `prefix` (a plain string prefix, "" = all),
  // at most `max_keys` of them (0 = the store's default page size), after `token` (empty =
  // from the start; else a next_token of a previous page).
  virtual Result<ListPage> List(std::string_view prefix, std::string_view token,
                                size_t max_keys) = 0;
  // Every object under `prefix`, following pages.
  Result<std::vector<ObjectInfo>> ListAll(std::string_view prefix);

  // Deletes an object; deleting a missing key succeeds.
  virtual Status Delete(std::string_view key) = 0;
  // Deletes many (S3: DeleteObjects, 1000 per request). Missing keys succeed. On failure, some
  // of the keys may have been deleted.
  virtual Status DeleteMany(const std::vector<std::string>& keys);

  // "<uri>/<key>", for messages.
  std::string UriOf(std::string_view key) const;
};

// Checks a key: non-empty, at most 1024 bytes, valid UTF-8 without control characters, no
// leading or trailing '/', no empty, "." or ".." segment. kInvalidArgument otherwise.
Status ValidateKey(std::string_view key);
// Checks a listing prefix: as a key, but may be empty or end with '/'.
Status ValidatePrefix(std::string_view prefix);

// Opens the store of a warehouse URI: "/abs/path" or "file:///abs/path" (a local directory,
// created if missing), "s3://bucket[/prefix]", "gs://bucket[/prefix]" (GCS through its
// S3-interoperable endpoint with HMAC keys). S3 credentials, region and endpoint come from the
// environment (S3Options::FromEnvironment); a relative local path is taken from the current
// directory.
Result<std::shared_ptr<ObjectStore>> OpenObjectStore(std::string_view uri);

// For file arguments of the CLI: a local path (any path; not confined to a root) or an
// s3:// / gs:// / file:// URI of one object. Stores for URIs are cached per bucket, so many
// files share one connection pool.
Result<std::shared_ptr<RandomAccessFile>> OpenInputFile(std::string_view path_or_uri);
// Creates a file or object that appears atomically at Close() (see ObjectStore::OpenWrite).
Result<std::unique_ptr<OutputStream>> CreateOutputFile(std::string_view path_or_uri);

}  // namespace tarn
