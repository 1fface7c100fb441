// Avro object container files: the magic "Obj\x01", a metadata map (avro.schema, avro.codec and
// the writer's own pairs), a 16-byte sync marker, then blocks of objects (count, byte size,
// objects, sync marker). What Iceberg's manifest lists and manifests are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "avro/encoding.h"
#include "avro/schema.h"
#include "avro/value.h"
#include "common/io.h"
#include "tarn/buffer.h"
#include "tarn/status.h"

namespace tarn::avro {

enum class Codec : uint8_t { kNull, kDeflate };
// "null", "deflate".
std::string_view CodecName(Codec codec);
// The codec named `name`; any other (snappy, zstandard, bzip2, xz) is kFailedPrecondition.
Result<Codec> ParseCodec(std::string_view name);

// The metadata pairs of a file, in the order written; values are bytes.
using Metadata = std::vector<std::pair<std::string, std::string>>;

inline constexpr size_t kSyncSize = 16;
using SyncMarker = std::array<uint8_t, kSyncSize>;

struct WriterOptions {
  Codec codec = Codec::kNull;
  int deflate_level = -1;  // zlib's level; < 0: its default (6)
  // A block ends once its encoded (uncompressed) objects reach this many bytes.
  size_t block_bytes = 64 << 10;
  // The caller's pairs (Iceberg: "schema", "partition-spec", "format-version", ...), written
  // after avro.schema and avro.codec. Keys starting "avro." are the spec's and refused.
  Metadata metadata;
  // The sync marker; a random one when not given (tests fix it for repeatable bytes).
  std::optional<SyncMarker> sync;
};

// Writes one container file. Not thread-safe.
class ContainerWriter {
 public:
  // Writes the header to `sink`. kInvalidArgument for a reserved or repeated metadata key or a
  // block_bytes of 0; the sink's error if the write fails.
  static Result<std::unique_ptr<ContainerWriter>> Open(std::unique_ptr<OutputStream> sink,
                                                       Schema schema, WriterOptions options);

  // Adds one object of the schema's root type: kInvalidArgument (nothing added) when it does
  // not match the schema. Writes a block when the pending ones reach block_bytes.
  Status Append(const Value& value);
  // Writes the pending objects as a block (nothing when there are none).
  Status Flush();
  // Flushes, then closes the sink. The writer takes no more objects after.
  Status Close();

  const Schema& schema() const { return schema_; }
  uint64_t objects() const { return objects_; }
  // Bytes handed to the sink so far.
  uint64_t bytes_written() const { return sink_->Tell(); }

 private:
  ContainerWriter(std::unique_ptr<OutputStream> sink, Schema schema, WriterOptions options,
                  SyncMarker sync)
      : sink_(std::move(sink)),
        schema_(std::move(schema)),
        options_(std::move(options)),
        sync_(sync) {}

  std::unique_ptr<OutputStream> sink_;
  Schema schema_;
  WriterOptions options_;
  SyncMarker sync_;
  ByteBuffer pending_;  // encoded objects of the block being built
  int64_t pending_count_ = 0;
  ByteBuffer block_;  // the block as written: count, size, (compressed) objects, sync
  uint64_t objects_ = 0;
  bool closed_ = false;
};

struct ReaderOptions {
  // A deflate block inflating past this many bytes is kTooLarge.
  size_t max_block_bytes = 256 << 20;
};

// Reads one container file with the schema it was written with (no schema resolution against
// a reader's schema: an Iceberg reader maps fields by their field-id attributes itself). The
// file is held in memory whole: manifests are a few megabytes. Malformed bytes are kCorruption
// naming what is wrong (wrong magic, no avro.schema, a bad schema, a sync marker that does not
// match, a block of the wrong size, undecodable objects); never a crash. Not thread-safe.
class ContainerReader {
 public:
  static Result<std::unique_ptr<ContainerReader>> Open(std::string bytes,
                                                       ReaderOptions options = {});
  static Result<std::unique_ptr<ContainerReader>> Open(const RandomAccessFile& file,
                                                       ReaderOptions options = {});

  const Schema& schema() const { return *schema_; }
  Codec codec() const { return codec_; }
  // Every pair of the header, avro.schema and avro.codec included, in file order.
  const Metadata& metadata() const { return metadata_; }
  // The value of metadata key `key`, or nullopt.
  std::optional<std::string_view> FindMetadata(std::string_view key) const;
  const SyncMarker& sync() const { return sync_; }

  // Reads the next object into *out: true, or false after the last one.
  Result<bool> Next(Value* out);
  // Every object left.
  Result<std::vector<Value>> ReadAll();

 private:
  ContainerReader(std::string bytes, ReaderOptions options)
      : bytes_(std::move(bytes)), options_(options) {}
  Status ReadHeader();
  Status NextBlock();

  std::string bytes_;
  ReaderOptions options_;
  std::optional<Schema> schema_;  // set by ReadHeader
  Codec codec_ = Codec::kNull;
  Metadata metadata_;
  SyncMarker sync_{};
  size_t pos_ = 0;  // in bytes_: the start of the next block
  int64_t block_index_ = -1;
  int64_t block_left_ = 0;  // objects of the current block not yet read
  ByteBuffer inflated_;
  Decoder decoder_{nullptr, 0};
};

}  // namespace tarn::avro
