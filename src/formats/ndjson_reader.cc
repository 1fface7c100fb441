#include "formats/ndjson_reader.h"

#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "types/value_text.h"

namespace tarn::formats {

namespace {

constexpr size_t kReadChunk = 1 << 20;
constexpr size_t kMaxLineBytes = 256u << 20;
constexpr size_t kMaxBatchBytes = 32u << 20;
constexpr int kMaxDepth = 256;

using Json = nlohmann::json;

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

bool Hex4(std::string_view s, size_t i, uint32_t* v) {
  if (i + 4 > s.size()) return false;
  uint32_t r = 0;
  for (size_t k = i; k < i + 4; ++k) {
    const char c = s[k];
    uint32_t d;
    if (c >= '0' && c <= '9') {
      d = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<uint32_t>(c - 'a' + 10);
    } else if (c >= 'A' && c <= 'F') {
      d = static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return false;
    }
    r = r << 4 | d;
  }
  *v = r;
  return true;
}

// A hand-written scanner for one line's top-level object; nested values are delimited here
// and parsed by nlohmann only when needed.
class LineScanner {
 public:
  explicit LineScanner(std::string_view s) : s_(s) {}
  void SkipWs() {
    while (i_ < s_.size() && IsWs(s_[i_])) ++i_;
  }
  bool Consume(char c) {
    SkipWs();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipWs();
    return i_ == s_.size();
  }
  char Peek() {
    SkipWs();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  size_t pos() const { return i_; }

  // A string at the cursor: its raw literal (with quotes) and its value (a view of the input
  // when there are no escapes, else written to *scratch).
  const char* String(std::string_view* raw, std::string_view* value, std::string* scratch) {
    const size_t begin = i_;
    if (i_ >= s_.size() || s_[i_] != '"') return "expected a string";
    ++i_;
    const size_t content = i_;
    bool escaped = false;
    while (true) {
      if (i_ >= s_.size()) return "a string is not closed";
      const char c = s_[i_];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) return "a control character in a string";
      if (c == '\\') {
        escaped = true;
        i_ += 2;
      } else {
        ++i_;
      }
    }
    if (i_ >= s_.size()) return "a string is not closed";
    const size_t close = i_++;
    *raw = s_.substr(begin, i_ - begin);
    if (!escaped) {
      *value = s_.substr(content, close - content);
      return nullptr;
    }
    scratch->clear();
    for (size_t k = content; k < close; ++k) {
      const char c = s_[k];
      if (c != '\\') {
        scratch->push_back(c);
        continue;
      }
      const char e = s_[++k];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          scratch->push_back(e);
          break;
        case 'b':
          scratch->push_back('\b');
          break;
        case 'f':
          scratch->push_back('\f');
          break;
        case 'n':
          scratch->push_back('\n');
          break;
        case 'r':
          scratch->push_back('\r');
          break;
        case 't':
          scratch->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(s_, k + 1, &cp)) return "a bad \\u escape";
          k += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (k + 2 < close && s_[k + 1] == '\\' && s_[k + 2] == 'u' && Hex4(s_, k + 3, &lo) &&
                lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              k += 6;
            } else {
              return "an unpaired surrogate in a \\u escape";
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return "an unpaired surrogate in a \\u escape";
          }
          AppendUtf8(cp, scratch);
          break;
        }
        default:
          return "a bad escape in a string";
      }
    }
    *value = *scratch;
    return nullptr;
  }

  const char* Number(std::string_view* raw) {
    const size_t begin = i_;
    auto digits = [&]() {
      const size_t d = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      return i_ > d;
    };
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else if (!digits()) {
      return "a bad number";
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits()) return "a bad number";
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits()) return "a bad number";
    }
    *raw = s_.substr(begin, i_ - begin);
    return nullptr;
  }

  bool Literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  // An object or array at the cursor: its raw text (validated later by the JSON parser).
  const char* Nested(std::string_view* raw) {
    const size_t begin = i_;
    int depth = 0;
    bool in_string = false;
    for (; i_ < s_.size(); ++i_) {
      const char c = s_[i_];
      if (in_string) {
        if (c == '\\') {
          ++i_;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"') {
        in_string = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxDepth) return "JSON nested more than 256 levels deep";
      } else if (c == ']' || c == '}') {
        if (--depth == 0) {
          ++i_;
          *raw = s_.substr(begin, i_ - begin);
          return nullptr;
        }
      }
    }
    return "an object or array is not closed";
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

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
    return Status::InvalidArgument("key '" + std::string(key) +
                                   "' is not a column of the target schema")
        .WithField("code", "column_undeclared")
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
      return Status::InvalidArgument("row " + std::to_string(row) + " has no key '" + field.name +
                                     "', a NOT NULL column")
          .WithField("code", "column_missing")
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
