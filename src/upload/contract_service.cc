// ContractService: negotiate, retype/ignore, accept, write, commit, abandon and expiry of upload
// contracts over an embedded catalog (docs/design/upload.md).
#include "upload/contract_service.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "catalog/catalog.h"
#include "catalog/error_codes.h"
#include "common/bounded_queue.h"
#include "common/clock.h"
#include "common/discard.h"
#include "common/hex.h"
#include "common/random.h"
#include "common/utf8.h"
#include "datafile/writer.h"
#include "formats/error_codes.h"
#include "formats/format.h"
#include "formats/infer.h"
#include "formats/sample.h"
#include "iceberg/schema.h"
#include "objectstore/object_store.h"
#include "sdk/upload_error_codes.h"
#include "table/schema_json.h"
#include "types/batch.h"
#include "upload/plan.h"
#include "upload/store.h"

namespace tarn::upload {

using internal::ContractRecord;
using internal::StoredPart;

namespace {

// How long Negotiate waits between sweeps of expired contracts.
constexpr int64_t kSweepEveryUs = 60'000'000;
// A commit claimed this long ago without finishing is taken over (its process died).
constexpr int64_t kCommitTakeoverUs = 5 * 60'000'000ll;
// How long a commit waits for a concurrent commit of the same contract.
constexpr int64_t kCommitWaitUs = 120'000'000;

// Every time the service stores or compares is its catalog's (Catalog::clock()).
int64_t NowUs(const Catalog& cat) { return cat.clock().NowMicros(); }

// Lets `d` of the catalog's clock pass: real time under the real clock; under a test's stopped
// ManualClock, until it is advanced past (the test sees the wait in ManualClock::waiters).
void Pause(const Catalog& cat, std::chrono::milliseconds d) {
  const Clock& clock = cat.clock();
  std::mutex mu;
  std::condition_variable cv;  // never notified but by the clock: only time ends the wait
  std::unique_lock<std::mutex> lock(mu);
  clock.WaitUntil(lock, cv, clock.SteadyNow() + d, [] { return false; });
}

std::string UtcText(int64_t us, const char* format) {
  std::time_t secs = static_cast<std::time_t>(us / 1'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

std::string NewContractId(int64_t now_us) {
  uint64_t r = RandomU64();
  std::string hex;
  for (int i = 0; i < 12; ++i) hex += HexDigit(static_cast<unsigned>(r >> (4 * i)));
  return "ct_" + UtcText(now_us, "%Y%m%d%H%M%S") + "_" + hex;
}

// ct_ + 14 digits + _ + 12 lower-case hex.
bool IsContractId(std::string_view id) {
  if (id.size() != 3 + 14 + 1 + 12 || id.substr(0, 3) != "ct_" || id[17] != '_') return false;
  for (size_t i = 3; i < 17; ++i) {
    if (id[i] < '0' || id[i] > '9') return false;
  }
  for (size_t i = 18; i < id.size(); ++i) {
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return false;
  }
  return true;
}

// At most `max` bytes of `s`, cut at a UTF-8 boundary, with control characters replaced: text
// from callers that is stored and shown (names, samples).
std::string Printable(std::string_view s, size_t max) {
  std::string out(s.substr(0, Utf8Cut(s, max)));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

// Samples are shown next to types: a few hundred bytes are plenty.
constexpr size_t kMaxSampleValueBytes = 256;
constexpr size_t kMaxNameBytes = 1024;

std::string StagingPrefix(std::string_view id) { return "uploads/" + std::string(id) + "/"; }

// Whether the snapshot a keyed commit replayed holds this contract's own staged files: its
// earlier commit landed though its caller got an error (a lost COMMIT reply), so those files
// are the dataset's now. True when that cannot be read (nothing is then deleted).
bool CommittedOwnFiles(Catalog& cat, const ContractRecord& r, const SnapshotInfo& snap) {
  if (r.parts.empty()) return false;
  SnapshotSelector at;
  at.snapshot_id = snap.snapshot_id;
  const std::string prefix = StagingPrefix(r.id);
  bool own = false;
  Status st = cat.PlanFiles(r.target, at, "", [&](const PlannedFile& f) {
    if (f.file.path.rfind(prefix, 0) == 0) own = true;
    return Status::OK();
  });
  return !st.ok() || own;
}

bool IsActive(ContractState state) {
  return state == ContractState::kProposed || state == ContractState::kAccepted ||
         state == ContractState::kWriting;
}

// ---- errors ----

Status NotFoundError(std::string_view id) {
  return Status::Of(codes::kContractNotFound,
                    "contract '" + std::string(id.substr(0, 100)) + "' not found")
      .WithField("contract_id", std::string(id.substr(0, 100)));
}

Status ExpiredError(const ContractRecord& r) {
  return Status::Of(codes::kContractExpired, "contract " + r.id + " expired at " +
                                                 UtcText(r.expires_at_us, "%Y-%m-%dT%H:%M:%SZ"))
      .WithField("expired_at", UtcText(r.expires_at_us, "%Y-%m-%dT%H:%M:%SZ"));
}

Status NotAcceptedError(const ContractRecord& r, ContractState state) {
  const std::string name(ContractStateName(state));
  return Status::Of(codes::kContractNotAccepted,
                    "contract " + r.id + " is " + name +
                        (state == ContractState::kProposed
                             ? ": accept its plan (echo the fingerprint) first"
                             : ": it can no longer be written or committed"))
      .WithField("state", name);
}

Status AlreadyCommittedError(const ContractRecord& r) {
  int64_t snap = r.commit_result ? r.commit_result->snapshot_id : 0;
  return Status::Of(
             codes::kAlreadyCommitted,
             "contract " + r.id + " is already committed (snapshot " + std::to_string(snap) + ")")
      .WithField("snapshot_id", std::to_string(snap));
}

Status StaleError(const std::string& id, const std::string& diff, int64_t written_rows) {
  return Status::Of(codes::kContractStale, "contract " + id +
                                               " is stale: the dataset changed since agreement (" +
                                               diff + "); negotiate again")
      .WithField("diff", diff)
      .WithField("written_rows", std::to_string(written_rows));
}

Status WritingError(const ContractRecord& r) {
  return Status::Of(codes::kContractWriting,
                    "contract " + r.id + " has staged parts: its plan can no longer change")
      .WithField("state", std::string(ContractStateName(ContractState::kWriting)));
}

// The refusal for a contract in a state the operation does not take.
Status StateError(const ContractRecord& r) {
  if (r.state == ContractState::kCommitted) return AlreadyCommittedError(r);
  if (r.state == ContractState::kExpired) return ExpiredError(r);
  if (r.state == ContractState::kStale) {
    return StaleError(r.id, "the dataset changed since agreement", 0);
  }
  if (r.state == ContractState::kWriting || r.state == ContractState::kCommitting) {
    return WritingError(r);
  }
  return NotAcceptedError(r, r.state);
}

// The error a blocking issue stands for.
Status IssueError(const ContractIssue& issue) {
  Status st = Status::InvalidArgument("blocking issue " + issue.code + " on column '" +
                                      issue.column + "': " + issue.detail)
                  .WithField("code", issue.code)
                  .WithField("column", issue.column);
  if (issue.code == codes::kSourcesDisagree.name) {
    st = std::move(st).WithField("files", issue.detail);
  }
  for (const auto& [k, v] : issue.fields) {
    if (k != "code" && k != "column") st = std::move(st).WithField(k, v);
  }
  return st;
}

int64_t WrittenRows(const ContractRecord& r) {
  int64_t n = 0;
  for (const auto& p : r.parts) n += p.part.rows;
  return n;
}

// ---- staged objects ----

void DeleteFiles(ObjectStore& store, const std::vector<DataFile>& files) {
  std::vector<std::string> keys;
  for (const auto& f : files) keys.push_back(f.path);
  if (!keys.empty()) DiscardError(store.DeleteMany(keys), "deleting staged files");
}

Status DeleteStaged(ObjectStore& store, std::string_view id) {
  TARN_ASSIGN_OR_RETURN(auto objects, store.ListAll(StagingPrefix(id)));
  std::vector<std::string> keys;
  for (const auto& o : objects) keys.push_back(o.key);
  if (keys.empty()) return Status::OK();
  return store.DeleteMany(keys);
}

// ---- the stale diff ----

std::string SchemaDiff(const Schema& agreed, const Schema& now, bool by_id) {
  std::vector<std::string> out;
  auto find = [&](const Schema& s, const Field& f) -> const Field* {
    for (const Field& g : s.fields) {
      if (by_id ? g.field_id == f.field_id : g.name == f.name) return &g;
    }
    return nullptr;
  };
  for (const Field& f : now.fields) {
    const Field* old = find(agreed, f);
    if (!old) {
      out.push_back("+" + f.name + " " + f.type.ToString());
      continue;
    }
    if (old->name != f.name) out.push_back("~" + old->name + " renamed " + f.name);
    if (old->type != f.type) {
      out.push_back("~" + f.name + " " + old->type.ToString() + "->" + f.type.ToString());
    }
    if (old->nullable != f.nullable) {
      out.push_back("~" + f.name + (f.nullable ? " NOT NULL->nullable" : " nullable->NOT NULL"));
    }
  }
  for (const Field& f : agreed.fields) {
    if (!find(now, f)) out.push_back("-" + f.name);
  }
  std::string s;
  for (const auto& d : out) s += (s.empty() ? "" : "; ") + d;
  return s;
}

// The diff between the dataset as agreed and as it is now; "" when nothing that matters moved.
std::string DatasetDiff(const internal::AgreedDataset& agreed, const DatasetInfo& now) {
  std::vector<std::string> parts;
  const bool same = agreed.uuid == now.uuid;
  if (!same) parts.push_back("dataset recreated (uuid " + agreed.uuid + " -> " + now.uuid + ")");
  if (!same || agreed.schema_id != now.schema_id) {
    std::string d = SchemaDiff(agreed.schema, now.schema, same);
    if (d.empty())
      d = "schema " + std::to_string(agreed.schema_id) + "->" + std::to_string(now.schema_id);
    parts.push_back(d);
  }
  if (same && agreed.spec_id != now.spec.spec_id) {
    parts.push_back("~partition (" + agreed.spec_text + ")->(" + now.spec.ToString(now.schema) +
                    ")");
  }
  std::string s;
  for (const auto& d : parts) s += (s.empty() ? "" : "; ") + d;
  return s;
}

// ---- input ----

Result<formats::InputCompression> CompressionFromEncoding(std::string_view encoding) {
  std::string e;
  for (char c : encoding) e += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  using C = formats::InputCompression;
  if (e.empty() || e == "identity" || e == "none") return C::kNone;
  if (e == "gzip" || e == "x-gzip" || e == "gz") return C::kGzip;
  if (e == "zstd" || e == "zst") return C::kZstd;
  if (e == "br" || e == "brotli") return C::kBrotli;
  if (e == "deflate") return C::kDeflate;
  return Status::Of(codes::kFormatUnreadable, "unknown content encoding '" +
                                                  std::string(encoding.substr(0, 64)) +
                                                  "' (gzip, zstd, br, deflate)");
}

// The format of a part: by its name's suffix, else by its content type.
Result<formats::Format> FormatOf(std::string_view name, std::string_view content_type) {
  auto f = formats::DetectFormat(name);
  if (f.ok()) return f;
  std::string ct(content_type.substr(0, content_type.find(';')));
  for (char& c : ct) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!ct.empty() && ct.back() == ' ') ct.pop_back();
  if (ct == "text/csv" || ct == "text/tab-separated-values") return formats::Format::kCsv;
  if (ct == "application/x-ndjson" || ct == "application/ndjson" || ct == "application/jsonl" ||
      ct == "application/json" || ct == "application/x-jsonlines") {
    return formats::Format::kNdjson;
  }
  if (ct == "application/vnd.apache.parquet" || ct == "application/x-parquet") {
    return formats::Format::kParquet;
  }
  return f.status().WithField("file", std::string(name.substr(0, 200)));
}

std::string BaseName(std::string_view path) {
  size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// A write whose progress callback asked it to stop.
Status StoppedError() { return Status::Cancelled("the write was stopped by its caller"); }

// Counts the input bytes a reader consumes and reports them; stops when the callback says so.
class CountingFile final : public RandomAccessFile {
 public:
  CountingFile(std::shared_ptr<RandomAccessFile> inner, const ProgressFn* progress)
      : inner_(std::move(inner)), progress_(progress) {}
  uint64_t Size() const override { return inner_->Size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    TARN_RETURN_NOT_OK(inner_->ReadAt(offset, n, out));
    int64_t done = read_.fetch_add(static_cast<int64_t>(n)) + static_cast<int64_t>(n);
    done = std::min<int64_t>(done, static_cast<int64_t>(Size()));
    if (progress_ != nullptr && !(*progress_)(done, static_cast<int64_t>(Size()))) {
      return StoppedError();
    }
    return Status::OK();
  }
  const std::string& name() const override { return inner_->name(); }

 private:
  std::shared_ptr<RandomAccessFile> inner_;
  const ProgressFn* progress_;
  mutable std::atomic<int64_t> read_{0};
};

class CountingStream final : public formats::InputStream {
 public:
  CountingStream(std::unique_ptr<formats::InputStream> inner, int64_t size,
                 const ProgressFn* progress, int64_t* count)
      : inner_(std::move(inner)), size_(size), progress_(progress), count_(count) {}
  Result<size_t> Read(uint8_t* out, size_t n) override {
    TARN_ASSIGN_OR_RETURN(size_t got, inner_->Read(out, n));
    *count_ += static_cast<int64_t>(got);
    if (progress_ != nullptr && !(*progress_)(*count_, size_)) return StoppedError();
    return got;
  }

 private:
  std::unique_ptr<formats::InputStream> inner_;
  int64_t size_;
  const ProgressFn* progress_;
  int64_t* count_;
};

// What the reader of one part reads, and where each written column comes from.
struct ReadLayout {
  Schema reader;            // the reader's target schema
  std::vector<int> source;  // per write-schema field: reader column, or -1 (nulls)
  formats::ReadOptions options;
};

// The sample negotiated for a part name: the same name, else the same base name, else nullptr.
const formats::InferredSchema* SampleFor(const ContractRecord& r, std::string_view name) {
  for (const auto& f : r.files) {
    if (f.name == name) return &f.schema;
  }
  std::string base = BaseName(name);
  for (const auto& f : r.files) {
    if (BaseName(f.name) == base) return &f.schema;
  }
  return nullptr;
}

// The layout of a part read as `format` whose negotiated sample is `sample` (may be null).
ReadLayout LayoutFor(const ContractRecord& r, const formats::InferredSchema* sample,
                     formats::Format format) {
  ReadLayout l;
  const Schema& ws = r.plan.write_schema;
  std::vector<std::string> write_names;
  for (const Field& f : ws.fields) write_names.push_back(f.name);
  std::vector<bool> fed_by_ignored(ws.fields.size(), false);
  for (const auto& ig : r.plan.ignored) {
    int t = MatchColumn(write_names, ig);
    if (t >= 0) fed_by_ignored[t] = true;
  }
  l.source.assign(ws.fields.size(), -1);
  if (sample && format == formats::Format::kCsv) {
    l.options.delimiter = sample->delimiter;
    l.options.header = sample->header;
  }
  auto add = [&](std::string n, DataType type, bool nullable) {
    Field f;
    f.name = std::move(n);
    f.type = std::move(type);
    f.nullable = nullable;
    l.reader.fields.push_back(std::move(f));
    return static_cast<int>(l.reader.fields.size()) - 1;
  };
  if (sample && format == formats::Format::kCsv && !sample->header) {
    // Headerless: the reader maps columns by position, so its target is the file's columns.
    for (const auto& c : sample->columns) {
      int t = MatchColumn(write_names, c.name);
      bool ignored =
          std::find(r.plan.ignored.begin(), r.plan.ignored.end(), c.name) != r.plan.ignored.end();
      if (t >= 0 && !ignored && !fed_by_ignored[t]) {
        l.source[t] = add(ws.fields[t].name, ws.fields[t].type, ws.fields[t].nullable);
      } else {
        add(c.name, DataType::Varchar(), true);
      }
    }
    return l;
  }
  for (size_t t = 0; t < ws.fields.size(); ++t) {
    if (fed_by_ignored[t]) continue;
    l.source[t] = add(ws.fields[t].name, ws.fields[t].type, ws.fields[t].nullable);
  }
  // Ignored columns are read as text and dropped.
  for (const auto& ig : r.plan.ignored) add(ig, DataType::Varchar(), true);
  return l;
}

// Adds what the design's error fields need to a reader error.
Status DescribeReadError(Status st, const ReadLayout& l, std::string_view name) {
  std::string code = ErrorField(st, "code");
  if (code == codes::kValueNotCastable.name && ErrorField(st, "declared").empty()) {
    std::string column = ErrorField(st, "column");
    std::vector<std::string> names;
    for (const Field& f : l.reader.fields) names.push_back(f.name);
    int i = MatchColumn(names, column);
    if (i >= 0) st = std::move(st).WithField("declared", l.reader.fields[i].type.ToString());
  }
  if ((code == codes::kFormatUnreadable.name || code == codes::kValueNotCastable.name) &&
      ErrorField(st, "file").empty()) {
    st = std::move(st).WithField("file", std::string(name.substr(0, 200)));
  }
  if (code == codes::kFormatUnreadable.name && ErrorField(st, "row").empty()) {
    st = std::move(st).WithField("row", "0");
  }
  return st.WithContext("writing '" + std::string(name.substr(0, 200)) + "'");
}

// ---- the castability check of samples ----

// Reads of one sample in the check at most: each finds one more failing column.
constexpr size_t kMaxSampleReads = 16;

// Where the sample of file `i` of a contract is kept as sent, for the rechecks of Retype and
// Ignore. Under the staging prefix, so abandon, expiry and stale delete it with the parts.
std::string SampleKey(std::string_view id, size_t i) {
  return StagingPrefix(id) + "samples/" + std::to_string(i);
}

bool KeepsSample(const SampledFile& f) { return f.schema.format != formats::Format::kParquet; }

// Deletes the kept samples: once a part is staged the plan can no longer change.
void DeleteSamples(ObjectStore& store, const ContractRecord& r) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < r.files.size(); ++i) {
    if (KeepsSample(r.files[i])) keys.push_back(SampleKey(r.id, i));
  }
  if (!keys.empty()) DiscardError(store.DeleteMany(keys), "deleting the samples of " + r.id);
}

// The kept samples of a contract by file ("" for Parquet and for a sample not kept).
Result<std::vector<std::string>> LoadSamples(ObjectStore& store, const ContractRecord& r) {
  std::vector<std::string> out(r.files.size());
  for (size_t i = 0; i < r.files.size(); ++i) {
    if (!KeepsSample(r.files[i])) continue;
    auto bytes = store.Get(SampleKey(r.id, i));
    if (bytes.ok()) {
      out[i] = std::move(*bytes);
    } else if (bytes.status().kind() != ErrorKind::kNotFound) {
      return bytes.status();
    }
  }
  return out;
}

// The complete records of a CSV/NDJSON sample as inference read them: decoded, cut after the
// last complete record (sample_bytes).
Result<std::string> SampleRecords(const SampledFile& f, std::string_view stored) {
  const size_t used = static_cast<size_t>(std::max<int64_t>(0, f.schema.sample_bytes));
  if (f.schema.compression == formats::InputCompression::kNone) {
    return std::string(stored.substr(0, used));
  }
  TARN_ASSIGN_OR_RETURN(formats::internal::DecodedSample d,
                        formats::internal::DecodeSample(f.name, stored, f.schema.compression,
                                                        /*whole_file=*/false, used));
  return std::move(d.bytes);
}

// Reads every batch of `file` as `layout` says; the first error.
Status ReadThrough(const std::shared_ptr<RandomAccessFile>& file, std::string_view name,
                   formats::Format format, const ReadLayout& layout) {
  TARN_ASSIGN_OR_RETURN(
      auto reader, formats::OpenBatchReader(file, name, format, layout.reader, layout.options));
  while (true) {
    TARN_ASSIGN_OR_RETURN(auto batch, reader->Next());
    if (!batch) return Status::OK();
  }
}

// The values of the samples a write would refuse: each kept CSV/NDJSON sample's complete
// records read through the reader and layout of RunWrite, a failing column then read as
// nullable text to find the next. One blocking value_not_castable issue per column (its first
// file and row), with the refusal's fields. `stored` is LoadSamples' (or Negotiate's) list.
std::vector<ContractIssue> SampleCastIssues(const ContractRecord& r,
                                            const std::vector<std::string_view>& stored) {
  std::vector<ContractIssue> out;
  std::set<std::string> reported;
  for (size_t i = 0; i < r.files.size() && i < stored.size(); ++i) {
    const SampledFile& f = r.files[i];
    if (!KeepsSample(f) || stored[i].empty()) continue;
    auto text = SampleRecords(f, stored[i]);
    if (!text.ok()) continue;  // inference decoded it: not expected
    auto file = MemoryFile(std::move(*text), f.name);
    ReadLayout layout = LayoutFor(r, &f.schema, f.schema.format);
    layout.options.compression = formats::InputCompression::kNone;
    for (size_t reads = 0; reads < kMaxSampleReads; ++reads) {
      Status st = ReadThrough(file, f.name, f.schema.format, layout);
      if (!st.Is(codes::kValueNotCastable)) break;
      std::vector<std::string> names;
      for (const Field& g : layout.reader.fields) names.push_back(g.name);
      int c = MatchColumn(names, ErrorField(st, "column"));
      if (c < 0) break;
      Field& field = layout.reader.fields[c];
      if (field.nullable && field.type == DataType::Varchar()) break;  // nothing left to relax
      const std::string row = ErrorField(st, "row");
      const std::string value = ErrorField(st, "value");
      const std::string declared = field.type.ToString();
      std::string why = st.message();
      size_t at = why.find("row " + row + ": ");
      if (at != std::string::npos) why = why.substr(at + row.size() + 6);
      if (reported.insert(field.name).second) {
        ContractIssue issue;
        issue.code = std::string(codes::kValueNotCastable.name);
        issue.column = field.name;
        issue.detail = "file '" + f.name + "' row " + row + ": ";
        if (!value.empty() && why.find(value) != std::string::npos &&
            why.find(declared) != std::string::npos) {
          issue.detail += why;  // e.g. 'x' is not a valid INT64
        } else {
          issue.detail +=
              "'" + value + "' as " + declared + (field.nullable ? "" : " NOT NULL") + ": " + why;
        }
        issue.severity = IssueSeverity::kBlocking;
        issue.fields = {{"file", f.name}, {"row", row}, {"value", value}, {"declared", declared}};
        out.push_back(std::move(issue));
      }
      field.type = DataType::Varchar();
      field.nullable = true;
    }
  }
  return out;
}

// Adds the sample check's issues to a freshly computed plan and fingerprints it again.
void AddSampleIssues(ContractRecord& r, const std::vector<std::string_view>& stored) {
  std::vector<ContractIssue> found = SampleCastIssues(r, stored);
  if (found.empty()) return;
  for (auto& issue : found) r.plan.issues.push_back(std::move(issue));
  r.plan.fingerprint =
      PlanFingerprint(r.target, SchemaModeName(r.mode), SchemaSourceName(r.source),
                      r.dataset ? r.dataset->uuid : std::string(),
                      r.dataset ? r.dataset->schema_id : 0, r.plan.entries, r.plan.issues);
}

}  // namespace

ContractService::ContractService(std::shared_ptr<Catalog> catalog, ContractServiceOptions options)
    : ContractService(std::move(catalog), std::move(options),
                      std::make_shared<std::atomic<int64_t>>(0)) {}

ContractService::ContractService(std::shared_ptr<Catalog> catalog, ContractServiceOptions options,
                                 std::shared_ptr<std::atomic<int64_t>> last_sweep_us)
    : catalog_(std::move(catalog)),
      options_(std::move(options)),
      last_sweep_us_(std::move(last_sweep_us)) {
  if (options_.actor.empty()) options_.actor = catalog_->actor();
  if (options_.flush_rows <= 0) options_.flush_rows = 1 << 20;
  if (options_.flush_bytes <= 0) options_.flush_bytes = 128ll << 20;
  if (options_.batch_rows <= 0) options_.batch_rows = 65536;
}

std::unique_ptr<ContractService> ContractService::As(std::string actor) const {
  ContractServiceOptions o = options_;
  o.actor = std::move(actor);
  return std::unique_ptr<ContractService>(new ContractService(catalog_, o, last_sweep_us_));
}

// ---- records ----
namespace {

// Loads a contract; one past its expiry is expired first (staged objects deleted).
Result<ContractRecord> LoadFresh(Catalog& cat, std::string_view id) {
  if (!IsContractId(id)) return NotFoundError(id);
  std::optional<ContractRecord> rec;
  bool expired_now = false;
  TARN_RETURN_NOT_OK(cat.metastore().RunInTransaction([&](Transaction& tx) -> Status {
    expired_now = false;
    TARN_ASSIGN_OR_RETURN(rec, internal::LoadRecord(tx, id));
    if (!rec) return Status::OK();
    const int64_t now = NowUs(cat);
    if (IsActive(rec->state) && now >= rec->expires_at_us) {
      const ContractState was = rec->state;
      rec->state = ContractState::kExpired;
      rec->updated_at_us = now;
      TARN_ASSIGN_OR_RETURN(expired_now, internal::UpdateRecord(tx, *rec, was));
    }
    return Status::OK();
  }));
  if (!rec) return NotFoundError(id);
  if (expired_now) {
    DiscardError(DeleteStaged(cat.warehouse(), id),
                 "deleting the staged objects of " + std::string(id));
  }
  return std::move(*rec);
}

// Runs `fn` on the contract inside one transaction and stores the result when it returns OK,
// guarded by the state it was loaded in. Expiry is applied first.
Result<ContractRecord> Mutate(Catalog& cat, std::string_view id,
                              const std::function<Status(ContractRecord&, int64_t)>& fn) {
  TARN_RETURN_NOT_OK(LoadFresh(cat, id).status());
  ContractRecord out;
  TARN_RETURN_NOT_OK(cat.metastore().RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, id));
    if (!rec) return NotFoundError(id);
    const int64_t now = NowUs(cat);
    const ContractState was = rec->state;
    if (IsActive(was) && now >= rec->expires_at_us) return ExpiredError(*rec);
    TARN_RETURN_NOT_OK(fn(*rec, now));
    TARN_ASSIGN_OR_RETURN(bool updated, internal::UpdateRecord(tx, *rec, was));
    if (!updated) return Status::Conflict("contract " + std::string(id) + " changed meanwhile");
    out = std::move(*rec);
    return Status::OK();
  }));
  return out;
}

