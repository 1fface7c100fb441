// tarn's upload SDK: contracts (docs/features.md U1-U5, docs/design/upload.md).
//
// An upload agrees on column types before any byte is written:
//
//   auto uploads = tarn::Uploads::For(client);            // embedded or remote, like the client
//   tarn::NegotiateRequest req;
//   req.target = "acme.security.findings";
//   req.schema = tarn::SchemaSource::Auto();
//   for (auto& f : files) req.samples.push_back(*tarn::SampleFile(f));
//   auto contract = uploads->Negotiate(req);                 // samples only: nothing is written
//   if (contract->blocking()) ...;                           // issues that stop writes
//   if (contract->state == tarn::ContractState::kProposed)
//     uploads->Accept(contract->id, contract->fingerprint);
//   for (auto& f : files) uploads->Write(contract->id, f);    // streamed, converted, staged
//   auto done = uploads->CommitContract(contract->id, {.message = "nightly", ...});
//
// Every failure is a Status whose field "code" is one of the codes of UploadErrorCode (with the
// fields listed there); UploadErrorOf() reads it back. Thread safety: as tarn::Client.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "tarn/status.h"

namespace tarn {

class Client;

// ---- where the types come from (U2): there is no default ----
enum class SchemaSourceKind : uint8_t {
  kNone,      // not said: Negotiate refuses with schema_source_required
  kDeclared,  // the caller lists the columns and their types; the dataset must not exist
  kInferred,  // read from the samples; the contract is proposed until accepted
  kDataset,   // the types the existing dataset declares; append or overwrite
  kAuto,      // kDataset when the dataset exists, else kInferred; the contract says which
};
std::string_view SchemaSourceName(SchemaSourceKind kind);  // "declared", "inferred", ...

enum class WriteMode : uint8_t { kAppend, kOverwrite };
std::string_view WriteModeName(WriteMode mode);  // "append", "overwrite"

struct SchemaSource {
  SchemaSourceKind kind = SchemaSourceKind::kNone;
  // kDeclared: column name and type text (tarn/data_type.h syntax), in table order.
  std::vector<std::pair<std::string, std::string>> declared;
  // kDataset, and kAuto when it resolves to the dataset: what happens to the existing rows.
  WriteMode mode = WriteMode::kAppend;

