#include "avro/container.h"

#include <gtest/gtest.h>

#include <random>

#include "avro/test_util.h"

namespace tarn::avro {
namespace {

using testing::Arr;
using testing::Int;
using testing::Long;
using testing::MustParse;
using testing::Rec;
using testing::Str;

constexpr std::string_view kSchema = R"({"type": "record", "name": "entry", "fields": [
  {"name": "status", "type": "int", "field-id": 0},
  {"name": "path", "type": "string", "field-id": 100},
  {"name": "size", "type": ["null", "long"], "field-id": 101},
  {"name": "offsets", "type": {"type": "array", "items": "long", "element-id": 133},
   "field-id": 132},
  {"name": "raw", "type": "bytes", "field-id": 7}]})";

Value Entry(int i) {
  return Rec({Int(i % 3), Str("s3://bucket/data/file-" + std::to_string(i) + ".parquet"),
              i % 5 == 0 ? MakeUnion(0, Value()) : MakeUnion(1, Long(int64_t{1} << (i % 40))),
              Arr({Long(4), Long(i * 100)}), Value(Bytes{std::string(i % 7, '\0')})});
}

SyncMarker FixedSync() {
  SyncMarker s;
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(0xA0 + i);
  return s;
}

std::string Sync() {
  SyncMarker s = FixedSync();
  return std::string(s.begin(), s.end());
}

// Writes `n` entries; returns the file's bytes.
std::string Write(int n, WriterOptions options) {
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem = sink.get();
  auto w = ContainerWriter::Open(std::move(sink), MustParse(kSchema), std::move(options));
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  for (int i = 0; i < n; ++i) EXPECT_TRUE((*w)->Append(Entry(i)).ok());
  EXPECT_TRUE((*w)->Close().ok());
  EXPECT_EQ((*w)->objects(), static_cast<uint64_t>(n));
  EXPECT_TRUE(mem->closed());
  return mem->bytes();
}

size_t CountSyncs(const std::string& bytes, const SyncMarker& sync) {
  std::string marker(sync.begin(), sync.end());
  size_t count = 0;
  for (size_t at = bytes.find(marker); at != std::string::npos; at = bytes.find(marker, at + 1)) {
    ++count;
  }
  return count;
}

TEST(AvroContainer, RoundTripsWithEachCodecInSeveralBlocks) {
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    WriterOptions options;
    options.codec = codec;
    options.block_bytes = 2000;
    options.sync = FixedSync();
    options.metadata = {
        {"format-version", "2"}, {"partition-spec", "[]"}, {"bin", std::string("\x01\x00", 2)}};
    std::string bytes = Write(1000, options);
    EXPECT_GT(CountSyncs(bytes, FixedSync()), 10u) << "header + many blocks";
    ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes));
    EXPECT_EQ(r->codec(), codec);
    EXPECT_EQ(r->sync(), FixedSync());
    EXPECT_EQ(r->FindMetadata("avro.codec"), CodecName(codec));
    EXPECT_EQ(r->FindMetadata("format-version"), "2");
    EXPECT_EQ(r->FindMetadata("partition-spec"), "[]");
    EXPECT_EQ(r->FindMetadata("bin"), std::string_view("\x01\x00", 2));
    EXPECT_EQ(r->FindMetadata("nope"), std::nullopt);
    ASSERT_EQ(r->metadata().size(), 5u);
    EXPECT_EQ(r->metadata()[0].first, "avro.schema");
    EXPECT_EQ(r->schema().ToJson(), MustParse(kSchema).ToJson());  // field ids kept
    EXPECT_EQ(IntAttribute(r->schema().root().fields[3].attributes, "field-id"), 132);
    ASSERT_OK_AND_ASSIGN(std::vector<Value> values, r->ReadAll());
    ASSERT_EQ(values.size(), 1000u);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(values[i], Entry(i)) << i;
    Value after;
    ASSERT_OK_AND_ASSIGN(bool more, r->Next(&after));
    EXPECT_FALSE(more);
  }
}

TEST(AvroContainer, DeflateIsSmallerAndSameBlocksReadTheSame) {
  WriterOptions plain;
  plain.sync = FixedSync();
  WriterOptions deflate = plain;
  deflate.codec = Codec::kDeflate;
  std::string a = Write(500, plain), b = Write(500, deflate);
  EXPECT_LT(b.size() * 3, a.size());
  ASSERT_OK_AND_ASSIGN(auto ra, ContainerReader::Open(a));
  ASSERT_OK_AND_ASSIGN(auto rb, ContainerReader::Open(b));
  ASSERT_OK_AND_ASSIGN(auto va, ra->ReadAll());
  ASSERT_OK_AND_ASSIGN(auto vb, rb->ReadAll());
  EXPECT_EQ(va, vb);
}