// Moves an active (or committing) contract to stale, drops its parts and deletes the staged
// objects; returns the contract_stale error.
Status MarkStale(Catalog& cat, const ContractRecord& seen, const std::string& diff) {
  int64_t rows = WrittenRows(seen);
  Status st = cat.metastore().RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, seen.id));
    if (!rec) return NotFoundError(seen.id);
    if (!IsActive(rec->state) && rec->state != ContractState::kCommitting) return Status::OK();
    rows = WrittenRows(*rec);
    const ContractState was = rec->state;
    rec->state = ContractState::kStale;
    rec->updated_at_us = NowUs(cat);
    TARN_ASSIGN_OR_RETURN(bool updated, internal::UpdateRecord(tx, *rec, was));
    if (updated) TARN_RETURN_NOT_OK(internal::DeleteParts(tx, seen.id));
    return Status::OK();
  });
  TARN_RETURN_NOT_OK(st);
  DiscardError(DeleteStaged(cat.warehouse(), seen.id), "deleting the staged objects of " + seen.id);
  return StaleError(seen.id, diff, rows);
}

// Checks the dataset against the agreement. Returns the current dataset (dataset mode), or
// nullopt (mode create, dataset still absent); contract_stale / dataset_exists otherwise.
Result<std::optional<DatasetInfo>> CheckDataset(Catalog& cat, const ContractRecord& r,
                                                bool allow_created) {
  auto ds = cat.LoadDataset(r.target);
  if (!ds.ok() && ds.status().kind() != ErrorKind::kNotFound) return ds.status();
  if (r.mode == SchemaMode::kCreate) {
    if (!ds.ok()) return std::optional<DatasetInfo>();
    if (allow_created && r.created_uuid && *r.created_uuid == ds->uuid) {
      return std::optional<DatasetInfo>(std::move(*ds));
    }
    return Status::Of(
               codes::kDatasetExists,
               "dataset '" + r.target + "' was created after contract " + r.id + " was agreed")
        .WithField("dataset", r.target);
  }
  if (!r.dataset) return Status::Internal("contract " + r.id + " lacks its agreed dataset");
  if (!ds.ok()) return MarkStale(cat, r, "dataset dropped");
  std::string diff = DatasetDiff(*r.dataset, *ds);
  if (!diff.empty()) return MarkStale(cat, r, diff);
  return std::optional<DatasetInfo>(std::move(*ds));
}

}  // namespace

