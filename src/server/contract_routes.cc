// The routes of the upload service (docs/design/upload.md "HTTP"): /v1/contracts over the
// server's upload::ContractService. Each route checks the caller's role against the contract's
// target (403 not_authorized), then calls the service as that caller.
#include <algorithm>
#include <cctype>
#include <optional>
#include <thread>

#include "api/contract_wire.h"
#include "api/error_codes.h"
#include "catalog/catalog.h"
#include "common/bounded_queue.h"
#include "common/discard.h"
#include "sdk/upload_error_codes.h"
#include "server/error_codes.h"
#include "server/server_internal.h"
#include "upload/contract_service.h"

namespace tarn::server::internal {

namespace {

using api::Json;

// A refusal of the auth policy re-coded as the upload service's not_authorized (its kind and
// fields stay).
Status NotAuthorized(const Status& st) {
  Status out(st.kind(), st.message());
  for (const auto& [k, v] : st.fields()) {
    if (k != "code") out = std::move(out).WithField(k, v);
  }
  return std::move(out).WithCode(codes::kNotAuthorized);
}

Status AuthorizeTarget(Call& c, Role role, const DatasetName& name) {
  Status st =
      auth::Authorize(c.principal(), role, name.workspace, name.collection + "." + name.dataset);
  return st.ok() ? st : NotAuthorized(st);
}

// The target of the path's contract, once the caller holds `role` on it. Names the audit rows
// after it (the contract id until it is known).
Result<DatasetName> AuthorizeContract(Call& c, Role role) {
  const std::string& id = c.Param("id");
  bool audited = !c.audit_entries().empty();
  if (audited) c.audit_entries()[0].target = id;
  TARN_ASSIGN_OR_RETURN(std::string target, c.uploads().ContractTarget(id));
  TARN_ASSIGN_OR_RETURN(DatasetName name, ParseDatasetName(target));
  if (audited) {
    c.audit_entries()[0].target = name.ToString();
    c.audit_entries()[0].workspace = name.workspace;
  }
  // A caller who may not even read the target learns nothing of it from the refusal: not its
  // name, nor its workspace (issue 14); one who may read it is told which role it lacks.
  if (!auth::MayAccess(c.principal(), Role::kReader, name.workspace,
                       name.collection + "." + name.dataset)) {
    return Status::Of(codes::kNotAuthorized,
                      "this token may not use contract '" + id.substr(0, 100) + "'")
        .WithField("needed_role", std::string(RoleName(role)))
        .WithField("contract_id", id.substr(0, 100));
  }
  TARN_RETURN_NOT_OK(AuthorizeTarget(c, role, name));
  return name;
}

// The error of a codec call on a body, as is (its field pointer is already the body's).
template <typename T>
Result<T> FromBody(Call& c, Result<T> (*decode)(const Json&)) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBody());
  return decode(body);
}

void AuditContract(Call& c, const std::string& id, Json extra = Json::object()) {
  extra["contract_id"] = id;
  c.set_audit_detail(api::Dump(extra));
}

Status ReplyContract(Call& c, Result<Contract> r, int http_status = 200) {
  TARN_RETURN_NOT_OK(r.status());
  AuditContract(c, r->id, Json{{"state", std::string(ContractStateName(r->state))}});
  c.ReplyJson(api::ToJson(*r), http_status);
  return Status::OK();
}

// ---- the body of a part ----

// Bytes of a part buffered between the HTTP thread and the conversion.
constexpr size_t kMaxQueuedPartBytes = 8 << 20;

// The request body of a part, read by a thread of its own (the HTTP library pushes bytes) into a
// bounded queue that the conversion pulls from, so memory stays bounded whatever the size.
class BodyPump {
 public:
  BodyPump(Call& c, int64_t limit) : call_(c), limit_(limit), queue_(kMaxQueuedPartBytes) {
    thread_ = std::thread([this] { Run(); });
  }
  ~BodyPump() { DiscardError(Stop(), "reading a part body"); }  // it no longer matters

  // Up to `n` bytes: fewer only at the end of the body. A body that failed (too large, cut) is
  // its error.
  Result<size_t> Read(uint8_t* out, size_t n) {
    size_t got = 0;
    while (got < n) {
      if (front_offset_ == front_.size()) {
        TARN_ASSIGN_OR_RETURN(std::optional<std::string> next, queue_.Pop());
        if (!next) break;  // the end of the body
        front_ = std::move(*next);
        front_offset_ = 0;
        continue;
      }
      size_t take = std::min(n - got, front_.size() - front_offset_);
      std::copy_n(front_.data() + front_offset_, take, out + got);
      got += take;
      front_offset_ += take;
    }
    return got;
  }

