#include "objectstore/object_store.h"

#include <map>
#include <mutex>
#include <utility>

#include "common/hex.h"
#include "common/utf8.h"
#include "objectstore/local/local_store.h"
#include "objectstore/s3/s3_store.h"

namespace tarn {

namespace {

// Length of the UTF-8 sequence at s[i], or 0 if it is malformed (overlong, surrogate, > U+10FFFF)
// or a control character.
size_t Utf8CharLen(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return (c < 0x20 || c == 0x7F) ? 0 : 1;
  size_t len = Utf8SequenceAt(s, i);
  if (len == 2 && c == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) return 0;  // C1
  return len;
}

Status CheckText(std::string_view what, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = Utf8CharLen(s, i);
    if (n == 0) {
      return Status::InvalidArgument(std::string(what) +
                                     " is not valid UTF-8 or contains a control character (byte " +
                                     std::to_string(i) + ")");
    }
    i += n;
  }
  return Status::OK();
}

// Checks the '/'-separated segments of s; the last may be empty when `allow_trailing_slash`.
Status CheckSegments(std::string_view what, std::string_view s, bool allow_trailing_slash) {
  if (!s.empty() && s.front() == '/') {
    return Status::InvalidArgument(std::string(what) + " '" + std::string(s) +
                                   "' starts with '/' (keys are relative)");
  }
  size_t start = 0;
  while (start <= s.size()) {
    size_t slash = s.find('/', start);
    bool last = slash == std::string_view::npos;
    std::string_view seg = s.substr(start, last ? std::string_view::npos : slash - start);
    if (seg.empty() && !(last && allow_trailing_slash)) {
      return Status::InvalidArgument(std::string(what) + " '" + std::string(s) +
                                     "' has an empty segment");
    }
    if (seg == "." || seg == "..") {
      return Status::InvalidArgument(std::string(what) + " '" + std::string(s) +
                                     "' has a '.' or '..' segment");
    }
    if (last) break;
    start = slash + 1;
  }
  return Status::OK();
}

constexpr size_t kMaxKeyBytes = 1024;

bool HasScheme(std::string_view s, std::string_view scheme) {
  return s.size() > scheme.size() + 3 && s.compare(0, scheme.size(), scheme) == 0 &&
         s.compare(scheme.size(), 3, "://") == 0;
}

// "file:///abs/path" (or "file://localhost/abs/path") to "/abs/path"; anything else unchanged.
Result<std::string> LocalPathOf(std::string_view path_or_uri) {
  if (path_or_uri.rfind("file://", 0) != 0) {
    if (path_or_uri.find("://") != std::string_view::npos) {
      size_t colon = path_or_uri.find("://");
      return Status::InvalidArgument("unsupported URI scheme '" +
                                     std::string(path_or_uri.substr(0, colon)) +
                                     "' (known: file://, s3://, gs://)");
    }
    if (path_or_uri.empty()) return Status::InvalidArgument("empty path");
    return std::string(path_or_uri);
  }
  std::string_view rest = path_or_uri.substr(7);
  if (rest.rfind("localhost/", 0) == 0) rest.remove_prefix(9);
  if (rest.empty() || rest.front() != '/') {
    return Status::InvalidArgument("file URI '" + std::string(path_or_uri) +
                                   "' must be absolute (file:///path)");
  }
  return *PercentDecode(rest, /*plus_is_space=*/false, BadPercentEscape::kKeep);
}

bool IsObjectUri(std::string_view s) { return HasScheme(s, "s3") || HasScheme(s, "gs"); }

// One store per scheme://bucket for the CLI's file arguments, so they share connections.
Result<std::pair<std::shared_ptr<ObjectStore>, std::string>> StoreAndKeyOf(std::string_view uri) {
  size_t scheme_end = uri.find("://");
  size_t bucket_start = scheme_end + 3;
  size_t slash = uri.find('/', bucket_start);
  if (slash == std::string_view::npos || slash + 1 >= uri.size()) {
    std::string msg(uri);
    msg += "' names a bucket, not an object (expected ";
    msg += uri.substr(0, scheme_end);
    msg += "://bucket/key)";
    return Status::InvalidArgument("'" + msg);
  }
  std::string root(uri.substr(0, slash));
  std::string key(uri.substr(slash + 1));
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<ObjectStore>>* cache =
      new std::map<std::string, std::shared_ptr<ObjectStore>>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(root);
  if (it == cache->end()) {
    TARN_ASSIGN_OR_RETURN(std::shared_ptr<ObjectStore> store, OpenObjectStore(root));
    it = cache->emplace(root, std::move(store)).first;
  }
  return std::make_pair(it->second, std::move(key));
}

}  // namespace