// ---- negotiate ----

Result<Contract> ContractService::Negotiate(const NegotiateRequest& request) {
  return AuditedLocally("contract.negotiate", request.target, [&]() -> Result<Contract> {
    const SchemaSource& source = request.schema;
    if (source.kind == SchemaSourceKind::kNone) {
      return Status::Of(
          codes::kSchemaSourceRequired,
          "say where the column types come from: declared, inferred, dataset or auto");
    }
    TARN_ASSIGN_OR_RETURN(DatasetName name, ParseDatasetName(request.target));
    if (request.samples.empty()) {
      return Status::InvalidArgument("a negotiation needs a sample of at least one file");
    }
    int64_t total = 0;
    for (const auto& s : request.samples) total += static_cast<int64_t>(s.bytes.size());
    if (total > kMaxSampleBytesTotal) {
      return Status::Of(codes::kSamplesTooLarge, "samples of " + std::to_string(total) +
                                                     " bytes exceed the limit of " +
                                                     std::to_string(kMaxSampleBytesTotal));
    }
    const int64_t ttl = request.ttl_s.value_or(options_.default_ttl_s);
    if (ttl <= 0 || ttl > options_.max_ttl_s) {
      return Status::InvalidArgument("ttl must be between 1 and " +
                                     std::to_string(options_.max_ttl_s) + " seconds");
    }
    std::string channel = request.channel.empty() ? "sdk" : request.channel;
    if (channel.size() > 64 || !std::all_of(channel.begin(), channel.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
        })) {
      return Status::InvalidArgument("channel must be a short name like cli, tui or sdk");
    }
    int64_t last_sweep = last_sweep_us_->load();
    if (NowUs(*catalog_) - last_sweep > kSweepEveryUs &&
        last_sweep_us_->compare_exchange_strong(last_sweep, NowUs(*catalog_))) {
      // One caller per minute, whichever view it came through.
      DiscardError(SweepExpired(), "expiring upload contracts");
    }

    // Where the types come from.
    const std::string target = name.ToString();
    auto ds = catalog_->LoadDataset(target);
    if (!ds.ok() && ds.status().kind() != ErrorKind::kNotFound) return ds.status();
    const bool exists = ds.ok();
    SchemaSourceKind resolved = source.kind;
    if (resolved == SchemaSourceKind::kAuto) {
      resolved = exists ? SchemaSourceKind::kDataset : SchemaSourceKind::kInferred;
    }
    if (exists && resolved != SchemaSourceKind::kDataset) {
      return Status::Of(codes::kDatasetExists,
                        "dataset '" + target + "' exists: use its schema (dataset or auto)")
          .WithField("dataset", target);
    }
    if (!exists && resolved == SchemaSourceKind::kDataset) return ds.status();
    if (!exists) {
      TARN_RETURN_NOT_OK(catalog_->GetCollection(name.workspace + "." + name.collection).status());
    }
    if (resolved == SchemaSourceKind::kDeclared && source.declared.empty()) {
      return Status::InvalidArgument("a declared schema needs at least one column");
    }

    ContractRecord r;
    r.target = target;
    r.requested_source = std::string(SchemaSourceName(source.kind));
    r.source = resolved;
    r.mode = resolved != SchemaSourceKind::kDataset ? SchemaMode::kCreate
             : source.mode == WriteMode::kOverwrite ? SchemaMode::kOverwrite
                                                    : SchemaMode::kAppend;
    r.declared = source.declared;
    r.channel = channel;
    r.ttl_s = ttl;
    r.created_by = options_.actor;
    r.retype = request.retype;
    for (const auto& c : request.ignore) {
      if (std::find(r.ignore.begin(), r.ignore.end(), c) == r.ignore.end()) r.ignore.push_back(c);
    }
    if (exists) {
      internal::AgreedDataset a;
      a.uuid = ds->uuid;
      a.schema_id = ds->schema_id;
      a.spec_id = ds->spec.spec_id;
      a.schema = ds->schema;
      a.spec_text = ds->spec.ToString(ds->schema);
      r.dataset = std::move(a);
    }

    // Infer every sample.
    for (const UploadSample& s : request.samples) {
      formats::InferOptions options;
      // STRUCT members become dataset fields: a key that is no valid column name keeps its
      // objects JSON.
      options.member_name = [](std::string_view n) { return ValidateColumnName(n); };
      if (!s.content_encoding.empty()) {
        TARN_ASSIGN_OR_RETURN(options.compression, CompressionFromEncoding(s.content_encoding));
      }
      auto inferred = formats::InferSample(s.name, s.bytes, s.whole_file, options);
      if (!inferred.ok()) {
        Status st = inferred.status();
        if (st.kind() == ErrorKind::kInvalidArgument || st.kind() == ErrorKind::kCorruption) {
          Status out = Status::Of(codes::kFormatUnreadable, "sample of '" + s.name.substr(0, 200) +
                                                                "' does not parse: " + st.message())
                           .WithField("file", s.name.substr(0, 200));
          std::string row = ErrorField(st, "row");
          st = std::move(out).WithField("row", row.empty() ? "0" : row);
        }
        return st;
      }
      for (auto& col : inferred->columns) col.sample = Printable(col.sample, kMaxSampleValueBytes);
      ContractFile info;
      info.name = Printable(s.name, kMaxNameBytes);
      info.format = std::string(formats::FormatName(inferred->format));
      info.compression = std::string(formats::InputCompressionName(inferred->compression));
      info.file_size = s.file_size;
      info.sampled_rows = inferred->rows;
      info.sampled_bytes = static_cast<int64_t>(s.bytes.size());
      r.files.push_back(SampledFile{info.name, std::move(*inferred)});
      r.file_info.push_back(std::move(info));
    }

    DatasetInfo holder;
    PlanInput in = r.ToPlanInput(&holder);
    TARN_ASSIGN_OR_RETURN(r.plan, ComputePlan(in));
    std::vector<std::string_view> stored;
    for (const UploadSample& s : request.samples) stored.emplace_back(s.bytes);
    AddSampleIssues(r, stored);
    r.fingerprint = r.plan.fingerprint;
    r.state = resolved != SchemaSourceKind::kInferred && !r.plan.blocking() && !r.plan.retyped()
                  ? ContractState::kAccepted
                  : ContractState::kProposed;
    Status st;
    for (int attempt = 0; attempt < 4; ++attempt) {
      const int64_t now = NowUs(*catalog_);
      r.id = NewContractId(now);
      r.created_at_us = r.updated_at_us = now;
      r.expires_at_us = now + ttl * 1'000'000;
      st = catalog_->metastore().RunInTransaction(
          [&](Transaction& tx) { return internal::InsertRecord(tx, r); });
      if (st.kind() != ErrorKind::kAlreadyExists) break;
    }
    TARN_RETURN_NOT_OK(st);
    // The samples stay for the rechecks of Retype and Ignore; a contract that cannot keep them
    // is abandoned (a warehouse refusing them would refuse the parts too).
    for (size_t i = 0; i < r.files.size(); ++i) {
      if (!KeepsSample(r.files[i])) continue;
      Status kept = catalog_->warehouse().Put(SampleKey(r.id, i), request.samples[i].bytes);
      if (!kept.ok()) {
        DiscardError(Abandon(r.id), "abandoning contract " + r.id);
        return kept.WithContext("keeping the samples of contract " + r.id);
      }
    }
    return r.ToContract();
  });
}

