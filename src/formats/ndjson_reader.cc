#include "formats/ndjson_reader.h"

#include <cstring>

#include "formats/error_codes.h"
#include "formats/json_append.h"
#include "formats/json_scan.h"

namespace tarn::formats {

namespace {

constexpr size_t kReadChunk = 1 << 20;
constexpr size_t kMaxLineBytes = 256u << 20;
constexpr size_t kMaxBatchBytes = 32u << 20;
using internal::LineScanner;

inline bool IsWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

}  // namespace

Status AppendJsonText(std::string_view text, Column* out) {
  internal::JsonAppender appender;
  LineScanner sc(text);
  if (!appender.Append(sc, out, /*nullable=*/true)) {
    if (appender.failure() == internal::JsonAppender::Failure::kMalformed) {
      return Status::InvalidArgument("invalid JSON: " + appender.message());
    }
    return Status::InvalidArgument(appender.message());
  }
  if (!sc.AtEnd()) return Status::InvalidArgument("invalid JSON: text after the value");
  return Status::OK();
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
      if (!values_.Append(sc, &(*cols)[t], field.nullable)) {
        if (values_.failure() == internal::JsonAppender::Failure::kMalformed) {
          return malformed(values_.message());
        }
        return internal::ValueNotCastable(field.name, row, values_.value(), values_.message());
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