  static SchemaSource Declared(std::vector<std::pair<std::string, std::string>> columns);
  static SchemaSource Inferred();
  static SchemaSource OfDataset(WriteMode mode = WriteMode::kAppend);
  static SchemaSource Auto(WriteMode mode = WriteMode::kAppend);
};

// ---- samples (U1): what negotiation sees of each file ----
// Default bytes sampled per file; Negotiate lowers it per file when many files are sent so a
// request stays under kMaxSampleBytesTotal.
constexpr int64_t kSampleBytes = 4ll << 20;
constexpr int64_t kMaxSampleBytesTotal = 48ll << 20;

struct UploadSample {
  // The file name: its suffixes give the format and compression (.csv .tsv .ndjson .jsonl
  // .json .parquet, then .gz .zst .br .deflate), exactly as for a path.
  std::string name;
  // CSV/NDJSON: a prefix of the file as stored (still compressed when the file is); the service
  // decodes it and drops a partial last record. Parquet: the tail of the file holding the whole
  // footer (footer, its length and "PAR1").
  std::string bytes;
  int64_t file_size = -1;        // the whole file's size when known
  bool whole_file = false;       // `bytes` is the entire file (no partial last record)
  std::string content_type;      // optional, e.g. application/x-ndjson, text/csv
  std::string content_encoding;  // optional: gzip, zstd, br, deflate (beats the suffix)
};

// The sample of a local file: its first `max_bytes` bytes, or the Parquet footer tail.
// kNotFound for a missing file, format_unreadable for an unknown suffix or a file that is not
// Parquet.
Result<UploadSample> SampleFile(const std::string& path, int64_t max_bytes = kSampleBytes);
// The samples of several local files, each at most kSampleBytes and together at most
// kMaxSampleBytesTotal (with many files each gets an equal share, never under 64 KiB).
Result<std::vector<UploadSample>> SampleFiles(const std::vector<std::string>& paths);
// The sample of bytes held in memory (write_bytes producers).
Result<UploadSample> SampleBytes(std::string name, std::string_view bytes,
                                 int64_t max_bytes = kSampleBytes, std::string content_type = {});

// ---- the contract ----
// The vocabularies of a contract. Each is a string on the wire, in the JSON output and in the
// metastore; its Name function gives that string and its FromName function reads it back
// (nullopt for any other string: the callers refuse it, a decoder with a decode error, the
// contract store with kCorruption).

// Where a contract is. kCommitting is stored only, while a commit runs: callers see kWriting.
enum class ContractState : uint8_t {
  kProposed,    // the plan waits for Accept
  kAccepted,    // writes may start
  kWriting,     // at least one part is staged
  kCommitted,   // published; `committed` holds the result
  kStale,       // the dataset moved; the staged parts were dropped
  kAbandoned,   // Abandon; the staged parts were deleted
  kExpired,     // its ttl passed; the staged parts were deleted
  kCommitting,  // "committing": a commit holds the claim (never returned by Uploads)
};
std::string_view ContractStateName(ContractState state);  // "proposed", "accepted", ...
std::optional<ContractState> ContractStateFromName(std::string_view name);

// What a commit does to the target: creates the dataset, appends to it or replaces its rows.
enum class SchemaMode : uint8_t { kCreate, kAppend, kOverwrite };
std::string_view SchemaModeName(SchemaMode mode);  // "create", "append", "overwrite"
std::optional<SchemaMode> SchemaModeFromName(std::string_view name);

// What a plan line does with a column (U4).
enum class PlanAction : uint8_t {
  kKeep,         // the same type
  kRetag,        // same bytes, another logical type (VARCHAR -> JSON/UUID/IPV4, TIMESTAMP -> TZ)
  kWiden,        // a lossless widening
  kCast,         // values are converted (changes_values)
  kUnsupported,  // no conversion: a blocking unsupported_conversion issue
  kUndeclared,   // a data column the target does not have: blocking until ignored
  kIgnored,      // a data column read and dropped
  kMissing,      // a target column absent from the data: written as nulls
};
std::string_view PlanActionName(PlanAction action);  // "keep", "retag", ...
std::optional<PlanAction> PlanActionFromName(std::string_view name);

enum class IssueSeverity : uint8_t {
  kBlocking,  // stops writes
  kWarning,
};
std::string_view IssueSeverityName(IssueSeverity severity);  // "blocking", "warning"
std::optional<IssueSeverity> IssueSeverityFromName(std::string_view name);

struct NegotiateRequest {
  std::string target;  // workspace.collection.dataset
  SchemaSource schema;
  std::vector<UploadSample> samples;  // one per file, at least one
  // Applied before the proposal is returned, as Retype and Ignore would be.
  std::map<std::string, std::string> retype;  // column -> type text
  std::vector<std::string> ignore;
  std::string channel = "sdk";   // the producer is "upload:<channel>" (cli, tui, sdk, ...)
  std::optional<int64_t> ttl_s;  // lifetime; default 6 h
};

// One plan line per column (U4).
struct PlanEntry {
  std::string column;
  std::string from;  // the type read from the data ("" when the column is not in the data)
  std::string to;    // the type written ("" for undeclared/ignored columns)
  PlanAction action = PlanAction::kKeep;
  std::string sample;           // one real value from the samples, as text ("" when all null)
  bool changes_values = false;  // cast: values are converted, not just relabelled
  bool retyped = false;         // the caller changed `to` (Retype or NegotiateRequest::retype)
};

struct ContractIssue {
  std::string code;  // an UploadErrorCode name, e.g. column_undeclared, sources_disagree
  std::string column;
  std::string detail;
  IssueSeverity severity = IssueSeverity::kBlocking;
  // The error fields of the refusal it stands for, besides code and column (value_not_castable
  // found in a sample: file, row, value, declared); usually empty.
  std::map<std::string, std::string> fields;
  bool blocking() const { return severity == IssueSeverity::kBlocking; }
};

struct ContractFile {
  std::string name;
  std::string format;       // csv ndjson parquet
  std::string compression;  // none gzip zstd brotli deflate
  int64_t file_size = -1;
  int64_t sampled_rows = 0;
  int64_t sampled_bytes = 0;
};

struct ContractPart {  // one successful Write / WriteBytes
  int32_t seq = 0;
  std::string name;
  int64_t rows = 0;
  int64_t bytes_read = 0;     // input bytes as sent (compressed when the input is)
  int64_t bytes_written = 0;  // Parquet bytes staged
  int32_t files = 0;          // staged Parquet files
  int64_t written_at_us = 0;
};

struct UploadCommitResult {
  std::string target;
  int64_t snapshot_id = 0;
  std::string commit_id;
  int64_t rows_written = 0;
  int64_t files = 0;
  int64_t bytes = 0;
  bool created_dataset = false;    // the commit created the dataset
  bool idempotent_replay = false;  // an earlier commit with the same key was returned
};

struct Contract {
  std::string id;                                  // ct_YYYYMMDDHHMMSS_<12 hex>
  ContractState state = ContractState::kProposed;  // never kCommitting
  std::string target;
  std::string requested_source;  // what the caller asked: declared inferred dataset auto
  std::string schema_source;     // what it resolved to: declared inferred dataset
  SchemaMode mode = SchemaMode::kCreate;
  bool dataset_exists = false;
  std::string dataset_uuid;  // of the existing dataset, at agreement
  int32_t dataset_schema_id = 0;
  std::string channel;
  std::vector<ContractFile> files;
  std::vector<PlanEntry> plan;
  std::vector<ContractIssue> issues;
  std::string fingerprint;  // of the proposal: echo it to Accept
  std::vector<ContractPart> parts;
  int64_t rows_written = 0;
  int64_t bytes_written = 0;
  std::string created_by;
  int64_t created_at_us = 0;
  int64_t updated_at_us = 0;
  int64_t expires_at_us = 0;
  std::optional<UploadCommitResult> committed;  // state committed

