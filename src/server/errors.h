// What an error response may say (issue 14 "errors say too much"): no absolute path or URI of
// the server, no raw SQLite/PostgreSQL message, no internal detail. The full Status stays in
// the server log with the request id; the transport renders PublicError(st, ctx) instead.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/status.h"

namespace tarn::server::internal {

// The server-side strings a response must not contain. Cheap to copy; build it once per
// server with For() and pass it to every PublicError call.
struct RedactionContext {
  // Exact strings replaced wherever they appear (longest first), each by its placeholder:
  // {"/srv/tarn/warehouse", "<warehouse>"}, {"postgresql://u:pw@db/tarn", "<metastore>"}.
  std::vector<std::pair<std::string, std::string>> replacements;
  // Names in the server's root directory ("tmp", "home", "srv", ...): any other absolute path
  // (or file:// URI) whose first component is one of them is replaced by "<path>". Relative
  // keys, JSON pointers ("/parts/0/path") and API paths ("/v1/...") are kept.
  std::vector<std::string> root_entries;

  // The context of a server over `warehouse_uri` (a path, file:// or s3:// URI), the metastore
  // at `metastore_uri` (a SQLite path or a postgresql:// URI; its password alone is replaced
  // too) and the embedded catalog directory `catalog_dir`; any may be empty. Reads the file
  // system: canonical forms of local paths, and the entries of "/" for root_entries.
  static RedactionContext For(std::string_view warehouse_uri, std::string_view metastore_uri,
                              std::string_view catalog_dir);
};

// `text` with every replacement and unknown absolute path of `ctx` substituted. Pure.
std::string RedactText(std::string_view text, const RedactionContext& ctx);

// Whether `st` is a raw metastore failure: a message of the SQLite or PostgreSQL layer
// ("sqlite: ...", "postgres: ...", "metastore: ..." at the start or after a context ": ",
// or naming a SQLSTATE) or a status marked retryable by the metastore. Pure.
bool IsRawMetastoreError(const Status& st);

// The Status a response body may carry for `st`. Pure; OK stays OK.
// - kInternal: "internal error" with code internal and no fields.
// - a raw metastore failure, whatever its kind: a generic message of the same kind when the
//   kind means something to the client (unavailable -> retry, already_exists,
//   failed_precondition, invalid_argument, conflict), else kInternal as above; no fields.
// - anything else: the same kind, message and fields, with RedactText applied to the message
//   and every field value; the metastore's internal retry marker is dropped.
Status PublicError(const Status& st, const RedactionContext& ctx);

}  // namespace tarn::server::internal
