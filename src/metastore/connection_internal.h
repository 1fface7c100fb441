// The backend interface behind Metastore: one database connection, used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "metastore/metastore.h"
#include "tarn/status.h"

namespace tarn::metastore_internal {

enum class BeginMode : unsigned char {
  kReadWrite,     // serializable writer
  kLockingWrite,  // writer that serializes through row locks (PostgreSQL READ COMMITTED)
  kReadOnly,      // consistent snapshot reader
  kMigration,     // writer that sees everything committed before its lock was granted
};

// Field name attached to driver errors that a retry of the whole transaction may cure.
inline constexpr char kRetryableField[] = "metastore_retry";

class Connection {
 public:
  virtual ~Connection() = default;
  // `Begin` in kMigration mode also takes the cross-process migration lock.
  virtual Status Begin(BeginMode mode) = 0;
  virtual Status Commit() = 0;
  // Never fails in a way the caller can act on; a failure marks the connection broken.
  virtual void Rollback() = 0;
  virtual Result<int64_t> Execute(std::string_view sql, const SqlParams& params) = 0;
  virtual Status Query(std::string_view sql, const SqlParams& params,
                       const std::function<Status(const Row&)>& fn) = 0;
  // Runs several `;`-separated statements without parameters (migrations).
  virtual Status ExecScript(std::string_view sql) = 0;
  // Queues a statement whose result nobody reads: the backend may send it later, with the next
  // statement or with COMMIT, where its error then surfaces. Default: run it now.
  virtual Status ExecuteDeferred(std::string_view sql, const SqlParams& params) {
    return Execute(sql, params).status();
  }
  // Whether the connection can no longer be used (lost, or left in an unknown state).
  virtual bool broken() const = 0;
};

inline bool IsTxRetryable(const Status& st) {
  for (const auto& [k, v] : st.fields()) {
    if (k == kRetryableField) return true;
  }
  return false;
}

inline Status MarkRetryable(Status st) { return std::move(st).WithField(kRetryableField, "1"); }

Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path,
                                               const MetastoreOptions& options);
Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& uri,
                                                 const MetastoreOptions& options);

}  // namespace tarn::metastore_internal
