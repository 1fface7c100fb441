#include "metastore/fault/fault_metastore.h"

#include "metastore/connection_internal.h"

namespace tarn {

void MetastoreFaults::FailNthStatement(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  kind_ = MetastoreFault::kStatement;
  remaining_ = n;
  error_ = std::move(error);
}

void MetastoreFaults::FailNthCommit(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  kind_ = MetastoreFault::kCommit;
  remaining_ = n;
  error_ = std::move(error);
}

void MetastoreFaults::LoseNthCommitReply(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  kind_ = MetastoreFault::kCommitReply;
  remaining_ = n;
  error_ = std::move(error);
}

void MetastoreFaults::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  kind_ = MetastoreFault::kNone;
  remaining_ = 0;
  error_ = Status::OK();
}

Status MetastoreFaults::Retryable(Status error) {
  return metastore_internal::MarkRetryable(std::move(error));
}

Status MetastoreFaults::OnStatement() {
  statements_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  if (kind_ != MetastoreFault::kStatement || remaining_ == 0) return Status::OK();
  if (--remaining_ > 0) return Status::OK();
  kind_ = MetastoreFault::kNone;
  faults_.fetch_add(1);
  return error_;
}

Status MetastoreFaults::OnCommit(bool* commit_first) {
  *commit_first = false;
  commits_.fetch_add(1);
  std::lock_guard<std::mutex> lock(mu_);
  if ((kind_ != MetastoreFault::kCommit && kind_ != MetastoreFault::kCommitReply) ||
      remaining_ == 0) {
    return Status::OK();
  }
  if (--remaining_ > 0) return Status::OK();
  *commit_first = kind_ == MetastoreFault::kCommitReply;
  kind_ = MetastoreFault::kNone;
  faults_.fetch_add(1);
  return error_;
}

}  // namespace tarn
