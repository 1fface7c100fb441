#include "cli/sample_data.h"

#include <string>

namespace tarn::cli {

namespace {

// SplitMix64: a small, well-mixed deterministic generator.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

const char* kCities[] = {"Oslo",     "Zürich",    "Lisboa",    "Nairobi", "Kraków",
                         "Montréal", "São Paulo", "Reykjavík", "Ōsaka",   "Cape Town"};
const char* kTags[] = {"fresh", "archived", "pii", "gold", "raw"};

}  // namespace

RecordBatch MakeSampleBatch(int64_t rows) {
  Schema schema;
  auto add = [&](const char* name, DataType type, bool nullable = true) {
    Field f;
    f.name = name;
    f.type = std::move(type);
    f.nullable = nullable;
    f.field_id = static_cast<int32_t>(schema.fields.size()) + 1;
    schema.fields.push_back(std::move(f));
  };
  add("id", DataType::Int64(), false);
  add("city", DataType::Varchar());
  add("amount", DataType::Decimal(10, 2));
  add("price", DataType::Float64());
  add("ratio", DataType::Float32());
  add("qty", DataType::Int32());
  add("level", DataType::Int16());
  add("grade", DataType::Int8());
  add("port", DataType::UInt16());
  add("flags8", DataType::UInt8());
  add("count32", DataType::UInt32());
  add("big", DataType::UInt64());
  add("active", DataType::Boolean());
  add("day", DataType::Date());
  add("at", DataType::Time());
  add("created", DataType::Timestamp(TimeUnit::kMicro));
  add("created_s", DataType::Timestamp(TimeUnit::kSecond));
  add("updated", DataType::TimestampTz(TimeUnit::kMilli));
  add("precise", DataType::TimestampTz(TimeUnit::kNano));
  add("uid", DataType::Uuid());
  add("ip", DataType::Ipv4());
  add("payload", DataType::Json());
  add("raw", DataType::Blob());
  add("wide", DataType::Decimal(38, 6));
  add("tags", DataType::Array(DataType::Varchar()));
  int32_t last_id = static_cast<int32_t>(schema.fields.size());
  for (Field& f : schema.fields) f.type = *AssignNestedIds(f.type, &last_id);

  RecordBatch batch;
  batch.num_rows = rows;
  for (const Field& f : schema.fields) batch.columns.emplace_back(f.type);
  Rng rng{42};
  const int64_t kBaseMicros = 1700000000LL * 1000000;  // 2023-11-14T22:13:20
  for (int64_t i = 0; i < rows; ++i) {
    uint64_t r = rng.Next();
    bool null = i % 17 == 5;  // a sprinkling of nulls in every nullable column
    auto& c = batch.columns;
    c[0].AppendFixed<int64_t>(i + 1);
    if (null) {
      for (size_t k = 1; k < c.size(); ++k) c[k].AppendNull();
      continue;
    }
    c[1].AppendBytes(kCities[r % 10]);
    c[2].AppendFixed<int128>(static_cast<int128>(static_cast<int64_t>(r % 2000000) - 1000000));
    c[3].AppendFixed<double>(static_cast<double>(r % 100000) / 7.0);
    c[4].AppendFixed<float>(static_cast<float>(r % 1000) / 8.0f);
    c[5].AppendFixed<int32_t>(static_cast<int32_t>(r % 1000) - 500);
    c[6].AppendFixed<int16_t>(static_cast<int16_t>(r % 60000) - 30000);
    c[7].AppendFixed<int8_t>(static_cast<int8_t>(r % 256 - 128));
    c[8].AppendFixed<uint16_t>(static_cast<uint16_t>(r >> 16));
    c[9].AppendFixed<uint8_t>(static_cast<uint8_t>(r >> 8));
    c[10].AppendFixed<uint32_t>(static_cast<uint32_t>(r >> 32));
    c[11].AppendFixed<uint64_t>(i == 1 ? UINT64_MAX : r);
    c[12].AppendFixed<uint8_t>(r & 1);
    c[13].AppendFixed<int32_t>(static_cast<int32_t>(19000 + r % 2000));
    c[14].AppendFixed<int64_t>(static_cast<int64_t>(r % 86400000000ULL));
    int64_t micros = kBaseMicros + static_cast<int64_t>(r % 100000000000ULL);
    c[15].AppendFixed<int64_t>(micros);
    c[16].AppendFixed<int64_t>(micros / 1000000);
    c[17].AppendFixed<int64_t>(micros / 1000);
    c[18].AppendFixed<int64_t>(micros * 1000 + static_cast<int64_t>(r % 1000));
    uint8_t uuid[16];
    uint64_t a = rng.Next(), b = rng.Next();
    for (int k = 0; k < 8; ++k) {
      uuid[k] = static_cast<uint8_t>(a >> (56 - 8 * k));
      uuid[8 + k] = static_cast<uint8_t>(b >> (56 - 8 * k));
    }
    uuid[6] = (uuid[6] & 0x0f) | 0x40;  // version 4
    uuid[8] = (uuid[8] & 0x3f) | 0x80;  // RFC 4122 variant
    c[19].AppendFixedBytes(uuid, 16);
    c[20].AppendFixed<uint32_t>(0x0A000000u | static_cast<uint32_t>(r & 0xFFFFFF));
    c[21].AppendBytes("{\"n\":" + std::to_string(i) + ",\"ok\":" + (r & 2 ? "true" : "false") +
                      "}");
    std::string raw;
    for (int k = 0; k < static_cast<int>(r % 6); ++k)
      raw.push_back(static_cast<char>(r >> (8 * k)));
    c[22].AppendBytes(raw);
    int128 wide = static_cast<int128>(r) * 1000000 + static_cast<int128>(i);
    if (i % 2) wide = -wide;
    c[23].AppendFixed<int128>(wide);
    Column& tags = c[24];
    int ntags = static_cast<int>(r % 4);
    for (int k = 0; k < ntags; ++k) {
      if (k == 2 && i % 3 == 0) {
        tags.child->AppendNull();
      } else {
        tags.child->AppendBytes(kTags[(r >> (4 * k)) % 5]);
      }
    }
    tags.AppendArrayRow();
  }
  batch.schema = std::move(schema);
  return batch;
}

}  // namespace tarn::cli
