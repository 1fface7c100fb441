// Streaming CSV reader (RFC 4180): quoted fields with "" escapes and embedded newlines, CRLF or
// LF line ends, a leading UTF-8 BOM skipped, blank lines skipped, a missing final newline
// accepted. Values are parsed straight from the input block into column buffers in the
// target's types (types/value_text.h); only quoted fields with "" escapes are rewritten, in
// place.
//
// Nulls: an empty unquoted field and unquoted `null` / `NULL`. A quoted "" is an empty string.
// ARRAY columns take JSON array text ("[1,2]"). Errors as described in formats/format.h; a row
// whose field count differs from the header's is format_unreadable naming the row.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "formats/decompress.h"
#include "formats/format.h"
#include "formats/reader_common.h"

namespace tarn::formats {

struct CsvOptions {
  std::optional<char> delimiter;  // unset: detected from the first line
  bool header = true;
  int64_t batch_rows = 65536;
};

class CsvReader final : public BatchReader {
 public:
  // Reads the header (and detects the delimiter). `name` is used in messages.
  static Result<std::unique_ptr<CsvReader>> Open(std::unique_ptr<InputStream> input,
                                                 std::string name, const Schema& target,
                                                 const CsvOptions& options);
  Result<std::optional<RecordBatch>> Next() override;

  char delimiter() const { return delim_; }
  // The input's column names (the header, or the target's names without one).
  const std::vector<std::string>& column_names() const { return names_; }

  ~CsvReader() override;

 private:
  // A field of the current batch: bytes [start, start+len) of buf_, inside the quotes for a
  // quoted field.
  struct FieldRef {
    uint32_t start;
    uint32_t len : 30;
    uint32_t quoted : 1;
    uint32_t escaped : 1;  // holds "" pairs still to be collapsed
  };
  enum class Scan { kRecord, kBlank, kNeedMore, kEnd };

  CsvReader() = default;
  Status ReadMore();
  Result<Scan> ScanRecord(int* nfields);
  std::string_view Text(FieldRef* f);
  bool IsNull(const FieldRef& f) const;
  // Converts input column `c` of the batch's `n` rows into `out` (of field `t`); on a bad
  // value returns its error and sets *bad_row (0-based in the batch).
  Status ConvertColumn(int t, int c, int64_t n, Column* out, int64_t* bad_row);
  template <typename T, typename Parse>
  Status ConvertFixed(int t, int c, int64_t n, Column* out, int64_t* bad_row, Parse parse);
  Status ConvertVariable(int t, int c, int64_t n, Column* out, int64_t* bad_row);
  Status ConvertGeneric(int t, int c, int64_t n, Column* out, int64_t* bad_row);
  Status BadValue(int t, int64_t r, std::string_view text, std::string_view why) const;

  std::unique_ptr<InputStream> input_;
  std::string name_;
  Schema target_;
  internal::ColumnMapping mapping_;
  std::vector<std::string> names_;
  char delim_ = ',';
  int64_t batch_rows_ = 65536;
  int ncols_ = 0;
  bool special_[256] = {};

  ByteBuffer buf_;
  size_t pos_ = 0;  // next unread byte of buf_
  size_t end_ = 0;  // bytes of buf_ holding input
  bool eof_ = false;
  bool done_ = false;
  int64_t rows_before_ = 0;  // data rows returned in earlier batches
  std::vector<FieldRef> fields_;
};

}  // namespace tarn::formats
