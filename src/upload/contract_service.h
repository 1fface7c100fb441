// The upload service over an embedded catalog: contracts kept in the catalog's metastore
// (migration 4), parts staged as Parquet under uploads/<contract id>/ in its warehouse, commits
// through Catalog::Commit. `tarn serve` wraps one of these per process; every server of one
// metastore sees the same contracts, so a client can reattach anywhere.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "formats/decompress.h"
#include "tarn/upload.h"

namespace tarn::upload {

struct ContractServiceOptions {
  int64_t default_ttl_s = 6 * 3600;  // contract lifetime from its last change
  int64_t max_ttl_s = 7 * 24 * 3600;
  // A write holds at most about flush_bytes of decoded batches whatever the file size: half
  // buffered for the staged file being encoded, half queued by the reader thread parsing ahead.
  // A staged file holds at most flush_rows rows (and flush_bytes / 2 of batches).
  int64_t flush_rows = 1 << 20;
  int64_t flush_bytes = 128ll << 20;
  // Rows per batch the readers produce (at most).
  int64_t batch_rows = 65536;
  // Who the calls run as (recorded as created_by, default commit author); As() gives a view
  // acting as someone else.
  std::string actor;
};

class ContractService final : public Uploads {
 public:
  ContractService(std::shared_ptr<Catalog> catalog, ContractServiceOptions options = {});

  // This service acting as `actor` (created_by, default commit author): the same catalog,
  // options and once-a-minute sweep timer; no I/O, cheap enough for every request. The view
  // stays valid after this service is destroyed.
  std::unique_ptr<ContractService> As(std::string actor) const;
  const std::string& actor() const { return options_.actor; }

  Result<Contract> Negotiate(const NegotiateRequest& request) override;
  Result<Contract> GetContract(std::string_view id) override;
  Result<Contract> Retype(std::string_view id,
                          const std::map<std::string, std::string>& types) override;
  Result<Contract> Ignore(std::string_view id, const std::vector<std::string>& columns) override;
  Result<Contract> Accept(std::string_view id, std::string_view fingerprint) override;
  Result<UploadCommitResult> CommitContract(std::string_view id,
                                            const CommitRequest& request) override;
  Status Abandon(std::string_view id) override;

  // A write from a sequential stream of the file's raw bytes (the server's request body).
  // `compression` comes from Content-Encoding or the name's suffix; `size` is -1 when unknown.
  // Parquet is spooled to a temporary local file first (it needs its footer).
  Result<WriteResult> WriteStream(std::string_view id, std::string_view name,
                                  std::unique_ptr<formats::InputStream> raw,
                                  std::optional<formats::InputCompression> compression,
                                  std::string_view content_type, int64_t size,
                                  const ProgressFn& progress = {});

  // Contracts past their expiry: staged objects deleted, state expired. Returns how many.
  // Also called by Negotiate (at most once a minute) and by the server's sweeper.
  Result<int64_t> SweepExpired();

  // The target of a contract (for the server's authorization before acting on it).
  Result<std::string> ContractTarget(std::string_view id);

  Catalog& catalog() { return *catalog_; }

 private:
  // Write and WriteBytes (tarn::Uploads states their defaults).
  Result<WriteResult> DoWrite(std::string_view id, const std::string& path,
                              const ProgressFn& progress) override;
  Result<WriteResult> DoWriteBytes(std::string_view id, std::string_view name,
                                   std::string_view bytes, std::string content_type,
                                   const ProgressFn& progress) override;

  ContractService(std::shared_ptr<Catalog> catalog, ContractServiceOptions options,
                  std::shared_ptr<std::atomic<int64_t>> last_sweep_us);

  // Over a catalog that audits locally (Catalog::local_actor: the CLI's embedded catalog), each
  // operation writes its audit row after it runs, with the server's action names; over a
  // server's catalog (the server audits its requests) it only runs.
  template <class F>
  auto AuditedLocally(std::string_view action, std::string_view subject, F&& run)
      -> decltype(run()) {
    auto r = run();
    if (catalog_->local_actor()) WriteLocalAudit(action, subject, StatusOf(r));
    return r;
  }
  static const Status& StatusOf(const Status& st) { return st; }
  template <class T>
  static Status StatusOf(const Result<T>& r) {
    return r.ok() ? Status::OK() : r.status();
  }
  // `subject` is a contract id (the row names its target dataset) or a dataset name.
  void WriteLocalAudit(std::string_view action, std::string_view subject, const Status& outcome);

  std::shared_ptr<Catalog> catalog_;
  ContractServiceOptions options_;
  // When Negotiate last swept expired contracts; shared by the views of As().
  std::shared_ptr<std::atomic<int64_t>> last_sweep_us_;
};

}  // namespace tarn::upload