Result<Contract> ContractService::GetContract(std::string_view id) {
  TARN_ASSIGN_OR_RETURN(auto r, LoadFresh(*catalog_, id));
  return r.ToContract();
}

void ContractService::WriteLocalAudit(std::string_view action, std::string_view subject,
                                      const Status& outcome) {
  AuditRecord row;
  row.actor = *catalog_->local_actor();
  row.action = std::string(action);
  nlohmann::json detail = nlohmann::json::object();
  row.target = std::string(subject);
  if (IsContractId(subject)) {
    detail["contract"] = std::string(subject);
    auto target = ContractTarget(subject);
    if (target.ok()) row.target = *target;
  }
  row.target = Printable(row.target, 1024);
  row.workspace = row.target.substr(0, row.target.find('.'));
  row.outcome = outcome.code();
  if (!outcome.ok()) {
    detail["message"] = Printable(outcome.message(), 500);
  }
  row.detail_json = detail.dump();
  DiscardError(catalog_->WriteAudit({row}), "writing the local audit row");
}

Result<std::string> ContractService::ContractTarget(std::string_view id) {
  if (!IsContractId(id)) return NotFoundError(id);
  std::optional<std::string> target;
  TARN_RETURN_NOT_OK(catalog_->metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(target, internal::LoadTarget(tx, id));
        return Status::OK();
      },
      TxMode::kReadOnly));
  if (!target) return NotFoundError(id);
  return *target;
}