  // Stops queueing and waits for the reader, which reads the rest of the body and drops it (up to
  // the body limit): a client sends the whole body before it reads the answer, so this is what
  // lets it see the write's error (and a body over the limit still be 413). Returns how the body
  // ended: OK when read to its end.
  Status Stop() {
    queue_.Cancel();
    if (thread_.joinable()) thread_.join();
    return final_;  // written by the reader before it ended
  }

 private:
  void Run() {
    Status st;
    try {
      st = call_.ReadBody(limit_, [this](std::string_view bytes) { return Push(bytes); });
    } catch (const std::exception& e) {  // this thread must not end the process
      st = Status::Internal(std::string("reading the part body: ") + e.what());
    }
    final_ = st;
    queue_.Finish(std::move(st));
  }

  // After Stop the bytes are dropped: the body is still read to its end.
  Status Push(std::string_view bytes) {
    queue_.Push(std::string(bytes), static_cast<int64_t>(bytes.size()));
    return Status::OK();
  }

  Call& call_;
  int64_t limit_;
  BoundedQueue<std::string> queue_;
  std::string front_;  // the chunk being read (the reader's side only)
  size_t front_offset_ = 0;
  Status final_;  // how the body ended; read after the reader thread is joined
  std::thread thread_;
};

class PumpStream final : public formats::InputStream {
 public:
  explicit PumpStream(BodyPump* pump) : pump_(pump) {}
  Result<size_t> Read(uint8_t* out, size_t n) override { return pump_->Read(out, n); }

 private:
  BodyPump* pump_;
};

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

Status InvalidParam(std::string_view name, std::string message) {
  return Status::Of(codes::kInvalidParameter,
                    "query parameter " + std::string(name) + ": " + message)
      .WithField("field", std::string(name));
}

Result<formats::InputCompression> EncodingParam(const std::string& text) {
  std::string e = Lower(text);
  if (e == "none" || e == "identity") return formats::InputCompression::kNone;
  if (e == "gzip" || e == "x-gzip") return formats::InputCompression::kGzip;
  if (e == "zstd") return formats::InputCompression::kZstd;
  if (e == "br" || e == "brotli") return formats::InputCompression::kBrotli;
  if (e == "deflate") return formats::InputCompression::kDeflate;
  return InvalidParam("encoding", "must be none, gzip, zstd, br or deflate");
}

// How the bytes of a part are compressed: a Content-Encoding header (gzip, deflate, br, zstd)
// says it, else the `encoding` parameter, else the name's suffix. The transport never decodes a
// body itself; the conversion decompresses as it streams, so a compressed part is bounded by
// its compressed size on the wire and by the conversion's limits once decoded.
struct PartEncoding {
  std::optional<formats::InputCompression> compression;  // nullopt: the name's suffix
};

Result<PartEncoding> PartEncodingOf(Call& c) {
  PartEncoding out;
  std::optional<formats::InputCompression> param;
  if (auto e = c.Query("encoding")) {
    TARN_ASSIGN_OR_RETURN(param, EncodingParam(*e));
  }
  std::string header = Lower(c.Header("Content-Encoding"));
  if (header.empty() || header == "identity") {
    out.compression = param;
    return out;
  }
  std::optional<formats::InputCompression> sent;
  if (header == "gzip" || header == "x-gzip") sent = formats::InputCompression::kGzip;
  if (header == "deflate") sent = formats::InputCompression::kDeflate;
  if (header == "br") sent = formats::InputCompression::kBrotli;
  if (header == "zstd") sent = formats::InputCompression::kZstd;
  if (!sent) {
    return Status::Of(codes::kUnsupportedMediaType,
                      "Content-Encoding '" + header.substr(0, 64) +
                          "' is not supported (gzip, deflate, br, zstd)");
  }
  if (param && *param != *sent) {
    return InvalidParam("encoding", "disagrees with Content-Encoding: " + header);
  }
  out.compression = sent;
  return out;
}

}  // namespace

