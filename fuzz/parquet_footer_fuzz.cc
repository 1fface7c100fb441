// Fuzzes the Thrift compact decoders of the Parquet footer (FileMetaData), page headers and the
// page index (ColumnIndex, OffsetIndex) directly, without the file framing around them. Whatever
// decodes must re-encode to bytes that decode again to the same encoding (tarn must be able to read
// every footer it writes).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "parquet/metadata.h"
#include "tarn/buffer.h"

namespace {

void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "parquet_footer_fuzz: invariant violated: %s\n", what);
    std::abort();
  }
}

bool SameBytes(const tarn::ByteBuffer& a, const tarn::ByteBuffer& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace pq = tarn::parquet;
  if (size > (1 << 20)) return -1;

  if (auto md = pq::DecodeFileMetaData(data, size); md.ok()) {
    tarn::ByteBuffer once, twice;
    pq::EncodeFileMetaData(*md, &once);
    auto again = pq::DecodeFileMetaData(once.data(), once.size());
    Require(again.ok(), "a re-encoded FileMetaData does not decode");
    pq::EncodeFileMetaData(*again, &twice);
    Require(SameBytes(once, twice), "FileMetaData encoding is not stable");
  }

  size_t header_len = 0;
  if (auto ph = pq::DecodePageHeader(data, size, &header_len); ph.ok()) {
    Require(header_len <= size, "DecodePageHeader consumed more bytes than it was given");
    tarn::ByteBuffer once, twice;
    pq::EncodePageHeader(*ph, &once);
    size_t len2 = 0;
    auto again = pq::DecodePageHeader(once.data(), once.size(), &len2);
    Require(again.ok(), "a re-encoded PageHeader does not decode");
    Require(len2 == once.size(), "a re-encoded PageHeader decodes to a different length");
    pq::EncodePageHeader(*again, &twice);
    Require(SameBytes(once, twice), "PageHeader encoding is not stable");
  }

  if (auto ci = pq::DecodeColumnIndex(data, size); ci.ok()) {
    tarn::ByteBuffer once, twice;
    pq::EncodeColumnIndex(*ci, &once);
    auto again = pq::DecodeColumnIndex(once.data(), once.size());
    Require(again.ok(), "a re-encoded ColumnIndex does not decode");
    pq::EncodeColumnIndex(*again, &twice);
    Require(SameBytes(once, twice), "ColumnIndex encoding is not stable");
  }
  if (auto oi = pq::DecodeOffsetIndex(data, size); oi.ok()) {
    tarn::ByteBuffer once, twice;
    pq::EncodeOffsetIndex(*oi, &once);
    auto again = pq::DecodeOffsetIndex(once.data(), once.size());
    Require(again.ok(), "a re-encoded OffsetIndex does not decode");
    pq::EncodeOffsetIndex(*again, &twice);
    Require(SameBytes(once, twice), "OffsetIndex encoding is not stable");
  }
  return 0;
}
