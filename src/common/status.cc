#include "tarn/status.h"

#include <cstdio>
#include <cstdlib>

namespace tarn {

namespace {
// The one table mapping every error kind to its code name, HTTP status, CLI exit code and
// retryability. Add a kind here and nowhere else.
struct KindInfo {
  ErrorKind kind;
  std::string_view name;
  int http;
  int exit_code;
  bool retryable;
};
constexpr KindInfo kKinds[] = {
    {ErrorKind::kOk, "ok", 200, 0, false},
    {ErrorKind::kInvalidArgument, "invalid_argument", 422, 2, false},
    {ErrorKind::kNotFound, "not_found", 404, 3, false},
    {ErrorKind::kAlreadyExists, "already_exists", 409, 3, false},
    {ErrorKind::kFailedPrecondition, "failed_precondition", 409, 3, false},
    {ErrorKind::kConflict, "conflict", 409, 4, true},
    {ErrorKind::kStale, "stale", 409, 4, false},
    {ErrorKind::kExpired, "expired", 410, 4, false},
    {ErrorKind::kUnauthenticated, "unauthenticated", 401, 5, false},
    {ErrorKind::kPermissionDenied, "permission_denied", 403, 5, false},
    {ErrorKind::kTooLarge, "too_large", 413, 3, false},
    {ErrorKind::kCorruption, "corruption", 422, 3, false},
    {ErrorKind::kUnavailable, "unavailable", 503, 6, true},
    {ErrorKind::kIOError, "io_error", 503, 6, true},
    {ErrorKind::kCancelled, "cancelled", 499, 130, false},
    {ErrorKind::kInternal, "internal", 500, 1, false},
};
const KindInfo& Info(ErrorKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return kKinds[sizeof(kKinds) / sizeof(kKinds[0]) - 1];
}
const std::string kEmpty;
const std::vector<std::pair<std::string, std::string>> kNoFields;
}  // namespace

std::string_view ErrorKindName(ErrorKind kind) { return Info(kind).name; }
int HttpStatusFor(ErrorKind kind) { return Info(kind).http; }
int ExitCodeFor(ErrorKind kind) { return Info(kind).exit_code; }
bool IsRetryable(ErrorKind kind) { return Info(kind).retryable; }

namespace {
// Codes of kind invalid_argument that refuse the data rather than the command line.
bool IsDataRefusal(const Status& status) {
  if (status.kind() != ErrorKind::kInvalidArgument) return false;
  for (const auto& [name, value] : status.fields()) {
    if (name != "code") continue;
    return value == "value_not_castable" || value == "column_undeclared" ||
           value == "column_missing" || value == "sources_disagree" || value == "format_unreadable";
  }
  return false;
}
}  // namespace

int ExitCodeFor(const Status& status) {
  return IsDataRefusal(status) ? 3 : ExitCodeFor(status.kind());
}
int HttpStatusFor(const Status& status) { return HttpStatusFor(status.kind()); }

Status::Status(ErrorKind kind, std::string message) {
  if (kind != ErrorKind::kOk) state_.reset(new State{kind, std::move(message), {}});
}

Status::Status(const Status& other) : state_(other.state_ ? new State(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) state_.reset(other.state_ ? new State(*other.state_) : nullptr);
  return *this;
}

const std::string& Status::message() const { return state_ ? state_->message : kEmpty; }

const std::vector<std::pair<std::string, std::string>>& Status::fields() const {
  return state_ ? state_->fields : kNoFields;
}

Status Status::WithField(std::string field, std::string value) const& {
  Status copy(*this);
  return std::move(copy).WithField(std::move(field), std::move(value));
}

Status Status::WithField(std::string field, std::string value) && {
  if (state_) state_->fields.emplace_back(std::move(field), std::move(value));
  return std::move(*this);
}

Status Status::WithContext(std::string_view context) const {
  if (!state_) return Status();
  Status copy(*this);
  copy.state_->message = std::string(context) + ": " + copy.state_->message;
  return copy;
}

std::string Status::ToString() const {
  if (!state_) return "ok";
  return std::string(ErrorKindName(state_->kind)) + ": " + state_->message;
}

void DieOnBadResultAccess(const Status& status) {
  std::fprintf(stderr, "tarn: value() called on an error Result: %s\n", status.ToString().c_str());
  std::abort();
}

}  // namespace tarn