// The header, byte by byte: magic, a map of 2 pairs, the end of the map, the sync marker; then
// no block for no objects.
TEST(AvroContainer, HeaderBytes) {
  WriterOptions options;
  options.sync = FixedSync();
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem = sink.get();
  ASSERT_OK_AND_ASSIGN(auto w,
                       ContainerWriter::Open(std::move(sink), MustParse("\"int\""), options));
  ASSERT_OK(w->Close());
  std::string want("Obj\x01", 4);
  want += '\x04';  // 2 pairs
  want += '\x16' + std::string("avro.schema") + '\x0a' + "\"int\"";
  want += '\x14' + std::string("avro.codec") + '\x08' + "null";
  want += '\x00';
  want += Sync();
  EXPECT_EQ(mem->bytes(), want);
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(mem->bytes()));
  ASSERT_OK_AND_ASSIGN(auto values, r->ReadAll());
  EXPECT_TRUE(values.empty());

  // One int, 42: a block of count 1, size 1, 0x54, sync.
  auto sink2 = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem2 = sink2.get();
  ASSERT_OK_AND_ASSIGN(auto w2,
                       ContainerWriter::Open(std::move(sink2), MustParse("\"int\""), options));
  ASSERT_OK(w2->Append(Int(42)));
  ASSERT_OK(w2->Close());
  EXPECT_EQ(mem2->bytes(), want + std::string("\x02\x02\x54") + Sync());
}

TEST(AvroContainer, WriterRefusals) {
  WriterOptions reserved;
  reserved.metadata = {{"avro.codec", "x"}};
  EXPECT_EQ(
      ContainerWriter::Open(std::make_unique<MemoryOutputStream>(), MustParse(kSchema), reserved)
          .status()
          .kind(),
      ErrorKind::kInvalidArgument);
  WriterOptions twice;
  twice.metadata = {{"a", "1"}, {"a", "2"}};
  EXPECT_EQ(ContainerWriter::Open(std::make_unique<MemoryOutputStream>(), MustParse(kSchema), twice)
                .status()
                .kind(),
            ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto w, ContainerWriter::Open(std::make_unique<MemoryOutputStream>(),
                                                     MustParse(kSchema), WriterOptions{}));
  EXPECT_EQ(w->Append(Int(1)).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(w->objects(), 0u);
  ASSERT_OK(w->Append(Entry(1)));
  ASSERT_OK(w->Close());
  EXPECT_EQ(w->Append(Entry(2)).kind(), ErrorKind::kFailedPrecondition);
}

// Random sync markers differ from file to file.
TEST(AvroContainer, RandomSyncMarkers) {
  std::string a = Write(1, WriterOptions{}), b = Write(1, WriterOptions{});
  ASSERT_OK_AND_ASSIGN(auto ra, ContainerReader::Open(a));
  ASSERT_OK_AND_ASSIGN(auto rb, ContainerReader::Open(b));
  EXPECT_NE(ra->sync(), rb->sync());
}

Status ReadEverything(std::string bytes, ReaderOptions options = {}) {
  TARN_ASSIGN_OR_RETURN(auto r, ContainerReader::Open(std::move(bytes), options));
  TARN_ASSIGN_OR_RETURN(auto values, r->ReadAll());
  return Status::OK();
}

void ExpectCorrupt(const std::string& bytes, std::string_view what) {
  Status st = ReadEverything(bytes);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.kind(), ErrorKind::kCorruption) << st.ToString();
  EXPECT_NE(st.message().find(what), std::string::npos) << st.ToString();
}

TEST(AvroContainer, MalformedFilesAreCorruption) {
  WriterOptions options;
  options.block_bytes = 300;
  options.sync = FixedSync();
  const std::string good = Write(50, options);
  ASSERT_OK(ReadEverything(good));

  ExpectCorrupt("", "magic");
  ExpectCorrupt("Obj\x02" + good.substr(4), "magic");
  ExpectCorrupt("PAR1" + good.substr(4), "magic");

  // The last block's sync marker altered.
  std::string bad_sync = good;
  bad_sync[bad_sync.size() - 3] ^= 0x01;
  ExpectCorrupt(bad_sync, "sync marker");

  // Every truncation inside the data is an error (a cut exactly between blocks is a shorter
  // valid file).
  int cut_valid = 0;
  for (size_t n = 0; n < good.size(); ++n) {
    Status st = ReadEverything(good.substr(0, n));
    if (st.ok()) {
      ++cut_valid;
      continue;
    }
    ASSERT_EQ(st.kind(), ErrorKind::kCorruption) << n << ": " << st.ToString();
  }
  EXPECT_EQ(cut_valid, static_cast<int>(CountSyncs(good, FixedSync())) - 1);  // not the last

  // Every single-byte change either reads or fails cleanly.
  for (size_t at = 0; at < good.size(); ++at) {
    std::string flipped = good;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x5A);
    Status st = ReadEverything(flipped);
    if (!st.ok()) {
      ASSERT_TRUE(st.kind() == ErrorKind::kCorruption ||
                  st.kind() == ErrorKind::kFailedPrecondition)  // e.g. "avro.codec" -> other
          << at << ": " << st.ToString();
    }
  }
}