  bool blocking() const;
  // One real value per column, as in the plan.
  std::map<std::string, std::string> values() const;
};

struct WriteResult {
  std::string contract_id;
  ContractPart part;
};

struct CommitRequest {
  std::string message;
  std::optional<std::string> idempotency_key;  // a retry returns the original snapshot
  std::string author;  // empty: the caller (client id remotely, local:<user> embedded)
};

// Progress of a write: called with the bytes of input consumed so far and the total (-1 when
// unknown). A callback returning bool can stop the write by returning false: the write then
// ends with kCancelled and stages nothing (remotely the part's body is cut off, and the server
// drops what it received). A callback returning void never stops it.
class ProgressFn {
 public:
  ProgressFn() = default;
  ProgressFn(std::nullptr_t) {}  // NOLINT: as std::function
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, ProgressFn> &&
                                                    std::is_invocable_v<F&, int64_t, int64_t>>>
  ProgressFn(F f) {  // NOLINT: implicit, so lambdas pass as they are
    if constexpr (std::is_same_v<std::invoke_result_t<F&, int64_t, int64_t>, bool>) {
      fn_ = std::move(f);
    } else {
      fn_ = [f = std::move(f)](int64_t done, int64_t total) mutable {
        f(done, total);
        return true;
      };
    }
  }
  explicit operator bool() const { return static_cast<bool>(fn_); }
  // Reports progress; false when the caller asks the write to stop.
  bool operator()(int64_t done, int64_t total) const { return !fn_ || fn_(done, total); }

 private:
  std::function<bool(int64_t, int64_t)> fn_;
};

class Uploads {
 public:
  virtual ~Uploads() = default;

  // The upload service of a client: the embedded catalog's own (contracts in its metastore,
  // staged files in its warehouse) or the remote server's /v1/contracts. kInvalidArgument for a
  // null client or one that is neither. Part of tarn::tarn only (src/connect).
  static Result<std::unique_ptr<Uploads>> For(std::shared_ptr<Client> client);
  // The remote server's /v1/contracts for a client of Client::ConnectRemote (or a remote one of
  // Connect): the entry point of tarn::client (src/client). kInvalidArgument for any other.
  static Result<std::unique_ptr<Uploads>> ForRemote(std::shared_ptr<Client> client);