// ---- retype, ignore, accept ----

namespace {

// The plan of `r` from scratch, with the sample check.
Status Replan(ContractRecord& r, const std::vector<std::string_view>& samples) {
  DatasetInfo holder;
  TARN_ASSIGN_OR_RETURN(r.plan, ComputePlan(r.ToPlanInput(&holder)));
  AddSampleIssues(r, samples);
  return Status::OK();
}

// Applies `change` (to retype or ignore) and plans again; the contract returns to proposed.
// The plan and the sample check run before the transaction that stores them (they read the
// kept samples), and again inside it only if the contract changed meanwhile.
Result<ContractRecord> ChangePlan(Catalog& cat, std::string_view id,
                                  const std::function<void(ContractRecord&)>& change) {
  TARN_ASSIGN_OR_RETURN(ContractRecord seen, LoadFresh(cat, id));
  if (seen.state != ContractState::kProposed && seen.state != ContractState::kAccepted) {
    return StateError(seen);
  }
  change(seen);
  TARN_ASSIGN_OR_RETURN(std::vector<std::string> kept, LoadSamples(cat.warehouse(), seen));
  const std::vector<std::string_view> samples(kept.begin(), kept.end());
  TARN_RETURN_NOT_OK(Replan(seen, samples));
  return Mutate(cat, id, [&](ContractRecord& r, int64_t now) -> Status {
    if (r.state != ContractState::kProposed && r.state != ContractState::kAccepted) {
      return StateError(r);
    }
    change(r);
    if (r.retype == seen.retype && r.ignore == seen.ignore) {
      r.plan = seen.plan;
    } else {
      TARN_RETURN_NOT_OK(Replan(r, samples));
    }
    r.fingerprint = r.plan.fingerprint;
    r.state = ContractState::kProposed;
    r.updated_at_us = now;
    r.expires_at_us = now + r.ttl_s * 1'000'000;
    return Status::OK();
  });
}

}  // namespace

Result<Contract> ContractService::Retype(std::string_view id,
                                         const std::map<std::string, std::string>& types) {
  return AuditedLocally("contract.retype", id, [&]() -> Result<Contract> {
    TARN_ASSIGN_OR_RETURN(auto r, ChangePlan(*catalog_, id, [&](ContractRecord& r) {
                            for (const auto& [c, t] : types) r.retype[c] = t;
                          }));
    return r.ToContract();
  });
}

Result<Contract> ContractService::Ignore(std::string_view id,
                                         const std::vector<std::string>& columns) {
  return AuditedLocally("contract.ignore", id, [&]() -> Result<Contract> {
    TARN_ASSIGN_OR_RETURN(
        auto r, ChangePlan(*catalog_, id, [&](ContractRecord& r) {
          for (const auto& c : columns) {
            if (std::find(r.ignore.begin(), r.ignore.end(), c) == r.ignore.end()) {
              r.ignore.push_back(c);
            }
          }
        }));
    return r.ToContract();
  });
}

