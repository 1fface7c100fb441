// Status and Result<T>: how every fallible tarn call reports failure.
//
// An OK Status is a null pointer, so success costs nothing. An error carries one ErrorKind,
// a message, and optional named fields (for typed error bodies such as
// {"error": {"code": ..., "column": ...}}). The mapping of each kind to an HTTP status and a
// CLI exit code lives in exactly one place: kKindTable below. The "code" field names one
// ErrorCode (below): each module declares its codes in its own error_codes.h and registers them
// in the one ErrorRegistry.
#pragma once

#include <cstddef>
#include <iterator>
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

// The one table of kinds: code name, HTTP status, CLI exit code (0 ok, 2 usage, 3 refused,
// 4 stale, 5 denied, 6 unavailable, 130 interrupted, 1 internal) and whether repeating the
// same request may succeed. Indexed by the kind's value; add a kind here and nowhere else.
struct ErrorKindInfo {
  ErrorKind kind;
  std::string_view name;
  int http;
  int exit_code;
  bool retryable;
};
inline constexpr ErrorKindInfo kKindTable[] = {
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
constexpr const ErrorKindInfo& KindInfo(ErrorKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < std::size(kKindTable) ? kKindTable[i] : kKindTable[std::size(kKindTable) - 1];
}

// Stable lower_snake name of a kind, used as the error code in JSON bodies.
constexpr std::string_view ErrorKindName(ErrorKind kind) { return KindInfo(kind).name; }
// HTTP status for a kind (never 500 except kInternal).
constexpr int HttpStatusFor(ErrorKind kind) { return KindInfo(kind).http; }
// CLI exit code for a kind.
constexpr int ExitCodeFor(ErrorKind kind) { return KindInfo(kind).exit_code; }
// Whether repeating the same request may succeed.
constexpr bool IsRetryable(ErrorKind kind) { return KindInfo(kind).retryable; }

// One error code: the wire string of a Status's "code" field and what it means. Declared
// constexpr by the module that raises it (src/<module>/error_codes.h, with TARN_ERROR_CODE),
// which registers it in ErrorRegistry. HTTP status, exit code and retryability default to the
// kind's; a code overrides them with Http()/Exit(). They apply to a status of the code's own
// kind; a status of another kind that carries the code (a wrapped error) keeps its kind's.
struct ErrorCode {
  std::string_view name;  // the wire string, lower_snake
  ErrorKind kind;
  int http;
  int exit_code;
  bool retryable;
  std::string_view fields;  // the fields it carries besides code and message, space-separated
  bool served;              // a response of `tarn serve` may carry it (docs/openapi.json lists it)

  constexpr ErrorCode(std::string_view name_, ErrorKind kind_, std::string_view fields_ = {})
      : name(name_),
        kind(kind_),
        http(HttpStatusFor(kind_)),
        exit_code(ExitCodeFor(kind_)),
        retryable(IsRetryable(kind_)),
        fields(fields_),
        served(true) {}
  constexpr ErrorCode Http(int status) const {
    ErrorCode c = *this;
    c.http = status;
    return c;
  }
  constexpr ErrorCode Exit(int code) const {
    ErrorCode c = *this;
    c.exit_code = code;
    return c;
  }
  // Never in a response of `tarn serve` (raised by the client, the CLI, or the server's
  // own startup).
  constexpr ErrorCode NotServed() const {
    ErrorCode c = *this;
    c.served = false;
    return c;
  }
};

// Every code of the program, by name. Modules register their codes during static
// initialization (TARN_ERROR_CODE); a binary knows the codes of the modules it links.
class ErrorRegistry {
 public:
  // Adds `code`; a second code of the same name is a programmer error (aborts).
  static bool Register(const ErrorCode& code);
  // The code named `name`, or nullptr.
  static const ErrorCode* Find(std::string_view name);
  // Every registered code, sorted by name.
  static std::vector<const ErrorCode*> All();
};

// The code of each kind's own name: what a status without a "code" field shows as its code
// (ErrorKindName), and the code of errors no narrower code describes. Registered by status.cc.
namespace codes {
inline constexpr ErrorCode kInvalidArgument{"invalid_argument", ErrorKind::kInvalidArgument};
inline constexpr ErrorCode kNotFound{"not_found", ErrorKind::kNotFound};
inline constexpr ErrorCode kAlreadyExists{"already_exists", ErrorKind::kAlreadyExists};
inline constexpr ErrorCode kFailedPrecondition{"failed_precondition",
                                               ErrorKind::kFailedPrecondition};
inline constexpr ErrorCode kConflict{"conflict", ErrorKind::kConflict};
inline constexpr ErrorCode kStale{"stale", ErrorKind::kStale};
inline constexpr ErrorCode kExpired{"expired", ErrorKind::kExpired};
inline constexpr ErrorCode kUnauthenticated{"unauthenticated", ErrorKind::kUnauthenticated};
inline constexpr ErrorCode kPermissionDenied{"permission_denied", ErrorKind::kPermissionDenied,
                                             "needed_role target workspace"};
inline constexpr ErrorCode kTooLarge{"too_large", ErrorKind::kTooLarge, "limit"};
inline constexpr ErrorCode kCorruption{"corruption", ErrorKind::kCorruption};
inline constexpr ErrorCode kUnavailable{"unavailable", ErrorKind::kUnavailable};
inline constexpr ErrorCode kIOError{"io_error", ErrorKind::kIOError};
inline constexpr ErrorCode kCancelled{"cancelled", ErrorKind::kCancelled};
inline constexpr ErrorCode kInternal{"internal", ErrorKind::kInternal, "reference"};
}  // namespace codes

class Status;
// The same for a whole status: its code's (when the code is registered and of the status's
// kind), else its kind's. Data refusals (value_not_castable, ...) exit 3 this way.
int ExitCodeFor(const Status& status);
int HttpStatusFor(const Status& status);
bool IsRetryable(const Status& status);
// The code of a status: its registered "code" field of the status's kind, else nullptr.
const ErrorCode* RegisteredCode(const Status& status);

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
  // A status of `code`'s kind carrying code=`code.name`.
  static Status Of(const ErrorCode& code, std::string msg) {
    return Status(code.kind, std::move(msg)).WithCode(code);
  }

  bool ok() const { return state_ == nullptr; }
  ErrorKind kind() const { return state_ ? state_->kind : ErrorKind::kOk; }
  const std::string& message() const;
  // Named fields of a typed error, in insertion order.
  const std::vector<std::pair<std::string, std::string>>& fields() const;
  // Returns a copy with `field`=`value` attached.
  Status WithField(std::string field, std::string value) const&;
  Status WithField(std::string field, std::string value) &&;
  // Returns a copy with code=`code.name` attached (the kind stays).
  Status WithCode(const ErrorCode& code) const& {
    return WithField("code", std::string(code.name));
  }
  Status WithCode(const ErrorCode& code) && {
    return std::move(*this).WithField("code", std::string(code.name));
  }
  // Whether the "code" field is `code`'s name.
  bool Is(const ErrorCode& code) const;
  // The error's code as clients see it: its "code" field, else its kind's name ("ok" when OK).
  std::string code() const;
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

// Declares the constexpr code `id` (in the enclosing namespace, by convention tarn::codes) and
// registers it: TARN_ERROR_CODE(kPathNotOwned, ErrorCode("path_not_owned",
// ErrorKind::kPermissionDenied, "path"));
#define TARN_ERROR_CODE(id, ...)                       \
  inline constexpr ::tarn::ErrorCode id = __VA_ARGS__; \
  inline const bool id##Registered_ = ::tarn::ErrorRegistry::Register(id)

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
