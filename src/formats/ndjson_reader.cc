#include "formats/ndjson_reader.h"

#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "formats/error_codes.h"
#include "formats/json_scan.h"
#include "types/value_text.h"

namespace tarn::formats {

namespace {

constexpr size_t kReadChunk = 1 << 20;
constexpr size_t kMaxLineBytes = 256u << 20;
constexpr size_t kMaxBatchBytes = 32u << 20;
constexpr int kMaxDepth = 256;

using Json = nlohmann::json;
using internal::LineScanner;

inline bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Whether brackets in `text` (outside strings) nest at most kMaxDepth deep.
bool DepthOk(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

Result<Json> ParseJson(std::string_view text) {
  if (!DepthOk(text)) return Status::InvalidArgument("JSON nested more than 256 levels deep");
  Json j;
  try {
    j = Json::parse(text.begin(), text.end(), nullptr, false);
  } catch (...) {
    return Status::InvalidArgument("invalid JSON");
  }
  if (j.is_discarded()) return Status::InvalidArgument("invalid JSON");
  return j;
}

std::string Compact(const Json& j) {
  try {
    return j.dump(-1, ' ', false, Json::error_handler_t::replace);
  } catch (...) {
    return "null";
  }
}

Status AppendJson(const Json& j, Column* out) {
  const TypeId id = out->type.id();
  if (j.is_null()) {
    out->AppendNull();
    return Status::OK();
  }
  if (id == TypeId::kJson) {
    out->AppendBytes(Compact(j));
    return Status::OK();
  }
  if (id == TypeId::kArray) {
    if (!j.is_array()) {
      return Status::InvalidArgument("expected a JSON array for " + out->type.ToString());
    }
    for (const Json& e : j) TARN_RETURN_NOT_OK(AppendJson(e, out->child.get()));
    out->AppendArrayRow();
    return Status::OK();
  }
  switch (j.type()) {
    case Json::value_t::string:
      return AppendParsedValue(j.get_ref<const std::string&>(), out);
    case Json::value_t::boolean:
      return AppendParsedValue(j.get<bool>() ? "true" : "false", out);
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return AppendParsedValue(Compact(j), out);
    default:
      if (id == TypeId::kVarchar) {
        out->AppendBytes(Compact(j));
        return Status::OK();
      }
      return Status::InvalidArgument("a JSON " + std::string(j.type_name()) +
                                     " is not a value of " + out->type.ToString());
  }
}

}  // namespace

Status AppendJsonText(std::string_view text, Column* out) {
  TARN_ASSIGN_OR_RETURN(Json j, ParseJson(text));
  return AppendJson(j, out);
}

NdjsonReader::~NdjsonReader() = default;

Result<std::unique_ptr<NdjsonReader>> NdjsonReader::Open(std::unique_ptr<InputStream> input,
                                                         std::string name, const Schema& target,
                                                         int64_t batch_rows) {
  std::unique_ptr<NdjsonReader> r(new NdjsonReader());
  r->input_ = std::move(input);
  r->name_ = std::move(name);
  r->target_ = target;
  r->batch_rows_ = batch_rows > 0 ? batch_rows : 65536;
  r->seen_.assign(target.fields.size(), 0);
  return r;
}

Status NdjsonReader::ReadMore() {
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  const size_t want = std::max(kReadChunk, end_);
  if (buf_.size() < end_ + want) buf_.resize(end_ + want);
  TARN_ASSIGN_OR_RETURN(size_t got, input_->Read(buf_.data() + end_, want));
  end_ += got;
  if (got < want) eof_ = true;
  return Status::OK();
}

Result<int> NdjsonReader::FieldForKey(std::string_view key) {
  for (const auto& [k, t] : keys_) {
    if (k == key) return t;
  }
  const int t = internal::MatchField(target_, key);
  if (t < 0) {
    return Status::Of(codes::kColumnUndeclared,
                      "key '" + std::string(key) + "' is not a column of the target schema")
        .WithField("column", std::string(key));
  }
  keys_.emplace_back(std::string(key), t);
  return t;
}

Status NdjsonReader::ParseLine(std::string_view line, int64_t row, std::vector<Column>* cols) {
  auto malformed = [&](std::string_view why) {
    return internal::MalformedRow(name_, row, "invalid JSON: " + std::string(why));
  };
  std::fill(seen_.begin(), seen_.end(), 0);
  LineScanner sc(line);
  if (!sc.Consume('{')) return malformed("expected a JSON object");
  if (!sc.Consume('}')) {
    while (true) {
      sc.SkipWs();
      std::string_view raw_key, key;
      if (const char* why = sc.String(&raw_key, &key, &key_scratch_)) return malformed(why);
      if (!sc.Consume(':')) return malformed("expected ':' after a key");
      TARN_ASSIGN_OR_RETURN(int t, FieldForKey(key));
      const Field& field = target_.fields[t];
      if (seen_[t]) return malformed("the key '" + std::string(key) + "' appears twice");
      seen_[t] = 1;
      Column* col = &(*cols)[t];
      const TypeId id = col->type.id();
      auto bad = [&](std::string_view text, std::string_view why) {
        return internal::ValueNotCastable(field.name, row, text, why);
      };
      const char c = sc.Peek();
      std::string_view raw;
      if (c == '"') {
        std::string_view value;
        if (const char* why = sc.String(&raw, &value, &scratch_)) return malformed(why);
        Status st;
        if (id == TypeId::kJson) {
          if (!IsValidUtf8(raw)) return bad(raw, "the value is not valid UTF-8");
          col->AppendBytes(raw);
        } else if (id == TypeId::kArray) {
          st = AppendJsonText(value, col);
        } else {
          st = AppendParsedValue(value, col);
        }
        if (!st.ok()) return bad(value, st.message());
      } else if (c == '{' || c == '[') {
        if (const char* why = sc.Nested(&raw)) return malformed(why);
        auto parsed = ParseJson(raw);
        if (!parsed.ok()) return malformed(parsed.status().message());
        Status st;
        if (id == TypeId::kJson || id == TypeId::kVarchar) {
          col->AppendBytes(Compact(*parsed));
        } else if (id == TypeId::kArray || c == '{') {
          st = AppendJson(*parsed, col);
        } else {
          st = Status::InvalidArgument("an array is not a value of " + col->type.ToString());
        }
        if (!st.ok()) return bad(raw, st.message());
      } else if (c == 'n') {
        if (!sc.Literal("null")) return malformed("a bad literal");
        if (!field.nullable) return internal::NullNotAllowed(field.name, row, "null");
        col->AppendNull();
      } else if (c == 't' || c == 'f') {
        if (!sc.Literal(c == 't' ? "true" : "false")) return malformed("a bad literal");
        raw = c == 't' ? "true" : "false";
        Status st;
        if (id == TypeId::kJson) {
          col->AppendBytes(raw);
        } else {
          st = AppendParsedValue(raw, col);
        }
        if (!st.ok()) return bad(raw, st.message());
      } else {
        if (const char* why = sc.Number(&raw)) return malformed(why);
        Status st;
        if (id == TypeId::kJson) {
          col->AppendBytes(raw);
        } else {
          st = AppendParsedValue(raw, col);
        }
        if (!st.ok()) return bad(raw, st.message());
      }
      if (sc.Consume(',')) continue;
      if (sc.Consume('}')) break;
      return malformed("expected ',' or '}'");
    }
  }
  if (!sc.AtEnd()) return malformed("text after the object");
  for (size_t t = 0; t < seen_.size(); ++t) {
    if (seen_[t]) continue;
    const Field& field = target_.fields[t];
    if (!field.nullable) {
      return Status::Of(codes::kColumnMissing, "row " + std::to_string(row) + " has no key '" +
                                                   field.name + "', a NOT NULL column")
          .WithField("column", field.name)
          .WithField("row", std::to_string(row));
    }
    (*cols)[t].AppendNull();
  }
  return Status::OK();
}

Result<std::optional<RecordBatch>> NdjsonReader::Next() {
  if (done_) return std::optional<RecordBatch>();
  std::vector<Column> cols;
  cols.reserve(target_.fields.size());
  for (const Field& f : target_.fields) cols.emplace_back(f.type);
  int64_t rows = 0;
  size_t bytes = 0;
  while (rows < batch_rows_ && bytes < kMaxBatchBytes) {
    const uint8_t* base = buf_.data();
    const void* nl = pos_ < end_ ? std::memchr(base + pos_, '\n', end_ - pos_) : nullptr;
    size_t line_end;
    size_t next;
    if (nl != nullptr) {
      line_end = static_cast<size_t>(static_cast<const uint8_t*>(nl) - base);
      next = line_end + 1;
    } else if (!eof_) {
      if (end_ - pos_ > kMaxLineBytes) {
        done_ = true;
        return internal::MalformedRow(name_, rows_before_ + rows + 1,
                                      "the line is longer than 256 MiB");
      }
      auto st = ReadMore();
      if (!st.ok()) {
        done_ = true;
        return st;
      }
      continue;
    } else if (pos_ < end_) {
      line_end = next = end_;  // the last line has no newline
    } else {
      done_ = true;
      break;
    }
    std::string_view line(reinterpret_cast<const char*>(base) + pos_, line_end - pos_);
    if (pos_ == 0 && rows_before_ == 0 && rows == 0 && line.size() >= 3 &&
        line.substr(0, 3) == "\xEF\xBB\xBF") {
      line.remove_prefix(3);
    }
    bytes += next - pos_;
    pos_ = next;
    size_t k = 0;
    while (k < line.size() && IsWs(line[k])) ++k;
    if (k == line.size()) continue;  // blank line
    Status st = ParseLine(line, rows_before_ + rows + 1, &cols);
    if (!st.ok()) {
      done_ = true;
      return st;
    }
    ++rows;
  }
  if (rows == 0) {
    done_ = true;
    return std::optional<RecordBatch>();
  }
  RecordBatch batch;
  batch.schema = target_;
  batch.columns = std::move(cols);
  batch.num_rows = rows;
  rows_before_ += rows;
  return std::optional<RecordBatch>(std::move(batch));
}

}  // namespace tarn::formats
