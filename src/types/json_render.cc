#include "types/json_render.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/hex.h"
#include "common/utf8.h"
#include "types/value_text.h"
#include "types/variant.h"

namespace tarn {

namespace {

// 0: copy as is; 1: needs escaping (quote, backslash, control); 2: non-ASCII.
struct EscapeTable {
  uint8_t kind[256];
  constexpr EscapeTable() : kind() {
    for (int c = 0; c < 256; ++c)
      kind[c] = c < 0x20 || c == '"' || c == '\\' ? 1 : c >= 0x80 ? 2 : 0;
  }
};
constexpr EscapeTable kEscape;

void AppendEscape(uint8_t c, std::string* out) {
  switch (c) {
    case '"':
      out->append("\\\"");
      return;
    case '\\':
      out->append("\\\\");
      return;
    case '\n':
      out->append("\\n");
      return;
    case '\r':
      out->append("\\r");
      return;
    case '\t':
      out->append("\\t");
      return;
    case '\b':
      out->append("\\b");
      return;
    case '\f':
      out->append("\\f");
      return;
    default: {
      out->append("\\u00");
      AppendHex(static_cast<uint8_t>(c), out);
    }
  }
}

template <typename F>
void AppendJsonFloat(F v, std::string* out) {
  if (std::isfinite(v)) {
    if constexpr (sizeof(F) == 4) {
      AppendFloat32(v, out);
    } else {
      AppendFloat64(v, out);
    }
  } else {
    out->append(std::isnan(v) ? "\"NaN\"" : v < 0 ? "\"-Infinity\"" : "\"Infinity\"");
  }
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* end = p + text.size();
  const uint8_t* run = p;  // start of bytes not yet copied
  while (p < end) {
    const uint8_t kind = kEscape.kind[*p];
    if (kind == 0) {
      ++p;
      continue;
    }
    if (kind == 1) {
      out->append(reinterpret_cast<const char*>(run), p - run);
      AppendEscape(*p, out);
      run = ++p;
      continue;
    }
    int bad = 0;
    int len = Utf8SequenceLength(p, end, &bad);
    if (len > 0) {
      p += len;  // well-formed: stays in the run
      continue;
    }
    out->append(reinterpret_cast<const char*>(run), p - run);
    out->append("\xEF\xBF\xBD");
    p += bad;
    run = p;
  }
  out->append(reinterpret_cast<const char*>(run), end - run);
  out->push_back('"');
}

void AppendJsonValue(const Column& col, int64_t row, std::string* out) {
  if (!col.IsValid(row)) {
    out->append("null");
    return;
  }
  switch (col.type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      // true/false and integers with every digit: their canonical text is already JSON.
      AppendValueText(col, row, out);
      return;
    case TypeId::kFloat32:
      AppendJsonFloat(col.Value<float>(row), out);
      return;
    case TypeId::kFloat64:
      AppendJsonFloat(col.Value<double>(row), out);
      return;
    case TypeId::kVarchar:
    case TypeId::kJson:
      AppendJsonString(col.StringAt(row), out);
      return;
    case TypeId::kArray: {
      out->push_back('[');
      const int64_t begin = col.offsets[row];
      const int64_t end = col.offsets[row + 1];
      for (int64_t k = begin; k < end; ++k) {
        if (k > begin) out->push_back(',');
        AppendJsonValue(*col.child, k, out);
      }
      out->push_back(']');
      return;
    }
    case TypeId::kStruct: {
      out->push_back('{');
      const std::vector<Field>& members = col.type.children();
      for (size_t i = 0; i < members.size(); ++i) {
        if (i > 0) out->push_back(',');
        AppendJsonString(members[i].name, out);
        out->push_back(':');
        AppendJsonValue(col.members[i], row, out);
      }
      out->push_back('}');
      return;
    }
    case TypeId::kMap: {
      // An array of entries: keys need not be strings, and order is kept.
      out->push_back('[');
      const int64_t begin = col.offsets[row];
      const int64_t end = col.offsets[row + 1];
      for (int64_t k = begin; k < end; ++k) {
        out->append(k > begin ? ",{\"key\":" : "{\"key\":");
        AppendJsonValue(col.members[0], k, out);
        out->append(",\"value\":");
        AppendJsonValue(col.members[1], k, out);
        out->push_back('}');
      }
      out->push_back(']');
      return;
    }
    case TypeId::kVariant:
      // The Parquet reader checks every VARIANT it reads, so only a column built by hand can
      // fail here: it renders as a string saying so, never as bytes read past their end.
      if (!AppendVariantJson(col.members[0].StringAt(row), col.members[1].StringAt(row), out)
               .ok()) {
        out->append("\"malformed VARIANT\"");
      }
      return;
    default:
      // Every other type renders as its canonical text, which never needs escaping.
      out->push_back('"');
      AppendValueText(col, row, out);
      out->push_back('"');
      return;
  }
}

JsonRowWriter::JsonRowWriter(const Schema& schema) {
  keys_.reserve(schema.fields.size());
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    std::string key = i == 0 ? "" : ",";
    AppendJsonString(schema.fields[i].name, &key);
    key.push_back(':');
    keys_.push_back(std::move(key));
  }
}

void JsonRowWriter::AppendRow(const RecordBatch& batch, int64_t row, std::string* out) const {
  out->push_back('{');
  const size_t n = std::min(keys_.size(), batch.columns.size());
  for (size_t i = 0; i < n; ++i) {
    out->append(keys_[i]);
    AppendJsonValue(batch.columns[i], row, out);
  }
  out->push_back('}');
}

std::string RenderRowJson(const RecordBatch& batch, int64_t row) {
  std::string out;
  JsonRowWriter(batch.schema).AppendRow(batch, row, &out);
  return out;
}

}  // namespace tarn
