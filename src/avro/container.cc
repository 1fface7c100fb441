#include "avro/container.h"

#include <cstring>
#include <limits>
#include <set>

#include "common/compression.h"
#include "common/random.h"

namespace tarn::avro {

namespace {

constexpr uint8_t kMagic[4] = {'O', 'b', 'j', 1};

Status Corrupt(std::string msg) { return Status::Corruption("avro container: " + msg); }

}  // namespace

std::string_view CodecName(Codec codec) { return codec == Codec::kDeflate ? "deflate" : "null"; }

Result<Codec> ParseCodec(std::string_view name) {
  if (name == "null") return Codec::kNull;
  if (name == "deflate") return Codec::kDeflate;
  return Status::FailedPrecondition("avro container: codec \"" + std::string(name) +
                                    "\" is not supported (null, deflate)");
}

Result<std::unique_ptr<ContainerWriter>> ContainerWriter::Open(std::unique_ptr<OutputStream> sink,
                                                               Schema schema,
                                                               WriterOptions options) {
  if (options.block_bytes == 0) {
    return Status::InvalidArgument("avro container: block_bytes must be positive");
  }
  std::set<std::string_view> keys;
  for (const auto& [key, value] : options.metadata) {
    if (key.rfind("avro.", 0) == 0) {
      return Status::InvalidArgument("avro container: metadata key \"" + key +
                                     "\" is reserved for Avro");
    }
    if (!keys.insert(key).second) {
      return Status::InvalidArgument("avro container: metadata key \"" + key + "\" given twice");
    }
  }
  SyncMarker sync;
  if (options.sync) {
    sync = *options.sync;
  } else {
    uint64_t a = RandomU64(), b = RandomU64();
    std::memcpy(sync.data(), &a, 8);
    std::memcpy(sync.data() + 8, &b, 8);
  }
  ByteBuffer header(kMagic, kMagic + sizeof kMagic);
  AppendLong(static_cast<int64_t>(2 + options.metadata.size()), &header);
  AppendBytes("avro.schema", &header);
  AppendBytes(schema.ToJson(), &header);
  AppendBytes("avro.codec", &header);
  AppendBytes(CodecName(options.codec), &header);
  for (const auto& [key, value] : options.metadata) {
    AppendBytes(key, &header);
    AppendBytes(value, &header);
  }
  AppendLong(0, &header);
  header.insert(header.end(), sync.begin(), sync.end());
  TARN_RETURN_NOT_OK(sink->Write(header.data(), header.size()));
  return std::unique_ptr<ContainerWriter>(
      new ContainerWriter(std::move(sink), std::move(schema), std::move(options), sync));
}

Status ContainerWriter::Append(const Value& value) {
  if (closed_) return Status::FailedPrecondition("avro container: the writer is closed");
  TARN_RETURN_NOT_OK(Encode(value, schema_.root(), &pending_));
  ++pending_count_;
  ++objects_;
  if (pending_.size() >= options_.block_bytes) return Flush();
  return Status::OK();
}

Status ContainerWriter::Flush() {
  if (pending_count_ == 0) return Status::OK();
  block_.clear();
  AppendLong(pending_count_, &block_);
  if (options_.codec == Codec::kDeflate) {
    ByteBuffer z;
    TARN_RETURN_NOT_OK(DeflateRaw(pending_.data(), pending_.size(), &z, options_.deflate_level));
    AppendLong(static_cast<int64_t>(z.size()), &block_);
    block_.insert(block_.end(), z.begin(), z.end());
  } else {
    AppendLong(static_cast<int64_t>(pending_.size()), &block_);
    block_.insert(block_.end(), pending_.begin(), pending_.end());
  }
  block_.insert(block_.end(), sync_.begin(), sync_.end());
  pending_.clear();
  pending_count_ = 0;
  return sink_->Write(block_.data(), block_.size());
}

Status ContainerWriter::Close() {
  if (closed_) return Status::OK();
  TARN_RETURN_NOT_OK(Flush());
  closed_ = true;
  return sink_->Close();
}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(std::string bytes,
                                                               ReaderOptions options) {
  std::unique_ptr<ContainerReader> r(new ContainerReader(std::move(bytes), options));
  TARN_RETURN_NOT_OK(r->ReadHeader());
  return r;
}

Result<std::unique_ptr<ContainerReader>> ContainerReader::Open(const RandomAccessFile& file,
                                                               ReaderOptions options) {
  std::string bytes(file.Size(), '\0');
  TARN_RETURN_NOT_OK(file.ReadAt(0, bytes.size(), reinterpret_cast<uint8_t*>(bytes.data())));
  auto r = Open(std::move(bytes), options);
  if (!r.ok()) return r.status().WithContext(file.name());
  return r;
}

std::optional<std::string_view> ContainerReader::FindMetadata(std::string_view key) const {
  for (const auto& [k, v] : metadata_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

Status ContainerReader::ReadHeader() {
  if (bytes_.size() < sizeof kMagic || std::memcmp(bytes_.data(), kMagic, sizeof kMagic) != 0) {
    return Corrupt("not an Avro object container file (no \"Obj\\x01\" magic)");
  }
  const auto* data = reinterpret_cast<const uint8_t*>(bytes_.data());
  Decoder d(data + sizeof kMagic, bytes_.size() - sizeof kMagic);
  while (true) {
    TARN_ASSIGN_OR_RETURN(int64_t count, d.ReadLong());
    if (count == 0) break;
    if (count < 0) {
      if (count == std::numeric_limits<int64_t>::min()) return Corrupt("a bad metadata count");
      count = -count;
      TARN_ASSIGN_OR_RETURN(int64_t size, d.ReadLong());  // the block's size: not needed
      if (size < 0) return Corrupt("a negative metadata block size");
    }
    if (static_cast<uint64_t>(count) > d.remaining()) return Corrupt("a bad metadata count");
    for (int64_t i = 0; i < count; ++i) {
      TARN_ASSIGN_OR_RETURN(std::string_view key, d.ReadBytes());
      TARN_ASSIGN_OR_RETURN(std::string_view value, d.ReadBytes());
      metadata_.emplace_back(std::string(key), std::string(value));
    }
  }
  TARN_ASSIGN_OR_RETURN(std::string_view sync, d.ReadFixed(kSyncSize));
  std::memcpy(sync_.data(), sync.data(), kSyncSize);
  pos_ = static_cast<size_t>(d.position() - data);

  auto schema = FindMetadata("avro.schema");
  if (!schema) return Corrupt("no avro.schema in the metadata");
  auto parsed = Schema::Parse(*schema);
  if (!parsed.ok()) return Corrupt("avro.schema: " + parsed.status().message());
  schema_ = std::move(*parsed);
  if (auto codec = FindMetadata("avro.codec")) {
    TARN_ASSIGN_OR_RETURN(codec_, ParseCodec(*codec));
  }
  return Status::OK();
}

Status ContainerReader::NextBlock() {
  ++block_index_;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes_.data());
  Decoder d(data + pos_, bytes_.size() - pos_);
  const std::string block_name = "block " + std::to_string(block_index_);
  auto where = [&] { return block_name + ": "; };
  auto count_or = d.ReadLong();
  if (!count_or.ok()) return count_or.status().WithContext("avro container: " + block_name);
  auto size_or = d.ReadLong();
  if (!size_or.ok()) return size_or.status().WithContext("avro container: " + block_name);
  const int64_t count = *count_or, size = *size_or;
  if (count < 0) return Corrupt(where() + "a negative object count");
  if (size < 0) return Corrupt(where() + "a negative byte size");
  if (static_cast<uint64_t>(size) > d.remaining() ||
      d.remaining() - static_cast<size_t>(size) < kSyncSize) {
    return Corrupt(where() + "truncated (" + std::to_string(size) + " bytes and the sync marker, " +
                   std::to_string(d.remaining()) + " left)");
  }
  const uint8_t* objects = d.position();
  if (std::memcmp(objects + size, sync_.data(), kSyncSize) != 0) {
    return Corrupt(where() + "the sync marker does not match the header's");
  }
  pos_ = static_cast<size_t>(objects + size + kSyncSize - data);
  const uint8_t* block = objects;
  size_t block_size = static_cast<size_t>(size);
  if (codec_ == Codec::kDeflate) {
    inflated_.clear();
    Status s = InflateRaw(objects, block_size, options_.max_block_bytes, &inflated_);
    if (!s.ok()) return s.WithContext("avro container: " + block_name);
    block = inflated_.data();
    block_size = inflated_.size();
  }
  // Objects of at least a byte each cannot outnumber the bytes; empty ones draw on the budget.
  const Node& root = schema_->root();
  int64_t budget = decoder_.empty_items_left();
  if (!root.may_encode_empty && static_cast<uint64_t>(count) > block_size) {
    return Corrupt(where() + std::to_string(count) + " objects in " + std::to_string(block_size) +
                   " bytes");
  }
  if (root.may_encode_empty) {
    if (count > budget) return Corrupt(where() + "too many empty objects");
    budget -= count;
  }
  decoder_ = Decoder(block, block_size);
  decoder_.set_empty_items_left(budget);
  block_left_ = count;
  if (count == 0 && block_size != 0) return Corrupt(where() + "bytes in a block of no objects");
  return Status::OK();
}

Result<bool> ContainerReader::Next(Value* out) {
  while (block_left_ == 0) {
    if (pos_ == bytes_.size()) return false;
    if (Status s = NextBlock(); !s.ok()) {
      pos_ = bytes_.size();  // no reading on after an error
      return s;
    }
  }
  Status s = decoder_.Read(schema_->root(), out);
  if (!s.ok()) {
    block_left_ = 0;
    pos_ = bytes_.size();  // no reading on after an error
    return s.WithContext("avro container: block " + std::to_string(block_index_));
  }
  if (--block_left_ == 0 && decoder_.remaining() != 0) {
    pos_ = bytes_.size();
    return Corrupt("block " + std::to_string(block_index_) + ": " +
                   std::to_string(decoder_.remaining()) + " bytes after its objects");
  }
  return true;
}

Result<std::vector<Value>> ContainerReader::ReadAll() {
  std::vector<Value> out;
  while (true) {
    Value v;
    TARN_ASSIGN_OR_RETURN(bool more, Next(&v));
    if (!more) return out;
    out.push_back(std::move(v));
  }
}

}  // namespace tarn::avro