  // Samples only; nothing is written. The contract is proposed (inferred, or anything with
  // blocking issues or retyped columns) or accepted (declared/dataset without blocking issues).
  // The CSV/NDJSON samples are also read as a write would read them: a value there that does
  // not convert is a blocking value_not_castable issue (rechecked by Retype and Ignore).
  // Errors: schema_source_required (kInvalidArgument), dataset_exists (kAlreadyExists:
  // declared/inferred onto an existing dataset), not_found (dataset mode onto a missing
  // dataset: dataset_not_found and the like, kNotFound), format_unreadable (kInvalidArgument: a
  // sample that does not parse), samples_too_large (kTooLarge), invalid_type, unknown_column and
  // retype_not_allowed (kInvalidArgument: the retype and ignore of the request), kInvalidArgument
  // without a code for a bad target or empty samples; remotely not_authorized
  // (kPermissionDenied) and the errors of any remote call (tarn/client.h).
  virtual Result<Contract> Negotiate(const NegotiateRequest& request) = 0;
  // Every method below with an id: contract_not_found (kNotFound, field contract_id) for an
  // unknown or malformed id.
  virtual Result<Contract> GetContract(std::string_view id) = 0;
  // Changes the written type of columns / drops them from the write. The contract returns to
  // proposed with a new fingerprint. Refused once writing has started: already_committed and
  // contract_writing (kFailedPrecondition), contract_expired (kExpired). invalid_type,
  // unknown_column and retype_not_allowed (kInvalidArgument) for a bad column or type.
  virtual Result<Contract> Retype(std::string_view id,
                                  const std::map<std::string, std::string>& types) = 0;
  virtual Result<Contract> Ignore(std::string_view id, const std::vector<std::string>& columns) = 0;
  // proposal_changed (kStale, field fingerprint: the current one) when `fingerprint` is not the
  // current proposal's; kFailedPrecondition while a blocking issue remains; already_committed,
  // contract_expired as Retype.
  virtual Result<Contract> Accept(std::string_view id, std::string_view fingerprint) = 0;
  // Streams a local file through conversion into staged Parquet (`progress` may be called on
  // another thread than the caller's, one call at a time). contract_not_accepted
  // (kFailedPrecondition) before Accept; value_not_castable (kInvalidArgument; column, row,
  // value, declared) for a value that does not convert, and that write stages nothing;
  // column_undeclared, column_missing, sources_disagree and format_unreadable
  // (kInvalidArgument) for a file that does not fit the contract; contract_stale (kStale; diff,
  // written_rows) when the dataset moved; proposal_changed (kStale) when the contract changed
  // under the write; contract_expired (kExpired); already_committed (kFailedPrecondition);
  // kCancelled when `progress` asked to stop; kNotFound / kIOError for a local file that cannot
  // be read.
  Result<WriteResult> Write(std::string_view id, const std::string& path,
                            const ProgressFn& progress = {}) {
    return DoWrite(id, path, progress);
  }
  // The same for a part held in memory; `name` carries the format and codec suffixes. Errors:
  // as Write; remotely invalid_identifier (kInvalidArgument) for a bad part name.
  Result<WriteResult> WriteBytes(std::string_view id, std::string_view name, std::string_view bytes,
                                 std::string content_type = {}, const ProgressFn& progress = {}) {
    return DoWriteBytes(id, name, bytes, std::move(content_type), progress);
  }
  // Publishes every staged part as one snapshot (creating the dataset for mode create).
  // already_committed (kFailedPrecondition, field snapshot_id) for a second commit without the
  // first one's idempotency key; nothing_written (kFailedPrecondition) before any Write;
  // commit_in_progress (kConflict: another commit of it is running); contract_stale (kStale);
  // contract_expired (kExpired); dataset_exists (kAlreadyExists: mode create, and the dataset
  // appeared); the commit errors of Client::Commit.
  virtual Result<UploadCommitResult> CommitContract(std::string_view id,
                                                    const CommitRequest& request) = 0;
  // Deletes the staged objects; the contract ends abandoned. Abandoning an abandoned or
  // expired contract is OK; a committed one is already_committed (kFailedPrecondition);
  // commit_in_progress (kConflict) while it commits.
  virtual Status Abandon(std::string_view id) = 0;

 protected:
  // What Write and WriteBytes run (the non-virtual interface idiom): their defaults are stated
  // once, on the public methods, and an implementation overrides these, which take every
  // argument.
  virtual Result<WriteResult> DoWrite(std::string_view id, const std::string& path,
                                      const ProgressFn& progress) = 0;
  virtual Result<WriteResult> DoWriteBytes(std::string_view id, std::string_view name,
                                           std::string_view bytes, std::string content_type,
                                           const ProgressFn& progress) = 0;
};

// ---- errors (U5) ----
// Each code is the "code" field of a Status; its kind, HTTP status and CLI exit code are its
// tarn::ErrorCode in the registry (ErrorRegistry::Find(UploadErrorCodeName(code)), declared in
// src/upload/error_codes.h and src/formats/error_codes.h; docs/design/upload.md). Fields besides
// "code":
enum class UploadErrorCode : uint8_t {
  kSchemaSourceRequired,  // -
  kValueNotCastable,      // column, row, value, declared
  kColumnUndeclared,      // column
  kColumnMissing,         // column
  kSourcesDisagree,       // column, files
  kContractStale,         // diff, written_rows
  kContractNotAccepted,   // state
  kProposalChanged,       // fingerprint (the current one)
  kContractExpired,       // expired_at
  kAlreadyCommitted,      // snapshot_id
  kDatasetExists,         // dataset
  kFormatUnreadable,      // file, row
  kNotAuthorized,         // -
  kContractNotFound,      // contract_id
  kInternal,              // reference
};
std::string_view UploadErrorCodeName(UploadErrorCode code);  // "value_not_castable", ...
// The upload error code of a status, if it carries one.
std::optional<UploadErrorCode> UploadErrorOf(const Status& status);
// A named field of a status ("" when absent).
std::string ErrorField(const Status& status, std::string_view name);

}  // namespace tarn
