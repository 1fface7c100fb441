// FaultInjectingObjectStore: wraps any ObjectStore and makes chosen calls fail or slow down, so
// the failure paths of every layer above (commits, uploads, readers) can be tested.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "objectstore/object_store.h"

namespace tarn {

// Operations as counted and matched by the fault rules.
enum class ObjectOp : unsigned char {
  kHead,
  kGet,
  kOpenRead,
  kReadAt,  // RandomAccessFile::ReadAt of a reader from OpenRead
  kPut,
  kOpenWrite,
  kWrite,  // OutputStream::Write of a writer from OpenWrite
  kClose,  // OutputStream::Close
  kList,
  kDelete,
  kDeleteMany,
};
std::string_view ObjectOpName(ObjectOp op);

// Every call (store methods and the methods of the readers and writers it hands out) is counted;
// the rules below turn some into errors. A failed call has no effect on the wrapped store (a
// failed Close leaves nothing visible; a failed Write poisons its writer, whose destruction then
// discards it). Thread-safe; rules may be changed while calls run. The readers and writers it
// hands out must not outlive it.
class FaultInjectingObjectStore : public ObjectStore {
 public:
  explicit FaultInjectingObjectStore(std::shared_ptr<ObjectStore> base);

  // The n-th call from now (1 = the next), counting only calls of `op` if given, fails with
  // `error`. One rule at a time; a new call replaces it.
  void FailNthCall(uint64_t n, Status error = Status::Unavailable("injected fault"));
  void FailNthCall(uint64_t n, ObjectOp op, Status error = Status::Unavailable("injected fault"));
  // Every call of `op` fails (until Reset).
  void FailAll(ObjectOp op, Status error = Status::Unavailable("injected fault"));
  // Writers fail once `n` more bytes have been written through them in total (the Write that
  // crosses the limit fails and writes nothing).
  void FailWritesAfterBytes(uint64_t n, Status error = Status::IOError("injected write fault"));
  // Readers (ReadAt, Get) fail once `n` more bytes have been read in total.
  void FailReadsAfterBytes(uint64_t n, Status error = Status::IOError("injected read fault"));
  // Every call sleeps this long first.
  void SetDelay(std::chrono::microseconds delay);
  // Removes every rule (counters keep counting).
  void Reset();

  uint64_t calls() const { return calls_.load(); }
  uint64_t calls(ObjectOp op) const;
  uint64_t faults_injected() const { return faults_.load(); }
  ObjectStore& base() { return *base_; }

  const std::string& uri() const override { return base_->uri(); }
  Result<ObjectInfo> Head(std::string_view key) override;
  Result<std::string> Get(std::string_view key) override;
  Result<std::shared_ptr<RandomAccessFile>> OpenRead(std::string_view key) override;
  Status Put(std::string_view key, std::string_view data, const WriteOptions& options) override;
  using ObjectStore::Put;
  Result<std::unique_ptr<OutputStream>> OpenWrite(std::string_view key,
                                                  const WriteOptions& options) override;
  using ObjectStore::OpenWrite;
  Result<ListPage> List(std::string_view prefix, std::string_view token, size_t max_keys) override;
  Status Delete(std::string_view key) override;
  Status DeleteMany(const std::vector<std::string>& keys) override;

  // For the wrapping streams: counts a call and returns the injected error, if any.
  Status Enter(ObjectOp op);
  // Accounts `n` bytes against a byte limit; the error if the limit is crossed.
  Status ChargeWrite(uint64_t n);
  Status ChargeRead(uint64_t n);

 private:
  static constexpr int kOps = static_cast<int>(ObjectOp::kDeleteMany) + 1;
  std::shared_ptr<ObjectStore> base_;
  std::atomic<uint64_t> calls_{0};
  std::atomic<uint64_t> faults_{0};
  std::atomic<uint64_t> op_calls_[kOps] = {};

  std::mutex mu_;
  // FailNthCall: remaining calls before the fault (0 = no rule).
  uint64_t nth_remaining_ = 0;
  bool nth_any_op_ = true;
  ObjectOp nth_op_ = ObjectOp::kHead;
  Status nth_error_;
  bool fail_all_[kOps] = {};
  Status fail_all_error_[kOps];
  bool write_limit_set_ = false;
  uint64_t write_budget_ = 0;
  Status write_error_;
  bool read_limit_set_ = false;
  uint64_t read_budget_ = 0;
  Status read_error_;
  std::chrono::microseconds delay_{0};
};

}  // namespace tarn
