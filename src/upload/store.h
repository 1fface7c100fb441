// The contract store: how contracts are kept in the metastore. The tables upload_contracts and
// upload_parts are defined here (migration 4 of the one global order, contributed to
// SchemaMigrations()), and every statement on them is one of the functions below; callers run
// them inside their own Metastore::RunInTransaction. Internal to the upload module.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metastore/metastore.h"
#include "tarn/dataset.h"
#include "tarn/status.h"
#include "tarn/upload.h"
#include "upload/plan.h"

namespace tarn::upload::internal {

// The dataset as agreed (dataset mode).
struct AgreedDataset {
  std::string uuid;
  int32_t schema_id = 0;
  int32_t spec_id = 0;
  Schema schema;
  std::string spec_text;  // PartitionSpec::ToString, for the stale diff
};

// One stored part: what a successful write staged.
struct StoredPart {
  ContractPart part;
  std::vector<DataFile> files;
};

// Everything stored about one contract.
struct ContractRecord {
  // Columns of upload_contracts.
  std::string id;
  std::string target;
  ContractState state = ContractState::kProposed;  // as stored (may be kCommitting)
  std::string created_by;
  std::string fingerprint;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t expires_at_us = 0;
  std::optional<std::string> idempotency_key;       // the caller's, once a commit was claimed
  std::optional<UploadCommitResult> commit_result;  // once committed
  // The body.
  std::string requested_source;                           // declared inferred dataset auto
  SchemaSourceKind source = SchemaSourceKind::kInferred;  // resolved
  SchemaMode mode = SchemaMode::kCreate;
  std::vector<std::pair<std::string, std::string>> declared;
  std::string channel;
  int64_t ttl_s = 0;
  std::optional<AgreedDataset> dataset;
  std::vector<SampledFile> files;
  std::vector<ContractFile> file_info;
  std::map<std::string, std::string> retype;
  std::vector<std::string> ignore;
  Plan plan;
  std::optional<std::string> created_uuid;  // mode create: the dataset the commit created
  // upload_parts.
  std::vector<StoredPart> parts;

  // The SDK view (kCommitting shows as writing).
  Contract ToContract() const;
  // The input of ComputePlan for this contract (`holder` keeps the DatasetInfo alive).
  PlanInput ToPlanInput(DatasetInfo* holder) const;
};

std::string BodyToJson(const ContractRecord& r);
Status BodyFromJson(std::string_view json, ContractRecord* r);
std::string CommitResultToJson(const UploadCommitResult& r);
Result<UploadCommitResult> CommitResultFromJson(std::string_view json);
std::string FilesToJson(const std::vector<DataFile>& files);
Result<std::vector<DataFile>> FilesFromJson(std::string_view json);

// Migration 4 ("uploads"): upload_contracts, upload_parts.
const std::vector<Migration>& UploadTables();

// Reads a contract and its parts; nullopt when there is none. kCorruption for a state, mode,
// plan action or issue severity the SDK does not know.
Result<std::optional<ContractRecord>> LoadRecord(Transaction& tx, std::string_view id);
// The target of a contract (one column, no parts); nullopt when there is none.
Result<std::optional<std::string>> LoadTarget(Transaction& tx, std::string_view id);
// Ids of open contracts (proposed, accepted, writing) whose expiry is at or before `now_us`,
// soonest first, at most `limit`.
Result<std::vector<std::string>> ListDueContracts(Transaction& tx, int64_t now_us, int64_t limit);
Status InsertRecord(Transaction& tx, const ContractRecord& r);
// Rewrites state, body, fingerprint, times, key and result where the stored state is
// `expected_state` (a claim: of racing callers exactly one sees true); returns whether it did.
Result<bool> UpdateRecord(Transaction& tx, const ContractRecord& r, ContractState expected_state);
Status InsertPart(Transaction& tx, std::string_view id, const StoredPart& p);
Status DeleteParts(Transaction& tx, std::string_view id);

}  // namespace tarn::upload::internal