Status ValidateKey(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("empty object key");
  if (key.size() > kMaxKeyBytes) {
    return Status::InvalidArgument("object key of " + std::to_string(key.size()) +
                                   " bytes is longer than " + std::to_string(kMaxKeyBytes));
  }
  TARN_RETURN_NOT_OK(CheckText("object key", key));
  return CheckSegments("object key", key, /*allow_trailing_slash=*/false);
}

Status ValidatePrefix(std::string_view prefix) {
  if (prefix.empty()) return Status::OK();
  if (prefix.size() > kMaxKeyBytes) {
    return Status::InvalidArgument("listing prefix longer than " + std::to_string(kMaxKeyBytes) +
                                   " bytes");
  }
  TARN_RETURN_NOT_OK(CheckText("listing prefix", prefix));
  return CheckSegments("listing prefix", prefix, /*allow_trailing_slash=*/true);
}

std::string ObjectStore::UriOf(std::string_view key) const {
  std::string out = uri();
  if (out.empty() || out.back() != '/') out += '/';
  out += key;
  return out;
}

Result<std::vector<ObjectInfo>> ObjectStore::ListAll(std::string_view prefix) {
  std::vector<ObjectInfo> all;
  std::string token;
  while (true) {
    TARN_ASSIGN_OR_RETURN(ListPage page, List(prefix, token, 0));
    for (ObjectInfo& info : page.objects) all.push_back(std::move(info));
    if (page.next_token.empty()) break;
    if (page.next_token == token) {
      return Status::Corruption("listing " + UriOf(prefix) + ": the store repeated a page token");
    }
    token = std::move(page.next_token);
  }
  return all;
}

Status ObjectStore::DeleteMany(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) TARN_RETURN_NOT_OK(Delete(key));
  return Status::OK();
}

Result<std::shared_ptr<ObjectStore>> OpenObjectStore(std::string_view uri) {
  if (IsObjectUri(uri)) {
    TARN_ASSIGN_OR_RETURN(S3Options options, S3Options::FromUri(uri));
    TARN_ASSIGN_OR_RETURN(std::shared_ptr<S3ObjectStore> store,
                          S3ObjectStore::Make(std::move(options)));
    return std::shared_ptr<ObjectStore>(std::move(store));
  }
  TARN_ASSIGN_OR_RETURN(std::string path, LocalPathOf(uri));
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<LocalObjectStore> store, LocalObjectStore::Open(path));
  return std::shared_ptr<ObjectStore>(std::move(store));
}

Result<std::shared_ptr<RandomAccessFile>> OpenInputFile(std::string_view path_or_uri) {
  if (IsObjectUri(path_or_uri)) {
    TARN_ASSIGN_OR_RETURN(auto store_key, StoreAndKeyOf(path_or_uri));
    return store_key.first->OpenRead(store_key.second);
  }
  TARN_ASSIGN_OR_RETURN(std::string path, LocalPathOf(path_or_uri));
  return OpenLocalFile(path);
}

Result<std::unique_ptr<OutputStream>> CreateOutputFile(std::string_view path_or_uri) {
  if (IsObjectUri(path_or_uri)) {
    TARN_ASSIGN_OR_RETURN(auto store_key, StoreAndKeyOf(path_or_uri));
    return store_key.first->OpenWrite(store_key.second);
  }
  TARN_ASSIGN_OR_RETURN(std::string path, LocalPathOf(path_or_uri));
  return CreateLocalFile(path);
}

}  // namespace tarn
