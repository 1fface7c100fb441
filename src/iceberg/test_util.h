// Test-only helpers of the iceberg suites.
#pragma once

#include <cstdint>
#include <string>

#include "common/io.h"

namespace tarn::iceberg {

// A sink whose bytes outlive it (the writers own and destroy theirs).
class StringSink : public OutputStream {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  Status Write(const uint8_t* data, size_t n) override {
    out_->append(reinterpret_cast<const char*>(data), n);
    return Status::OK();
  }
  uint64_t Tell() const override { return out_->size(); }
  Status Close() override { return Status::OK(); }

 private:
  std::string* out_;
};

}  // namespace tarn::iceberg
