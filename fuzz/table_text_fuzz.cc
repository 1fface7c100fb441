// Fuzzes the text and byte formats of datasets that reach the catalog from users or storage:
// predicates (`--where`), partition specs, sort orders, schema JSON, stats JSON and deletion
// vectors. The first byte picks the parser. Whatever parses must print to text that parses back
// to the same thing; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "table/deletion_vector.h"
#include "table/predicate.h"
#include "table/schema_json.h"
#include "tarn/data_file.h"
#include "tarn/partition.h"
#include "tarn/sort_order.h"

namespace {

void Fail(const std::string& what) {
  std::fprintf(stderr, "table_text_fuzz: %s\n", what.c_str());
  std::abort();
}

const tarn::Schema& TheSchema() {
  static const tarn::Schema* schema = [] {
    auto s = tarn::Schema::Parse(
        "id INT64 NOT NULL, ts TIMESTAMP[us], day DATE, name VARCHAR, amount DECIMAL(10,2), "
        "score FLOAT64, flag BOOLEAN, u UUID, ip IPV4, tags ARRAY<VARCHAR>, small INT8, "
        "raw BLOB");
    if (!s.ok()) Fail("schema: " + s.status().ToString());
    return new tarn::Schema(*s);
  }();
  return *schema;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const tarn::Schema& schema = TheSchema();
  switch (data[0] % 6) {
    case 0: {
      auto p = tarn::ParsePredicate(text);
      if (!p.ok()) return 0;
      std::string printed = p->ToString();
      auto again = tarn::ParsePredicate(printed);
      if (!again.ok()) Fail("printed predicate does not parse: " + printed);
      if (again->ToString() != printed) Fail("predicate text is not stable: " + printed);
      auto bound = tarn::BindPredicate(*p, schema);
      if (bound.ok()) {
        std::string b = bound->ToString();
        auto rebound = tarn::ParseAndBindPredicate(b, schema);
        if (!rebound.ok()) Fail("bound predicate text does not bind: " + b);
        (void)tarn::ReferencedFieldIds(*bound);
      }
      return 0;
    }
    case 1: {
      auto spec = tarn::PartitionSpec::Parse(text, schema, 3);
      if (!spec.ok()) return 0;
      auto again = tarn::PartitionSpec::Parse(spec->ToString(schema), schema, 3);
      if (!again.ok() || !(*again == *spec)) Fail("spec text does not round-trip");
      auto json = tarn::PartitionSpec::FromJson(spec->ToJson());
      if (!json.ok() || !(*json == *spec)) Fail("spec JSON does not round-trip");
      return 0;
    }
    case 2: {
      auto order = tarn::SortOrder::Parse(text, schema);
      if (!order.ok()) return 0;
      auto again = tarn::SortOrder::Parse(order->ToString(schema), schema);
      if (!again.ok() || !(*again == *order)) Fail("sort order text does not round-trip");
      return 0;
    }
    case 3: {
      auto s = tarn::SchemaFromJson(text);
      if (!s.ok()) return 0;
      auto again = tarn::SchemaFromJson(tarn::SchemaToJson(*s));
      if (!again.ok() || tarn::SchemaToJson(*again) != tarn::SchemaToJson(*s)) {
        Fail("schema JSON does not round-trip");
      }
      return 0;
    }
    case 4: {
      auto stats = tarn::StatsFromJson(text);
      if (!stats.ok()) return 0;
      auto again = tarn::StatsFromJson(tarn::StatsToJson(*stats));
      if (!again.ok() || *again != *stats) Fail("stats JSON does not round-trip");
      return 0;
    }
    default: {
      auto positions = tarn::DecodeDeletionVector(text);
      if (!positions.ok()) return 0;
      auto again = tarn::DecodeDeletionVector(tarn::EncodeDeletionVector(*positions));
      if (!again.ok() || *again != *positions) Fail("deletion vector does not round-trip");
      return 0;
    }
  }
}
