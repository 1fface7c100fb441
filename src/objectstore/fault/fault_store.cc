#include "objectstore/fault/fault_store.h"

#include <thread>
#include <utility>

namespace tarn {

namespace {

class FaultyFile : public RandomAccessFile {
 public:
  FaultyFile(FaultInjectingObjectStore* store, std::shared_ptr<RandomAccessFile> base)
      : store_(store), base_(std::move(base)) {}
  uint64_t Size() const override { return base_->Size(); }
  const std::string& name() const override { return base_->name(); }
  Status ReadAt(uint64_t offset, size_t n, uint8_t* out) const override {
    TARN_RETURN_NOT_OK(store_->Enter(ObjectOp::kReadAt));
    TARN_RETURN_NOT_OK(store_->ChargeRead(n));
    return base_->ReadAt(offset, n, out);
  }

 private:
  FaultInjectingObjectStore* store_;
  std::shared_ptr<RandomAccessFile> base_;
};

class FaultyWriter : public OutputStream {
 public:
  FaultyWriter(FaultInjectingObjectStore* store, std::unique_ptr<OutputStream> base)
      : store_(store), base_(std::move(base)) {}
  Status Write(const uint8_t* data, size_t n) override {
    if (!failed_.ok()) return failed_;
    Status st = store_->Enter(ObjectOp::kWrite);
    if (st.ok()) st = store_->ChargeWrite(n);
    if (!st.ok()) {
      failed_ = st;
      return st;
    }
    return base_->Write(data, n);
  }
  uint64_t Tell() const override { return base_->Tell(); }
  Status Close() override {
    if (!failed_.ok()) return failed_;
    Status st = store_->Enter(ObjectOp::kClose);
    if (!st.ok()) {
      failed_ = st;  // the base writer is destroyed unclosed: nothing becomes visible
      return st;
    }
    return base_->Close();
  }

 private:
  FaultInjectingObjectStore* store_;
  std::unique_ptr<OutputStream> base_;
  Status failed_;
};

}  // namespace

std::string_view ObjectOpName(ObjectOp op) {
  switch (op) {
    case ObjectOp::kHead:
      return "head";
    case ObjectOp::kGet:
      return "get";
    case ObjectOp::kOpenRead:
      return "open_read";
    case ObjectOp::kReadAt:
      return "read_at";
    case ObjectOp::kPut:
      return "put";
    case ObjectOp::kOpenWrite:
      return "open_write";
    case ObjectOp::kWrite:
      return "write";
    case ObjectOp::kClose:
      return "close";
    case ObjectOp::kList:
      return "list";
    case ObjectOp::kDelete:
      return "delete";
    case ObjectOp::kDeleteMany:
      return "delete_many";
  }
  return "?";
}

FaultInjectingObjectStore::FaultInjectingObjectStore(std::shared_ptr<ObjectStore> base)
    : base_(std::move(base)) {}

void FaultInjectingObjectStore::FailNthCall(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  nth_remaining_ = n;
  nth_any_op_ = true;
  nth_error_ = std::move(error);
}

void FaultInjectingObjectStore::FailNthCall(uint64_t n, ObjectOp op, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  nth_remaining_ = n;
  nth_any_op_ = false;
  nth_op_ = op;
  nth_error_ = std::move(error);
}

void FaultInjectingObjectStore::FailAll(ObjectOp op, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_all_[static_cast<int>(op)] = true;
  fail_all_error_[static_cast<int>(op)] = std::move(error);
}

void FaultInjectingObjectStore::FailWritesAfterBytes(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  write_limit_set_ = true;
  write_budget_ = n;
  write_error_ = std::move(error);
}

void FaultInjectingObjectStore::FailReadsAfterBytes(uint64_t n, Status error) {
  std::lock_guard<std::mutex> lock(mu_);
  read_limit_set_ = true;
  read_budget_ = n;
  read_error_ = std::move(error);
}

void FaultInjectingObjectStore::SetDelay(std::chrono::microseconds delay) {
  std::lock_guard<std::mutex> lock(mu_);
  delay_ = delay;
}

void FaultInjectingObjectStore::Reset() {
  std::lock_guard<std::mutex> lock(mu_);
  nth_remaining_ = 0;
  for (bool& f : fail_all_) f = false;
  write_limit_set_ = false;
  read_limit_set_ = false;
  delay_ = std::chrono::microseconds(0);
}

uint64_t FaultInjectingObjectStore::calls(ObjectOp op) const {
  return op_calls_[static_cast<int>(op)].load();
}

Status FaultInjectingObjectStore::Enter(ObjectOp op) {
  calls_.fetch_add(1);
  op_calls_[static_cast<int>(op)].fetch_add(1);
  std::chrono::microseconds delay;
  Status error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    delay = delay_;
    if (fail_all_[static_cast<int>(op)]) {
      error = fail_all_error_[static_cast<int>(op)];
    } else if (nth_remaining_ > 0 && (nth_any_op_ || nth_op_ == op)) {
      if (--nth_remaining_ == 0) error = nth_error_;
    }
  }
  if (delay.count() > 0) std::this_thread::sleep_for(delay);
  if (!error.ok()) {
    faults_.fetch_add(1);
    return error.WithContext(std::string(ObjectOpName(op)));
  }
  return Status::OK();
}

