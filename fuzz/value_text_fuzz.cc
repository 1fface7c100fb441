// Fuzzes the text parsers of the type vocabulary (type names, schemas, and values of every
// scalar type, as casts from VARCHAR and CSV upload use them). Whatever parses must print to
// canonical text that parses back to the same value: tarn must read everything it writes.
// Also the VARIANT codec (types/variant.h): JSON text in, JSON text out that reads back the
// same, and the input's bytes taken as a metadata and a value, which decode or are kCorruption
// without reading past them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "types/value_text.h"
#include "types/variant.h"

namespace {

void Fail(const std::string& what) {
  std::fprintf(stderr, "value_text_fuzz: %s\n", what.c_str());
  std::abort();
}

const tarn::DataType kTypes[] = {
    tarn::DataType::Boolean(),
    tarn::DataType::Int8(),
    tarn::DataType::Int16(),
    tarn::DataType::Int32(),
    tarn::DataType::Int64(),
    tarn::DataType::UInt8(),
    tarn::DataType::UInt16(),
    tarn::DataType::UInt32(),
    tarn::DataType::UInt64(),
    tarn::DataType::Float32(),
    tarn::DataType::Float64(),
    tarn::DataType::Decimal(10, 2),
    tarn::DataType::Decimal(38, 9),
    tarn::DataType::Varchar(),
    tarn::DataType::Blob(),
    tarn::DataType::Date(),
    tarn::DataType::Time(),
    tarn::DataType::Timestamp(tarn::TimeUnit::kSecond),
    tarn::DataType::Timestamp(tarn::TimeUnit::kMicro),
    tarn::DataType::TimestampTz(tarn::TimeUnit::kNano),
    tarn::DataType::Uuid(),
    tarn::DataType::Ipv4(),
    tarn::DataType::Json(),
};

// Same value: compares the in-memory bytes (floats by bits, so NaN equals NaN of the same bits;
// -0 and 0 differ, and must survive the round trip).
bool SameValue(const tarn::Column& a, const tarn::Column& b) {
  if (a.type.is_variable_width()) return a.StringAt(0) == b.StringAt(0);
  int w = a.type.PhysicalWidth();
  return std::memcmp(a.data.data(), b.data.data(), w) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return -1;
  std::string_view text(reinterpret_cast<const char*>(data), size);

  auto type = tarn::DataType::Parse(text);
  if (type.ok()) {
    auto again = tarn::DataType::Parse(type->ToString());
    if (!again.ok() || !(*again == *type))
      Fail("type name does not round-trip: " + type->ToString());
  }
  auto schema = tarn::Schema::Parse(text);
  if (schema.ok()) {
    auto again = tarn::Schema::Parse(schema->ToString());
    if (!again.ok() || again->ToString() != schema->ToString()) {
      Fail("schema does not round-trip: " + schema->ToString());
    }
  }

  tarn::Column variant(tarn::DataType::Variant());
  if (tarn::AppendParsedValue(text, &variant).ok()) {
    const std::string printed = tarn::ValueText(variant, 0);
    tarn::Column back(tarn::DataType::Variant());
    tarn::Status st = tarn::AppendParsedValue(printed, &back);
    if (!st.ok()) Fail("VARIANT: printed '" + printed + "' does not parse: " + st.ToString());
    if (tarn::ValueText(back, 0) != printed) Fail("VARIANT: '" + printed + "' reads back changed");
  } else if (variant.length != 0) {
    Fail("a failed parse appended a VARIANT");
  }
  if (size > 0) {
    // First byte: the metadata's length; the rest after it, the value.
    const size_t n = std::min<size_t>(data[0], size - 1);
    const std::string_view metadata = text.substr(1, n);
    const std::string_view value = text.substr(1 + n);
    std::string json = "unchanged";
    const tarn::Status checked = tarn::ValidateVariant(metadata, value);
    const tarn::Status rendered = tarn::AppendVariantJson(metadata, value, &json);
    if (checked.ok() != rendered.ok()) Fail("VARIANT: validation and rendering disagree");
    if (!checked.ok() && (checked.kind() != tarn::ErrorKind::kCorruption || json != "unchanged")) {
      Fail("VARIANT: a malformed value is not kCorruption, or left output");
    }
    std::string m, v;
    if (checked.ok() && !tarn::EncodeVariantFromJson(json.substr(9), &m, &v).ok()) {
      Fail("VARIANT: its rendering is not JSON: " + json.substr(9));
    }
  }

  for (const tarn::DataType& t : kTypes) {
    tarn::Column col(t);
    if (!tarn::AppendParsedValue(text, &col).ok()) {
      if (col.length != 0) Fail("a failed parse appended a value to " + t.ToString());
      continue;
    }
    if (col.length != 1) Fail("a parse appended other than one value to " + t.ToString());
    std::string printed = tarn::ValueText(col, 0);
    tarn::Column back(t);
    tarn::Status st = tarn::AppendParsedValue(printed, &back);
    if (!st.ok())
      Fail(t.ToString() + ": printed '" + printed + "' does not parse: " + st.ToString());
    bool floating = t.is_floating();
    if (!SameValue(col, back)) {
      // NaN payloads need not survive printing; any NaN reads back as a NaN.
      bool nan_pair = floating && printed.find("NaN") != std::string::npos;
      if (!nan_pair) Fail(t.ToString() + ": '" + printed + "' reads back as another value");
    }
  }
  return 0;
}