Status ValidatePartName(std::string_view name) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("invalid part name '" + std::string(name.substr(0, 64)) +
                                   "': " + why);
  };
  if (name.empty() || name.size() > 255) return bad("it must be 1 to 255 bytes");
  if (name == "." || name == "..") return bad("it must name a file");
  for (unsigned char ch : name) {
    if (ch < 0x20 || ch == 0x7f || ch == '/' || ch == '\\') {
      return bad("control characters, '/' and '\\' are not allowed");
    }
  }
  return Status::OK();
}

Status NegotiateContractRoute(Call& c) {
  TARN_ASSIGN_OR_RETURN(Json body, c.JsonBodyUpTo(c.options().max_negotiate_body_bytes));
  TARN_ASSIGN_OR_RETURN(NegotiateRequest req, api::NegotiateRequestFromJson(body));
  body = Json();  // the samples are held once, in `req`
  c.audit_entries()[0].target = req.target;
  auto name = ParseDatasetName(req.target);
  if (!name.ok()) {
    return Status(name.status().kind(), name.status().message())
        .WithCode(codes::kInvalidIdentifier)
        .WithField("field", "/target");
  }
  c.audit_entries()[0].target = name->ToString();
  c.audit_entries()[0].workspace = name->workspace;
  TARN_RETURN_NOT_OK(AuthorizeTarget(c, Role::kWriter, *name));
  return ReplyContract(c, c.uploads().Negotiate(req), 201);
}

Status GetContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kReader).status());
  TARN_ASSIGN_OR_RETURN(Contract ct, c.uploads().GetContract(c.Param("id")));
  c.ReplyJson(api::ToJson(ct));
  return Status::OK();
}

Status RetypeContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_ASSIGN_OR_RETURN(auto types, FromBody(c, api::RetypeFromJson));
  return ReplyContract(c, c.uploads().Retype(c.Param("id"), types));
}

Status IgnoreContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_ASSIGN_OR_RETURN(auto columns, FromBody(c, api::IgnoreFromJson));
  return ReplyContract(c, c.uploads().Ignore(c.Param("id"), columns));
}

Status AcceptContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_ASSIGN_OR_RETURN(std::string fingerprint, FromBody(c, api::AcceptFromJson));
  return ReplyContract(c, c.uploads().Accept(c.Param("id"), fingerprint));
}

Status WritePartRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_ASSIGN_OR_RETURN(PartEncoding enc, PartEncodingOf(c));
  int64_t size = -1;
  if (auto length = c.content_length()) size = *length;
  std::string content_type = c.Header("Content-Type");
  if (Lower(content_type).rfind("application/octet-stream", 0) == 0) content_type.clear();

  BodyPump pump(c, c.options().max_append_body_bytes);
  auto r =
      c.uploads().WriteStream(c.Param("id"), c.Param("name"), std::make_unique<PumpStream>(&pump),
                              enc.compression, content_type, size);
  // A body that failed (over the limit, cut short) is the answer, whatever the write made of it.
  TARN_RETURN_NOT_OK(pump.Stop());
  TARN_RETURN_NOT_OK(r.status());
  AuditContract(c, r->contract_id,
                Json{{"seq", r->part.seq}, {"name", r->part.name}, {"rows", r->part.rows}});
  c.ReplyJson(api::ToJson(*r));
  return Status::OK();
}

Status CommitContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_ASSIGN_OR_RETURN(CommitRequest req, FromBody(c, api::CommitRequestFromJson));
  if (req.author.empty()) req.author = c.principal().client_id;
  auto r = c.uploads().CommitContract(c.Param("id"), req);
  if (!r.ok()) {
    if (r.status().kind() == ErrorKind::kConflict || r.status().kind() == ErrorKind::kStale) {
      c.metrics().CountConflict();
    }
    return r.status();
  }
  if (!r->idempotent_replay) c.metrics().CountCommits(1);
  AuditContract(c, c.Param("id"),
                Json{{"snapshot_id", r->snapshot_id},
                     {"commit_id", r->commit_id},
                     {"rows", r->rows_written},
                     {"idempotent_replay", r->idempotent_replay}});
  c.ReplyJson(api::ToJson(*r));
  return Status::OK();
}

Status AbandonContractRoute(Call& c) {
  TARN_RETURN_NOT_OK(AuthorizeContract(c, Role::kWriter).status());
  TARN_RETURN_NOT_OK(c.uploads().Abandon(c.Param("id")));
  AuditContract(c, c.Param("id"));
  c.ReplyNoContent();
  return Status::OK();
}

}  // namespace tarn::server::internal
