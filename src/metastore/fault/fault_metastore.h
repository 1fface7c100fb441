// MetastoreFaults: rules that make chosen statements or COMMITs of a Metastore's transactions
// fail, so that the failure paths above it (dataset commits, contract claims) can be tested, as
// objectstore/fault does for the object store. Installed with Metastore::SetFaults; every
// transaction started afterwards runs through it.
//
//   auto faults = std::make_shared<MetastoreFaults>();
//   catalog->metastore().SetFaults(faults);
//   faults->LoseNthCommitReply(1);  // the next COMMIT commits, and its caller gets kUnavailable
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>

#include "tarn/status.h"

namespace tarn {

// What a rule fires on.
enum class MetastoreFault : unsigned char {
  kNone,
  kStatement,   // the n-th statement fails before it reaches the database
  kCommit,      // the n-th COMMIT fails: rolled back, nothing committed
  kCommitReply  // the n-th COMMIT commits, then its reply is lost: the caller gets the error
};

// Counts every statement a transaction runs (Execute, ExecuteDeferred, Query, QueryOne,
// QueryEach; BEGIN, COMMIT and migrations are not statements) and every COMMIT. One rule at a
// time; a new one replaces the last. Thread-safe.
class MetastoreFaults {
 public:
  // The n-th statement from now (1 = the next) fails with `error`, as a database error would:
  // the transaction is aborted and rolls back. An error marked with Retryable() makes
  // RunInTransaction run the callback again, as after a serialization failure.
  void FailNthStatement(uint64_t n, Status error = Status::Unavailable("injected metastore fault"));
  // The n-th COMMIT from now fails with `error` and the transaction rolls back.
  void FailNthCommit(uint64_t n, Status error = Status::Unavailable("injected COMMIT fault"));
  // The n-th COMMIT from now commits; then the caller gets `error` (default: kUnavailable, as
  // for a connection lost after COMMIT was sent), never a retry.
  void LoseNthCommitReply(uint64_t n, Status error = Status::Unavailable(
                                          "injected fault: connection lost after COMMIT"));
  // Removes the rule (counters keep counting).
  void Reset();

  // `error` marked the way the backends mark serialization failures and lock timeouts.
  static Status Retryable(Status error);

  uint64_t statements() const { return statements_.load(); }
  uint64_t commits() const { return commits_.load(); }
  uint64_t faults_injected() const { return faults_.load(); }

  // For the metastore: counts a statement or a COMMIT and returns the rule's error when it
  // fires. OnCommit says whether to commit before returning the error (a lost reply).
  Status OnStatement();
  Status OnCommit(bool* commit_first);

 private:
  std::atomic<uint64_t> statements_{0};
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> faults_{0};
  std::mutex mu_;
  MetastoreFault kind_ = MetastoreFault::kNone;
  uint64_t remaining_ = 0;  // calls of the rule's kind until it fires (1 = the next)
  Status error_;
};

}  // namespace tarn