Result<Contract> ContractService::Accept(std::string_view id, std::string_view fingerprint) {
  return AuditedLocally("contract.accept", id, [&]() -> Result<Contract> {
    TARN_ASSIGN_OR_RETURN(
        auto r, Mutate(*catalog_, id, [&](ContractRecord& r, int64_t now) -> Status {
          if (r.state != ContractState::kProposed && r.state != ContractState::kAccepted &&
              r.state != ContractState::kWriting) {
            return StateError(r);
          }
          if (fingerprint != r.fingerprint) {
            return Status::Of(codes::kProposalChanged,
                              "the proposal changed since it was shown (fingerprint " +
                                  std::string(fingerprint.substr(0, 64)) + ", now " +
                                  r.fingerprint + "): review the plan again")
                .WithField("fingerprint", r.fingerprint);
          }
          for (const auto& issue : r.plan.issues) {
            if (issue.blocking()) return IssueError(issue);
          }
          if (r.state == ContractState::kProposed) {
            r.state = ContractState::kAccepted;
            r.updated_at_us = now;
            r.expires_at_us = now + r.ttl_s * 1'000'000;
          }
          return Status::OK();
        }));
    return r.ToContract();
  });
}

// ---- writes ----

namespace {

using ReaderFactory = std::function<Result<std::unique_ptr<formats::BatchReader>>(
    const Schema& target, const formats::ReadOptions& options)>;

struct WriteInput {
  std::string name;
  formats::Format format;
  ReaderFactory open;
  std::function<int64_t()> bytes_read;
};

// Batches handed from a write's reader thread to its writer (at most half of flush_bytes
// queued), with their sizes.
struct QueuedBatch {
  RecordBatch batch;
  int64_t bytes = 0;
};
using BatchQueue = BoundedQueue<QueuedBatch>;

// The reader thread of a write: the batches of `reader` as write-schema batches into `queue`,
// then Finish with how the input ended.
void ReadInto(formats::BatchReader& reader, const Schema& ws, const ReadLayout& layout,
              BatchQueue* queue) {
  Status st;
  try {
    st = [&]() -> Status {
      while (true) {
        TARN_ASSIGN_OR_RETURN(auto batch, reader.Next());
        if (!batch) return Status::OK();
        if (batch->num_rows == 0) continue;
        RecordBatch out;
        out.schema = ws;
        out.num_rows = batch->num_rows;
        for (size_t t = 0; t < ws.fields.size(); ++t) {
          int src = layout.source[t];
          if (src >= 0 && static_cast<size_t>(src) < batch->columns.size()) {
            out.columns.push_back(std::move(batch->columns[src]));
          } else {
            out.columns.push_back(Column::Nulls(ws.fields[t].type, batch->num_rows));
          }
        }
        const int64_t bytes = BatchBytes(out);
        if (!queue->Push(QueuedBatch{std::move(out), bytes}, bytes)) {
          return Status::OK();  // the writer stopped
        }
      }
    }();
  } catch (const std::exception& e) {  // this thread must not end the process
    st = Status::Internal(std::string("reading the part: ") + e.what());
  } catch (...) {
    st = Status::Internal("reading the part: unknown exception");
  }
  queue->Finish(std::move(st));
}

Result<WriteResult> RunWrite(Catalog& cat, const ContractServiceOptions& options,
                             std::string_view id, const WriteInput& input) {
  TARN_ASSIGN_OR_RETURN(ContractRecord r, LoadFresh(cat, id));
  if (r.state != ContractState::kAccepted && r.state != ContractState::kWriting) {
    if (r.state == ContractState::kCommitting) return WritingError(r);
    return StateError(r);
  }
  TARN_ASSIGN_OR_RETURN(auto ds, CheckDataset(cat, r, false));
  PartitionSpec spec;
  SortOrder sort;
  if (ds) {
    spec = ds->spec;
    sort = ds->sort_order;
  }
  const Schema& ws = r.plan.write_schema;
  ReadLayout layout = LayoutFor(r, SampleFor(r, input.name), input.format);
  layout.options.batch_rows = options.batch_rows;

  std::vector<DataFile> files;
  int64_t rows = 0;
  Status st = [&]() -> Status {
    TARN_ASSIGN_OR_RETURN(auto reader, input.open(layout.reader, layout.options));
    // Parsing overlaps encoding: a reader thread parses ahead into the queue while this thread
    // writes the previous buffer. Each holds at most half of flush_bytes, so a write's batches
    // stay within flush_bytes as when the two took turns.
    const int64_t half = std::max<int64_t>(1, options.flush_bytes / 2);
    BatchQueue queue(half);
    std::thread parse;
    try {
      parse = std::thread([&] { ReadInto(*reader, ws, layout, &queue); });
    } catch (const std::exception& e) {
      return Status::Internal(std::string("starting the reader of a part: ") + e.what());
    }
    struct Join {
      BatchQueue& queue;
      std::thread& thread;
      ~Join() {
        queue.Cancel();
        if (thread.joinable()) thread.join();
      }
    } join{queue, parse};
    std::vector<RecordBatch> buffer;
    int64_t buffered_rows = 0, buffered_bytes = 0;
    DataWriteOptions wo;
    wo.prefix = StagingPrefix(r.id);
    // The bloom filters the dataset asks for (a dataset the commit creates asks for none).
    if (ds) wo.parquet.bloom_filter_columns = BloomFilterColumns(ds->properties, ws);
    if (auto json = iceberg::ParquetSchemaJson(ws, ds ? ds->schema_id : 0)) {
      wo.parquet.key_value_metadata.push_back({iceberg::kParquetSchemaKey, *json});
    }
    auto flush = [&]() -> Status {
      if (buffer.empty()) return Status::OK();
      auto written = WriteDataFiles(cat.warehouse(), ws, spec, sort, buffer, wo);
      buffer.clear();
      buffered_rows = buffered_bytes = 0;
      if (!written.ok()) return written.status();
      for (auto& f : *written) files.push_back(std::move(f));
      return Status::OK();
    };
    while (true) {
      TARN_ASSIGN_OR_RETURN(auto item, queue.Pop());
      if (!item) break;
      rows += item->batch.num_rows;
      buffered_rows += item->batch.num_rows;
      buffered_bytes += item->bytes;
      buffer.push_back(std::move(item->batch));
      if (buffered_rows >= options.flush_rows || buffered_bytes >= half) {
        TARN_RETURN_NOT_OK(flush());
      }
    }
    return flush();
  }();
  if (!st.ok()) {
    DeleteFiles(cat.warehouse(), files);
    return DescribeReadError(std::move(st), layout, input.name);
  }

  StoredPart part;
  part.part.name = Printable(input.name, kMaxNameBytes);
  part.part.rows = rows;
  part.part.bytes_read = input.bytes_read();
  part.part.files = static_cast<int32_t>(files.size());
  for (const auto& f : files) part.part.bytes_written += f.file_size_bytes;
  part.files = files;
  const std::string fingerprint = r.fingerprint;
  bool first_part = false;
  st = cat.metastore().RunInTransaction([&](Transaction& tx) -> Status {
    TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, r.id));
    if (!rec) return NotFoundError(r.id);
    const int64_t now = NowUs(cat);
    if (IsActive(rec->state) && now >= rec->expires_at_us) return ExpiredError(*rec);
    if (rec->state != ContractState::kAccepted && rec->state != ContractState::kWriting) {
      return rec->state == ContractState::kCommitting ? WritingError(*rec) : StateError(*rec);
    }
    if (rec->fingerprint != fingerprint) {
      return Status::Of(codes::kProposalChanged,
                        "the plan of contract " + r.id + " changed during the write")
          .WithField("fingerprint", rec->fingerprint);
    }
    int32_t seq = 1;
    for (const auto& p : rec->parts) seq = std::max(seq, p.part.seq + 1);
    part.part.seq = seq;
    part.part.written_at_us = now;
    TARN_RETURN_NOT_OK(internal::InsertPart(tx, r.id, part));
    const ContractState was = rec->state;
    first_part = was == ContractState::kAccepted;
    rec->state = ContractState::kWriting;
    rec->updated_at_us = now;
    rec->expires_at_us = now + rec->ttl_s * 1'000'000;
    TARN_ASSIGN_OR_RETURN(bool updated, internal::UpdateRecord(tx, *rec, was));
    if (!updated) return Status::Conflict("contract " + r.id + " changed meanwhile");
    return Status::OK();
  });
  if (!st.ok()) {
    DeleteFiles(cat.warehouse(), files);
    return st;
  }
  if (first_part) DeleteSamples(cat.warehouse(), r);  // the plan is fixed from here on
  return WriteResult{r.id, part.part};
}

}  // namespace