Status FaultInjectingObjectStore::ChargeWrite(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!write_limit_set_) return Status::OK();
  if (n > write_budget_) {
    write_budget_ = 0;
    faults_.fetch_add(1);
    return write_error_;
  }
  write_budget_ -= n;
  return Status::OK();
}

Status FaultInjectingObjectStore::ChargeRead(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!read_limit_set_) return Status::OK();
  if (n > read_budget_) {
    read_budget_ = 0;
    faults_.fetch_add(1);
    return read_error_;
  }
  read_budget_ -= n;
  return Status::OK();
}

Result<ObjectInfo> FaultInjectingObjectStore::Head(std::string_view key) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kHead));
  return base_->Head(key);
}

Result<std::string> FaultInjectingObjectStore::Get(std::string_view key) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kGet));
  TARN_ASSIGN_OR_RETURN(std::string bytes, base_->Get(key));
  TARN_RETURN_NOT_OK(ChargeRead(bytes.size()));
  return bytes;
}

Result<std::shared_ptr<RandomAccessFile>> FaultInjectingObjectStore::OpenRead(
    std::string_view key) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kOpenRead));
  TARN_ASSIGN_OR_RETURN(std::shared_ptr<RandomAccessFile> file, base_->OpenRead(key));
  return std::shared_ptr<RandomAccessFile>(new FaultyFile(this, std::move(file)));
}

Status FaultInjectingObjectStore::Put(std::string_view key, std::string_view data,
                                      const WriteOptions& options) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kPut));
  TARN_RETURN_NOT_OK(ChargeWrite(data.size()));
  return base_->Put(key, data, options);
}

Result<std::unique_ptr<OutputStream>> FaultInjectingObjectStore::OpenWrite(
    std::string_view key, const WriteOptions& options) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kOpenWrite));
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<OutputStream> out, base_->OpenWrite(key, options));
  return std::unique_ptr<OutputStream>(new FaultyWriter(this, std::move(out)));
}

Result<ListPage> FaultInjectingObjectStore::List(std::string_view prefix, std::string_view token,
                                                 size_t max_keys) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kList));
  return base_->List(prefix, token, max_keys);
}

Status FaultInjectingObjectStore::Delete(std::string_view key) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kDelete));
  return base_->Delete(key);
}

Status FaultInjectingObjectStore::DeleteMany(const std::vector<std::string>& keys) {
  TARN_RETURN_NOT_OK(Enter(ObjectOp::kDeleteMany));
  return base_->DeleteMany(keys);
}

}  // namespace tarn
