// The free functions and value-type methods of the upload SDK (include/tarn/upload.h).
#include "tarn/upload.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/io.h"
#include "formats/error_codes.h"
#include "formats/format.h"
#include "sdk/error_codes.h"
#include "sdk/upload_error_codes.h"

namespace tarn {

namespace {

constexpr std::array<std::pair<UploadErrorCode, const ErrorCode*>, 15> kCodeNames = {{
    {UploadErrorCode::kSchemaSourceRequired, &codes::kSchemaSourceRequired},
    {UploadErrorCode::kValueNotCastable, &codes::kValueNotCastable},
    {UploadErrorCode::kColumnUndeclared, &codes::kColumnUndeclared},
    {UploadErrorCode::kColumnMissing, &codes::kColumnMissing},
    {UploadErrorCode::kSourcesDisagree, &codes::kSourcesDisagree},
    {UploadErrorCode::kContractStale, &codes::kContractStale},
    {UploadErrorCode::kContractNotAccepted, &codes::kContractNotAccepted},
    {UploadErrorCode::kProposalChanged, &codes::kProposalChanged},
    {UploadErrorCode::kContractExpired, &codes::kContractExpired},
    {UploadErrorCode::kAlreadyCommitted, &codes::kAlreadyCommitted},
    {UploadErrorCode::kDatasetExists, &codes::kDatasetExists},
    {UploadErrorCode::kFormatUnreadable, &codes::kFormatUnreadable},
    {UploadErrorCode::kNotAuthorized, &codes::kNotAuthorized},
    {UploadErrorCode::kContractNotFound, &codes::kContractNotFound},
    {UploadErrorCode::kInternal, &codes::kInternal},
}};

// The wire strings of the contract vocabularies (include/tarn/upload.h): one table per enum, in
// the enum's order, read both ways.
constexpr std::array<std::pair<ContractState, std::string_view>, 8> kContractStates = {{
    {ContractState::kProposed, "proposed"},
    {ContractState::kAccepted, "accepted"},
    {ContractState::kWriting, "writing"},
    {ContractState::kCommitted, "committed"},
    {ContractState::kStale, "stale"},
    {ContractState::kAbandoned, "abandoned"},
    {ContractState::kExpired, "expired"},
    {ContractState::kCommitting, "committing"},
}};

constexpr std::array<std::pair<SchemaMode, std::string_view>, 3> kSchemaModes = {{
    {SchemaMode::kCreate, "create"},
    {SchemaMode::kAppend, "append"},
    {SchemaMode::kOverwrite, "overwrite"},
}};

constexpr std::array<std::pair<PlanAction, std::string_view>, 8> kPlanActions = {{
    {PlanAction::kKeep, "keep"},
    {PlanAction::kRetag, "retag"},
    {PlanAction::kWiden, "widen"},
    {PlanAction::kCast, "cast"},
    {PlanAction::kUnsupported, "unsupported"},
    {PlanAction::kUndeclared, "undeclared"},
    {PlanAction::kIgnored, "ignored"},
    {PlanAction::kMissing, "missing"},
}};

constexpr std::array<std::pair<IssueSeverity, std::string_view>, 2> kIssueSeverities = {{
    {IssueSeverity::kBlocking, "blocking"},
    {IssueSeverity::kWarning, "warning"},
}};

// Each table lists every value once, at the index of its value.
template <typename E, size_t N>
constexpr bool InEnumOrder(const std::array<std::pair<E, std::string_view>, N>& table) {
  for (size_t i = 0; i < N; ++i) {
    if (static_cast<size_t>(table[i].first) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder(kContractStates) && InEnumOrder(kSchemaModes) &&
              InEnumOrder(kPlanActions) && InEnumOrder(kIssueSeverities));

template <typename E, size_t N>
std::string_view NameIn(const std::array<std::pair<E, std::string_view>, N>& table, E value) {
  const auto i = static_cast<size_t>(value);
  return i < N ? table[i].second : std::string_view();
}

template <typename E, size_t N>
std::optional<E> ValueIn(const std::array<std::pair<E, std::string_view>, N>& table,
                         std::string_view name) {
  for (const auto& [value, n] : table) {
    if (n == name) return value;
  }
  return std::nullopt;
}

Status Unreadable(const std::string& name, std::string why) {
  return Status::Of(codes::kFormatUnreadable, "'" + name + "': " + why)
      .WithField("file", name)
      .WithField("row", "0");
}

uint32_t LittleEndian32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

// The sample of `file`: the Parquet footer tail, or the first `max_bytes` bytes.
Result<formats::Format> FormatOf(const std::string& name) {
  auto format = formats::DetectFormat(name);
  if (format.ok()) return format;
  Status st = format.status();
  if (ErrorField(st, "file").empty()) st = std::move(st).WithField("file", name);
  if (ErrorField(st, "code").empty()) st = std::move(st).WithCode(codes::kFormatUnreadable);
  return st;
}

Result<UploadSample> SampleOf(const std::string& name, const RandomAccessFile& file,
                              int64_t max_bytes) {
  TARN_ASSIGN_OR_RETURN(formats::Format format, FormatOf(name));
  const uint64_t size = file.Size();
  UploadSample sample;
  sample.name = name;
  sample.file_size = static_cast<int64_t>(size);
  if (format == formats::Format::kParquet) {
    // Trailer: 4-byte little-endian footer length, then "PAR1".
    if (size < 12) return Unreadable(name, "too short to be a Parquet file");
    uint8_t trailer[8];
    TARN_RETURN_NOT_OK(file.ReadAt(size - 8, 8, trailer));
    if (std::memcmp(trailer + 4, "PAR1", 4) != 0) {
      return Unreadable(name, "not a Parquet file (no PAR1 trailer)");
    }
    const uint64_t footer = LittleEndian32(trailer);
    if (footer == 0 || footer + 12 > size) {
      return Unreadable(name, "Parquet footer length " + std::to_string(footer) +
                                  " does not fit a file of " + std::to_string(size) + " bytes");
    }
    if (static_cast<int64_t>(footer) > kMaxSampleBytesTotal) {
      return Unreadable(name,
                        "Parquet footer of " + std::to_string(footer) + " bytes is too large");
    }
    const uint64_t tail = footer + 8;
    sample.bytes.resize(tail);
    TARN_RETURN_NOT_OK(
        file.ReadAt(size - tail, tail, reinterpret_cast<uint8_t*>(sample.bytes.data())));
    sample.whole_file = tail == size;
    return sample;
  }
  if (max_bytes <= 0) max_bytes = kSampleBytes;
  const uint64_t n = std::min<uint64_t>(size, static_cast<uint64_t>(max_bytes));
  sample.bytes.resize(n);
  if (n > 0) {
    TARN_RETURN_NOT_OK(file.ReadAt(0, n, reinterpret_cast<uint8_t*>(sample.bytes.data())));
  }
  sample.whole_file = n == size;
  return sample;
}

}  // namespace

std::string_view SchemaSourceName(SchemaSourceKind kind) {
  switch (kind) {
    case SchemaSourceKind::kNone:
      return "none";
    case SchemaSourceKind::kDeclared:
      return "declared";
    case SchemaSourceKind::kInferred:
      return "inferred";
    case SchemaSourceKind::kDataset:
      return "dataset";
    case SchemaSourceKind::kAuto:
      return "auto";
  }
  return "none";
}

std::string_view WriteModeName(WriteMode mode) {
  return mode == WriteMode::kOverwrite ? "overwrite" : "append";
}

std::string_view ContractStateName(ContractState state) { return NameIn(kContractStates, state); }
std::optional<ContractState> ContractStateFromName(std::string_view name) {
  return ValueIn(kContractStates, name);
}

std::string_view SchemaModeName(SchemaMode mode) { return NameIn(kSchemaModes, mode); }
std::optional<SchemaMode> SchemaModeFromName(std::string_view name) {
  return ValueIn(kSchemaModes, name);
}

std::string_view PlanActionName(PlanAction action) { return NameIn(kPlanActions, action); }
std::optional<PlanAction> PlanActionFromName(std::string_view name) {
  return ValueIn(kPlanActions, name);
}

std::string_view IssueSeverityName(IssueSeverity severity) {
  return NameIn(kIssueSeverities, severity);
}
std::optional<IssueSeverity> IssueSeverityFromName(std::string_view name) {
  return ValueIn(kIssueSeverities, name);
}

SchemaSource SchemaSource::Declared(std::vector<std::pair<std::string, std::string>> columns) {
  SchemaSource s;
  s.kind = SchemaSourceKind::kDeclared;
  s.declared = std::move(columns);
  return s;
}

SchemaSource SchemaSource::Inferred() {
  SchemaSource s;
  s.kind = SchemaSourceKind::kInferred;
  return s;
}

SchemaSource SchemaSource::OfDataset(WriteMode mode) {
  SchemaSource s;
  s.kind = SchemaSourceKind::kDataset;
  s.mode = mode;
  return s;
}

SchemaSource SchemaSource::Auto(WriteMode mode) {
  SchemaSource s;
  s.kind = SchemaSourceKind::kAuto;
  s.mode = mode;
  return s;
}

Result<UploadSample> SampleFile(const std::string& path, int64_t max_bytes) {
  TARN_RETURN_NOT_OK(FormatOf(path).status());
  TARN_ASSIGN_OR_RETURN(auto file, OpenLocalFile(path));
  return SampleOf(path, *file, max_bytes);
}

Result<std::vector<UploadSample>> SampleFiles(const std::vector<std::string>& paths) {
  constexpr int64_t kMinShare = 64 << 10;
  int64_t share = kSampleBytes;
  if (!paths.empty()) {
    share = std::clamp<int64_t>(kMaxSampleBytesTotal / static_cast<int64_t>(paths.size()),
                                kMinShare, kSampleBytes);
  }
  std::vector<UploadSample> out;
  out.reserve(paths.size());
  for (const auto& p : paths) {
    auto sample = SampleFile(p, share);
    if (!sample.ok()) return sample.status().WithContext("sampling '" + p + "'");
    out.push_back(std::move(*sample));
  }
  return out;
}

Result<UploadSample> SampleBytes(std::string name, std::string_view bytes, int64_t max_bytes,
                                 std::string content_type) {
  TARN_RETURN_NOT_OK(FormatOf(name).status());
  auto file = MemoryFile(std::string(bytes), name);
  TARN_ASSIGN_OR_RETURN(UploadSample sample, SampleOf(name, *file, max_bytes));
  sample.content_type = std::move(content_type);
  return sample;
}

bool Contract::blocking() const {
  return std::any_of(issues.begin(), issues.end(),
                     [](const ContractIssue& i) { return i.blocking(); });
}

std::map<std::string, std::string> Contract::values() const {
  std::map<std::string, std::string> out;
  for (const PlanEntry& e : plan) out[e.column] = e.sample;
  return out;
}

std::string_view UploadErrorCodeName(UploadErrorCode code) {
  for (const auto& [c, descriptor] : kCodeNames) {
    if (c == code) return descriptor->name;
  }
  return codes::kInternal.name;
}

std::optional<UploadErrorCode> UploadErrorOf(const Status& status) {
  if (status.ok()) return std::nullopt;
  std::string code = ErrorField(status, "code");
  for (const auto& [c, descriptor] : kCodeNames) {
    if (descriptor->name == code) return c;
  }
  return std::nullopt;
}

std::string ErrorField(const Status& status, std::string_view name) {
  if (status.ok()) return "";
  for (const auto& [key, value] : status.fields()) {
    if (key == name) return value;
  }
  return "";
}

}  // namespace tarn