Result<WriteResult> ContractService::DoWrite(std::string_view id, const std::string& path,
                                             const ProgressFn& progress) {
  return AuditedLocally("contract.write", id, [&]() -> Result<WriteResult> {
    TARN_ASSIGN_OR_RETURN(formats::Format format, FormatOf(path, {}));
    if (!IsContractId(id)) return NotFoundError(id);
    TARN_ASSIGN_OR_RETURN(auto raw, OpenLocalFile(path));
    auto file = std::make_shared<CountingFile>(raw, &progress);
    WriteInput in;
    in.name = BaseName(path);
    in.format = format;
    in.open = [&](const Schema& target, const formats::ReadOptions& options) {
      return formats::OpenBatchReader(file, path, format, target, options);
    };
    in.bytes_read = [&] { return static_cast<int64_t>(file->Size()); };
    return RunWrite(*catalog_, options_, id, in);
  });
}

Result<WriteResult> ContractService::DoWriteBytes(std::string_view id, std::string_view name,
                                                  std::string_view bytes, std::string content_type,
                                                  const ProgressFn& progress) {
  return AuditedLocally("contract.write", id, [&]() -> Result<WriteResult> {
    TARN_ASSIGN_OR_RETURN(formats::Format format, FormatOf(name, content_type));
    if (!IsContractId(id)) return NotFoundError(id);
    auto file = std::make_shared<CountingFile>(MemoryFile(std::string(bytes), std::string(name)),
                                               &progress);
    WriteInput in;
    in.name = std::string(name);
    in.format = format;
    in.open = [&](const Schema& target, const formats::ReadOptions& options) {
      return formats::OpenBatchReader(file, name, format, target, options);
    };
    in.bytes_read = [&] { return static_cast<int64_t>(bytes.size()); };
    return RunWrite(*catalog_, options_, id, in);
  });
}