// Builds a file by hand: magic, the given metadata pairs, sync, then `blocks` as is.
std::string HandMade(const std::vector<std::pair<std::string, std::string>>& meta,
                     const std::string& blocks) {
  ByteBuffer b{'O', 'b', 'j', 1};
  AppendLong(static_cast<int64_t>(meta.size()), &b);
  for (const auto& [k, v] : meta) {
    AppendBytes(k, &b);
    AppendBytes(v, &b);
  }
  AppendLong(0, &b);
  SyncMarker s = FixedSync();
  b.insert(b.end(), s.begin(), s.end());
  return std::string(b.begin(), b.end()) + blocks;
}

TEST(AvroContainer, HandMadeFiles) {
  // No codec entry means null; a block of two ints.
  std::string two = HandMade({{"avro.schema", "\"int\""}}, "\x04\x04\x02\x04" + Sync());
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(two));
  EXPECT_EQ(r->codec(), Codec::kNull);
  ASSERT_OK_AND_ASSIGN(auto values, r->ReadAll());
  EXPECT_EQ(values, (std::vector<Value>{Int(1), Int(2)}));

  // The metadata map in a negative-count block (count -1, then its byte size).
  {
    ByteBuffer b{'O', 'b', 'j', 1};
    ByteBuffer pair;
    AppendBytes("avro.schema", &pair);
    AppendBytes("\"long\"", &pair);
    AppendLong(-1, &b);
    AppendLong(static_cast<int64_t>(pair.size()), &b);
    b.insert(b.end(), pair.begin(), pair.end());
    AppendLong(0, &b);
    std::string file = std::string(b.begin(), b.end()) + Sync() + "\x02\x02\x54" + Sync();
    ASSERT_OK_AND_ASSIGN(auto r2, ContainerReader::Open(file));
    ASSERT_OK_AND_ASSIGN(auto v2, r2->ReadAll());
    EXPECT_EQ(v2, (std::vector<Value>{Long(42)}));
  }

  ExpectCorrupt(HandMade({{"avro.codec", "null"}}, ""), "no avro.schema");
  ExpectCorrupt(HandMade({{"avro.schema", "\"integer\""}}, ""), "avro.schema");
  Status snappy =
      ReadEverything(HandMade({{"avro.schema", "\"int\""}, {"avro.codec", "snappy"}}, ""));
  EXPECT_EQ(snappy.kind(), ErrorKind::kFailedPrecondition) << snappy.ToString();
  // Objects left over in a block, or fewer than its count.
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x02\x04\x02\x04" + Sync()),
                "bytes after its objects");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x06\x04\x02\x04" + Sync()), "objects in");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x04\x04\x02\x80" + Sync()),
                "truncated int");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x01\x02\x02" + Sync()),
                "negative object count");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x02\x01\x02" + Sync()),
                "negative byte size");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, "\x02\x7e\x02" + Sync()), "truncated");
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}}, std::string("\x00\x02\x02", 3) + Sync()),
                "no objects");
  // Garbage in a deflate block.
  ExpectCorrupt(HandMade({{"avro.schema", "\"int\""}, {"avro.codec", "deflate"}},
                         "\x02\x08\xff\xff\xff\xff" + Sync()),
                "deflate");
  // Nulls encode as nothing: their count is bounded all the same.
  ExpectCorrupt(
      HandMade({{"avro.schema", "\"null\""}}, std::string("\xfe\xff\xff\xff\x0f\x00", 6) + Sync()),
      "empty objects");
}

TEST(AvroContainer, InflatedBlocksAreBounded) {
  WriterOptions options;
  options.codec = Codec::kDeflate;
  options.block_bytes = 1 << 20;
  auto sink = std::make_unique<MemoryOutputStream>();
  MemoryOutputStream* mem = sink.get();
  ASSERT_OK_AND_ASSIGN(auto w,
                       ContainerWriter::Open(std::move(sink), MustParse("\"string\""), options));
  ASSERT_OK(w->Append(Str(std::string(100000, 'x'))));
  ASSERT_OK(w->Close());
  ReaderOptions small;
  small.max_block_bytes = 50000;
  EXPECT_EQ(ReadEverything(mem->bytes(), small).kind(), ErrorKind::kTooLarge);
  EXPECT_TRUE(ReadEverything(mem->bytes()).ok());
}

TEST(AvroContainer, OpensARandomAccessFile) {
  std::string bytes = Write(10, WriterOptions{});
  auto file = MemoryFile(bytes, "m.avro");
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(*file));
  ASSERT_OK_AND_ASSIGN(auto values, r->ReadAll());
  EXPECT_EQ(values.size(), 10u);
  Status st = ContainerReader::Open(*MemoryFile("nope", "bad.avro")).status();
  EXPECT_NE(st.message().find("bad.avro"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace tarn::avro
