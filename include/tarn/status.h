// Status and Result<T>: how every fallible tarn call reports failure.
//
// An OK Status is a null pointer, so success costs nothing. An error carries one ErrorKind,
// a message, and optional named fields (for typed error bodies such as
// {"error": {"code": ..., "column": ...}}). The mapping of each kind to an HTTP status and a
// CLI exit code lives in exactly one place: status.cc.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tarn {

enum class ErrorKind : unsigned char {
  kOk = 0,
  kInvalidArgument,     // bad input from the caller: a malformed name, type, option or value
  kNotFound,            // the named thing does not exist
  kAlreadyExists,       // the named thing exists and the caller asked it not to
  kFailedPrecondition,  // refused: the request is valid but the state forbids it
  kConflict,            // optimistic concurrency lost; retry after re-reading
  kStale,               // the caller acted on a view of the world that has moved
  kExpired,             // the thing existed but is past its retention or lifetime
  kUnauthenticated,     // no valid credential
  kPermissionDenied,    // a valid credential without the right
  kTooLarge,            // a body, file or value over a configured limit
  kCorruption,          // bytes that do not decode: a malformed file, page or footer
  kUnavailable,         // a dependency is down or throttling; retryable
  kIOError,             // local I/O failed
  kCancelled,           // interrupted by the user or a shutdown
  kInternal,            // a bug in tarn
};

// Stable lower_snake name of a kind, used as the error code in JSON bodies.
std::string_view ErrorKindName(ErrorKind kind);
// HTTP status for a kind (never 500 except kInternal).
int HttpStatusFor(ErrorKind kind);
// CLI exit code: 0 ok, 2 usage, 3 refused, 4 stale, 5 denied, 6 unavailable, 130 interrupted,
// 1 internal.
int ExitCodeFor(ErrorKind kind);
// Whether repeating the same request may succeed.
bool IsRetryable(ErrorKind kind);

class Status;
// The same for a whole status: by kind, except the refusals of data (an invalid_argument whose
// code is value_not_castable, column_undeclared, column_missing, sources_disagree or
// format_unreadable) exit 3, not 2 (docs/design/upload.md).
int ExitCodeFor(const Status& status);
int HttpStatusFor(const Status& status);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorKind kind, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return {ErrorKind::kInvalidArgument, std::move(msg)};
  }
  static Status NotFound(std::string msg) { return {ErrorKind::kNotFound, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) {
    return {ErrorKind::kAlreadyExists, std::move(msg)};
  }
  static Status FailedPrecondition(std::string msg) {
    return {ErrorKind::kFailedPrecondition, std::move(msg)};
  }
  static Status Conflict(std::string msg) { return {ErrorKind::kConflict, std::move(msg)}; }
  static Status Stale(std::string msg) { return {ErrorKind::kStale, std::move(msg)}; }
  static Status Expired(std::string msg) { return {ErrorKind::kExpired, std::move(msg)}; }
  static Status Unauthenticated(std::string msg) {
    return {ErrorKind::kUnauthenticated, std::move(msg)};
  }
  static Status PermissionDenied(std::string msg) {
    return {ErrorKind::kPermissionDenied, std::move(msg)};
  }
  static Status TooLarge(std::string msg) { return {ErrorKind::kTooLarge, std::move(msg)}; }
  static Status Corruption(std::string msg) { return {ErrorKind::kCorruption, std::move(msg)}; }
  static Status Unavailable(std::string msg) { return {ErrorKind::kUnavailable, std::move(msg)}; }
  static Status IOError(std::string msg) { return {ErrorKind::kIOError, std::move(msg)}; }
  static Status Cancelled(std::string msg) { return {ErrorKind::kCancelled, std::move(msg)}; }
  static Status Internal(std::string msg) { return {ErrorKind::kInternal, std::move(msg)}; }

  bool ok() const { return state_ == nullptr; }
  ErrorKind kind() const { return state_ ? state_->kind : ErrorKind::kOk; }
  const std::string& message() const;
  // Named fields of a typed error, in insertion order.
  const std::vector<std::pair<std::string, std::string>>& fields() const;
  // Returns a copy with `field`=`value` attached.
  Status WithField(std::string field, std::string value) const&;
  Status WithField(std::string field, std::string value) &&;
  // Returns a copy whose message is "context: message" (same kind and fields).
  Status WithContext(std::string_view context) const;
  // "not_found: message".
  std::string ToString() const;

 private:
  struct State {
    ErrorKind kind;
    std::string message;
    std::vector<std::pair<std::string, std::string>> fields;
  };
  std::unique_ptr<State> state_;
};

// A value or an error. Access to value() on an error is a programmer error (aborts).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status::Internal("Result constructed from an OK status");
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }
  T& value() & {
    Check();
    return *value_;
  }
  const T& value() const& {
    Check();
    return *value_;
  }
  T&& value() && {
    Check();
    return std::move(*value_);
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T ValueOr(T fallback) const& { return ok() ? *value_ : std::move(fallback); }

 private:
  void Check() const;
  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void DieOnBadResultAccess(const Status& status);

template <typename T>
void Result<T>::Check() const {
  if (!status_.ok()) DieOnBadResultAccess(status_);
}

}  // namespace tarn

#define TARN_CONCAT_INNER(a, b) a##b
#define TARN_CONCAT(a, b) TARN_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function if it is not OK.
#define TARN_RETURN_NOT_OK(expr)         \
  do {                                   \
    ::tarn::Status _tarn_st = (expr);    \
    if (!_tarn_st.ok()) return _tarn_st; \
  } while (false)

#define TARN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return std::move(tmp).status();   \
  lhs = std::move(tmp).value()

// `lhs = value of expr`, or return its error from the enclosing function.
#define TARN_ASSIGN_OR_RETURN(lhs, expr) \
  TARN_ASSIGN_OR_RETURN_IMPL(TARN_CONCAT(_tarn_res_, __LINE__), lhs, expr)
