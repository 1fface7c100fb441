#include "tarn/status.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace tarn {

namespace {
constexpr bool KindTableIsIndexedByKind() {
  for (size_t i = 0; i < std::size(kKindTable); ++i) {
    if (static_cast<size_t>(kKindTable[i].kind) != i) return false;
  }
  return static_cast<size_t>(ErrorKind::kInternal) + 1 == std::size(kKindTable);
}
static_assert(KindTableIsIndexedByKind(), "kKindTable lists every kind in enum order");

const std::string kEmpty;
const std::vector<std::pair<std::string, std::string>> kNoFields;

struct Registry {
  std::mutex mu;
  std::map<std::string_view, const ErrorCode*> by_name;
};
Registry* NewRegistry() {
  auto* r = new Registry();
  for (const ErrorCode* c :
       {&codes::kInvalidArgument, &codes::kNotFound, &codes::kAlreadyExists,
        &codes::kFailedPrecondition, &codes::kConflict, &codes::kStale, &codes::kExpired,
        &codes::kUnauthenticated, &codes::kPermissionDenied, &codes::kTooLarge, &codes::kCorruption,
        &codes::kUnavailable, &codes::kIOError, &codes::kCancelled, &codes::kInternal}) {
    r->by_name.emplace(c->name, c);
  }
  return r;
}
Registry& TheRegistry() {
  static Registry* r = NewRegistry();  // never destroyed: used during static init and exit
  return *r;
}
}  // namespace

bool ErrorRegistry::Register(const ErrorCode& code) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto [it, inserted] = r.by_name.emplace(code.name, &code);
  if (!inserted && it->second != &code) {
    std::fprintf(stderr, "tarn: error code %.*s is declared twice\n",
                 static_cast<int>(code.name.size()), code.name.data());
    std::abort();
  }
  return true;
}

const ErrorCode* ErrorRegistry::Find(std::string_view name) {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.by_name.find(name);
  return it == r.by_name.end() ? nullptr : it->second;
}

std::vector<const ErrorCode*> ErrorRegistry::All() {
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const ErrorCode*> out;
  out.reserve(r.by_name.size());
  for (const auto& [name, code] : r.by_name) out.push_back(code);
  return out;
}

const ErrorCode* RegisteredCode(const Status& status) {
  if (status.ok()) return nullptr;
  for (const auto& [name, value] : status.fields()) {
    if (name != "code") continue;
    const ErrorCode* code = ErrorRegistry::Find(value);
    return code != nullptr && code->kind == status.kind() ? code : nullptr;
  }
  return nullptr;
}

int ExitCodeFor(const Status& status) {
  const ErrorCode* code = RegisteredCode(status);
  return code ? code->exit_code : ExitCodeFor(status.kind());
}
int HttpStatusFor(const Status& status) {
  const ErrorCode* code = RegisteredCode(status);
  return code ? code->http : HttpStatusFor(status.kind());
}
bool IsRetryable(const Status& status) {
  const ErrorCode* code = RegisteredCode(status);
  return code ? code->retryable : IsRetryable(status.kind());
}

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

bool Status::Is(const ErrorCode& code) const {
  if (!state_) return false;
  for (const auto& [name, value] : state_->fields) {
    if (name == "code") return value == code.name;
  }
  return false;
}

std::string Status::code() const {
  if (state_) {
    for (const auto& [name, value] : state_->fields) {
      if (name == "code") return value;
    }
  }
  return std::string(ErrorKindName(kind()));
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