namespace {

// A file read under another name (for error messages).
class RenamedFile : public RandomAccessFile {
 public:
  RenamedFile(std::shared_ptr<RandomAccessFile> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)) {}
  uint64_t Size() const override { return inner_->Size(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    return inner_->ReadAt(offset, n, out);
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<RandomAccessFile> inner_;
  std::string name_;
};

}  // namespace

Result<WriteResult> ContractService::WriteStream(
    std::string_view id, std::string_view name, std::unique_ptr<formats::InputStream> raw,
    std::optional<formats::InputCompression> compression, std::string_view content_type,
    int64_t size, const ProgressFn& progress) {
  TARN_ASSIGN_OR_RETURN(formats::Format format, FormatOf(name, content_type));
  if (!IsContractId(id)) return NotFoundError(id);
  if (!raw) return Status::InvalidArgument("no input stream");
  int64_t consumed = 0;
  if (format != formats::Format::kParquet) {
    auto counted = std::make_unique<CountingStream>(std::move(raw), size, &progress, &consumed);
    formats::InputCompression c = compression ? *compression : formats::CompressionFromSuffix(name);
    WriteInput in;
    in.name = std::string(name);
    in.format = format;
    in.open = [&](const Schema& target, const formats::ReadOptions& options) {
      return formats::OpenStreamBatchReader(std::move(counted), name, format, c, target, options);
    };
    in.bytes_read = [&] { return consumed; };
    return RunWrite(*catalog_, options_, id, in);
  }
  // Parquet needs its footer: spool the stream to a local file first.
  if (compression && *compression != formats::InputCompression::kNone) {
    return Status::Of(codes::kFormatUnreadable, "a Parquet part cannot be compressed as a whole")
        .WithField("file", std::string(name.substr(0, 200)))
        .WithField("row", "0");
  }
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string spool = (dir / ("tarn-upload-" + std::to_string(RandomU64()) + ".parquet")).string();
  struct Remove {
    std::string path;
    ~Remove() {
      std::error_code e;
      std::filesystem::remove(path, e);
    }
  } remove{spool};
  {
    // Upload bytes are the caller's data: 0600 in a shared temporary directory.
    TARN_ASSIGN_OR_RETURN(auto out, CreateLocalFile(spool, FileAccess::kOwnerOnly));
    std::vector<uint8_t> buf(1 << 20);
    while (true) {
      TARN_ASSIGN_OR_RETURN(size_t n, raw->Read(buf.data(), buf.size()));
      if (n == 0) break;
      consumed += static_cast<int64_t>(n);
      TARN_RETURN_NOT_OK(out->Write(buf.data(), n));
      if (!progress(consumed, size)) return StoppedError();
    }
    TARN_RETURN_NOT_OK(out->Close());
  }
  TARN_ASSIGN_OR_RETURN(auto spooled, OpenLocalFile(spool));
  // Messages of the Parquet reader name the part as the client sent it, never the spool path.
  auto file = std::make_shared<RenamedFile>(std::move(spooled), std::string(name.substr(0, 200)));
  WriteInput in;
  in.name = std::string(name);
  in.format = format;
  in.open = [&](const Schema& target, const formats::ReadOptions& options) {
    return formats::OpenBatchReader(file, name, format, target, options);
  };
  in.bytes_read = [&] { return consumed; };
  return RunWrite(*catalog_, options_, id, in);
}

// ---- commit ----

Result<UploadCommitResult> ContractService::CommitContract(std::string_view id,
                                                           const CommitRequest& request) {
  return AuditedLocally("contract.commit", id, [&]() -> Result<UploadCommitResult> {
    if (request.idempotency_key &&
        (request.idempotency_key->empty() || request.idempotency_key->size() > 256 ||
         Printable(*request.idempotency_key, 256) != *request.idempotency_key)) {
      return Status::InvalidArgument(
          "an idempotency key must be 1 to 256 bytes without control characters");
    }
    if (request.message.size() > 64 * 1024 || request.author.size() > 1024) {
      return Status::InvalidArgument("commit message or author too long");
    }
    // Claim the commit: one state change from writing (or accepted) to committing.
    const int64_t started = NowUs(*catalog_);
    ContractRecord r;
    bool takeover = false;
    while (true) {
      TARN_ASSIGN_OR_RETURN(r, LoadFresh(*catalog_, id));
      if (r.state == ContractState::kCommitted) {
        if (request.idempotency_key && r.idempotency_key == request.idempotency_key &&
            r.commit_result) {
          UploadCommitResult replay = *r.commit_result;
          replay.idempotent_replay = true;
          return replay;
        }
        return AlreadyCommittedError(r);
      }
      if (r.state == ContractState::kCommitting) {
        const int64_t now = NowUs(*catalog_);
        if (now - r.updated_at_us < kCommitTakeoverUs) {
          if (now - started > kCommitWaitUs) {
            return Status::Of(codes::kCommitInProgress,
                              "contract " + r.id + " is being committed by another caller");
          }
          Pause(*catalog_, std::chrono::milliseconds(20));
          continue;
        }
        takeover = true;  // its committer died: finish its commit with the key it claimed
      } else if (r.state != ContractState::kWriting && r.state != ContractState::kAccepted) {
        return StateError(r);
      } else if (r.parts.empty() && r.mode == SchemaMode::kAppend) {
        return Status::Of(codes::kNothingWritten,
                          "contract " + r.id + " has no staged part to commit")
            .WithField("state", std::string(ContractStateName(r.state)));
      }
      const ContractState was = r.state;
      const int64_t seen_updated = r.updated_at_us;
      bool claimed = false;
      TARN_RETURN_NOT_OK(catalog_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
        claimed = false;
        TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, r.id));
        if (!rec || rec->state != was || rec->updated_at_us != seen_updated) return Status::OK();
        if (!takeover) {
          rec->idempotency_key = request.idempotency_key;
          rec->created_uuid.reset();
        }
        rec->state = ContractState::kCommitting;
        rec->updated_at_us = NowUs(*catalog_);
        TARN_ASSIGN_OR_RETURN(claimed, internal::UpdateRecord(tx, *rec, was));
        if (claimed) r = std::move(*rec);
        return Status::OK();
      }));
      if (claimed) break;
    }

    // From here this caller owns the commit. Failures return the contract to writing.
    auto release = [&](ContractState to) {
      Status released = catalog_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, r.id));
        if (!rec || rec->state != ContractState::kCommitting) return Status::OK();
        rec->state = to;
        rec->updated_at_us = NowUs(*catalog_);
        rec->expires_at_us = rec->updated_at_us + rec->ttl_s * 1'000'000;
        return internal::UpdateRecord(tx, *rec, ContractState::kCommitting).status();
      });
      DiscardError(released,
                   "returning contract " + r.id + " to " + std::string(ContractStateName(to)));
    };
    const ContractState back = r.parts.empty() ? ContractState::kAccepted : ContractState::kWriting;
    auto fail = [&](Status st) -> Status {
      if (!st.Is(codes::kContractStale)) release(back);
      return st;
    };

    auto ds = CheckDataset(*catalog_, r, true);
    if (!ds.ok()) return fail(ds.status());
    bool created = false;
    if (!*ds) {
      // Mode create: the dataset is created with the contract's schema, then committed to.
      DatasetDefinition def;
      def.schema = r.plan.write_schema;
      auto made = catalog_->CreateDataset(r.target, def);
      if (!made.ok()) {
        Status st = made.status();
        if (st.kind() == ErrorKind::kAlreadyExists) {
          st = Status::Of(codes::kDatasetExists, "dataset '" + r.target + "' was created meanwhile")
                   .WithField("dataset", r.target);
        }
        return fail(st);
      }
      created = true;
      Status noted = catalog_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, r.id));
        if (!rec || rec->state != ContractState::kCommitting) {
          return Status::Conflict("contract " + r.id + " changed during its commit");
        }
        rec->created_uuid = made->uuid;
        return internal::UpdateRecord(tx, *rec, ContractState::kCommitting).status();
      });
      if (!noted.ok()) return fail(noted);
      r.created_uuid = made->uuid;
      ds = std::optional<DatasetInfo>(std::move(*made));
    } else if (r.mode == SchemaMode::kCreate) {
      created = true;  // taken over after the create
    }
    const DatasetInfo& dataset = **ds;

    DatasetCommit part;
    part.dataset = r.target;
    part.expected_uuid = dataset.uuid;
    part.operation = r.mode == SchemaMode::kOverwrite ? CommitOperation::kTruncateAndAdd
                                                      : CommitOperation::kAppend;
    part.written_spec_id = dataset.spec.spec_id;
    int64_t rows = 0, bytes = 0;
    for (const auto& p : r.parts) {
      rows += p.part.rows;
      for (const auto& f : p.files) {
        bytes += f.file_size_bytes;
        part.added.push_back(f);
      }
    }
    part.meta.author = !request.author.empty() ? request.author : options_.actor;
    part.meta.message = request.message;
    part.meta.idempotency_key =
        r.idempotency_key ? *r.idempotency_key : std::string("upload:") + r.id;
    // An upload reads no catalog dataset; it names the channel the data arrived through.
    part.meta.receipt = Receipt::Of({}, "upload:" + r.channel);
    Result<SnapshotInfo> snap = Status::Internal("not committed");
    for (int attempt = 0; attempt < 8; ++attempt) {
      if (part.operation == CommitOperation::kTruncateAndAdd) {
        auto now = catalog_->LoadDataset(r.target);
        if (!now.ok()) return fail(now.status());
        part.read_snapshot_id = now->current_snapshot_id.value_or(0);
      }
      // The staged files are this contract's own: under its staging prefix, checked like any
      // other registration otherwise (existence, size, no other dataset's path).
      snap = catalog_->CommitStaged(part, StagingPrefix(r.id));
      if (snap.ok() || snap.status().kind() != ErrorKind::kConflict) break;
    }
    if (!snap.ok()) {
      Status st = snap.status();
      if (st.kind() == ErrorKind::kStale) {
        return MarkStale(*catalog_, r, "dataset recreated (expected uuid " + dataset.uuid + ")");
      }
      return fail(st.WithContext("committing contract " + r.id));
    }
    UploadCommitResult result;
    result.target = r.target;
    result.snapshot_id = snap->snapshot_id;
    result.commit_id = snap->commit_id;
    result.rows_written = rows;
    result.files = static_cast<int64_t>(part.added.size());
    result.bytes = bytes;
    result.created_dataset = created;
    if (snap->idempotent_replay && !takeover && !CommittedOwnFiles(*catalog_, r, *snap)) {
      // The caller's key names an earlier commit of the dataset (a retried push, say): that
      // snapshot stands for this one, and this contract's staged parts were not used.
      result.rows_written = snap->added_records;
      result.files = snap->added_files;
      result.bytes = snap->added_bytes;
      result.idempotent_replay = true;
      DiscardError(DeleteStaged(catalog_->warehouse(), r.id),
                   "deleting the staged objects of " + r.id);
    }
    Status done = catalog_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, r.id));
      if (!rec || rec->state != ContractState::kCommitting) return Status::OK();
      rec->state = ContractState::kCommitted;
      rec->commit_result = result;
      rec->updated_at_us = NowUs(*catalog_);
      return internal::UpdateRecord(tx, *rec, ContractState::kCommitting).status();
    });
    TARN_RETURN_NOT_OK(done);
    DeleteSamples(catalog_->warehouse(), r);  // a commit without parts still kept them
    return result;
  });
}

// ---- abandon and expiry ----

Status ContractService::Abandon(std::string_view id) {
  return AuditedLocally("contract.abandon", id, [&]() -> Status {
    TARN_ASSIGN_OR_RETURN(ContractRecord seen, LoadFresh(*catalog_, id));
    if (seen.state == ContractState::kAbandoned || seen.state == ContractState::kExpired) {
      return Status::OK();
    }
    if (seen.state == ContractState::kCommitted) return AlreadyCommittedError(seen);
    if (seen.state == ContractState::kCommitting) {
      return Status::Of(codes::kCommitInProgress, "contract " + seen.id + " is being committed");
    }
    TARN_RETURN_NOT_OK(catalog_->metastore().RunInTransaction([&](Transaction& tx) -> Status {
      TARN_ASSIGN_OR_RETURN(auto rec, internal::LoadRecord(tx, seen.id));
      if (!rec) return NotFoundError(seen.id);
      if (rec->state == ContractState::kCommitted) return AlreadyCommittedError(*rec);
      if (rec->state == ContractState::kCommitting) {
        return Status::Of(codes::kCommitInProgress, "contract " + seen.id + " is being committed");
      }
      if (rec->state == ContractState::kAbandoned || rec->state == ContractState::kExpired) {
        return Status::OK();
      }
      const ContractState was = rec->state;
      rec->state = ContractState::kAbandoned;
      rec->updated_at_us = NowUs(*catalog_);
      return internal::UpdateRecord(tx, *rec, was).status();
    }));
    return DeleteStaged(catalog_->warehouse(), seen.id);
  });
}

Result<int64_t> ContractService::SweepExpired() {
  std::vector<std::string> ids;
  const int64_t now = NowUs(*catalog_);
  TARN_RETURN_NOT_OK(catalog_->metastore().RunInTransaction(
      [&](Transaction& tx) -> Status {
        TARN_ASSIGN_OR_RETURN(ids, internal::ListDueContracts(tx, now, 1000));
        return Status::OK();
      },
      TxMode::kReadOnly));
  int64_t expired = 0;
  for (const auto& id : ids) {
    auto r = LoadFresh(*catalog_, id);  // expires it (and deletes its objects) when due
    if (r.ok() && r->state == ContractState::kExpired && r->updated_at_us >= now) ++expired;
  }
  return expired;
}

}  // namespace tarn::upload
