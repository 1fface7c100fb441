// JSON values appended to columns of their declared type: every value of an NDJSON line, and a
// CSV field holding JSON text for a nested column (AppendJsonText).
//
// Nested columns (ARRAY, STRUCT, MAP, to any depth) are filled while their text is scanned: no
// document is built, numbers keep their text (DECIMAL stays exact at any depth), strings are
// views of the input or of one reused buffer. Only a value kept as text of a JSON or VARCHAR
// column (an object or array there) still goes through nlohmann-json, to be checked and
// compacted.
//
// Rules, at every level:
//   - null is a null; in a NOT NULL column or nested field it is a value failure.
//   - STRUCT from an object: keys matched to members like columns (exact, else the one member
//     equal ignoring ASCII case); a member without a key is null (a failure when NOT NULL); a
//     key that names no member is a value failure (as an undeclared key is for a line); a key
//     given twice is malformed JSON (as in a line).
//   - MAP from an object (keys parsed as the key type, values as the value type) or from an
//     array of {"key": .., "value": ..} objects (how tarn renders a MAP); a key given twice is
//     a value failure.
//   - ARRAY from an array.
//   - a JSON string for a nested column is JSON text: it is parsed as the column's value (how a
//     CSV field reaches a nested column, and double-encoded JSON in NDJSON).
//   - JSON columns keep strings with their quotes, numbers and booleans as written, objects and
//     arrays compacted; VARCHAR columns take strings' values and other values' text; other
//     scalars parse a string's value or a number's or boolean's text (types/value_text.h).
//   - VARIANT columns take any JSON value as it is written (types/variant.h: a string stays a
//     string, it is not parsed again as JSON text).
//   - any other JSON kind for a column (a number for a STRUCT, an object for an INT64) is a
//     value failure naming the kind and the type.
// Nesting deeper than 256 levels is malformed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/json_scan.h"
#include "tarn/column.h"

namespace tarn::formats::internal {

// Not thread-safe; one per reader (it keeps its buffers between values).
class JsonAppender {
 public:
  enum class Failure : uint8_t { kNone, kMalformed, kValue };

  // Appends the value at the cursor of `sc` to `col`; `nullable` says whether null is allowed.
  // On false the columns hold part of the value: the caller discards them. failure() says why.
  bool Append(LineScanner& sc, Column* col, bool nullable);

  Failure failure() const { return failure_; }
  // kMalformed: what is wrong with the JSON. kValue: why the value does not convert, after the
  // path to it inside the column's value when there is one ("items[2].qty: 'x' is not ...").
  std::string message() const;
  // kValue: the text of the value that failed (a key for an unknown member).
  const std::string& value() const { return value_; }

 private:
  bool Value(LineScanner& sc, Column* col, bool nullable, int depth);
  bool Scalar(LineScanner& sc, Column* col, char c, int depth);
  // The raw text of the JSON value starting with `c` (a string with its quotes); false, with
  // the failure recorded, when it is malformed.
  bool RawValue(LineScanner& sc, char c, int depth, std::string_view* raw);
  bool JsonText(LineScanner& sc, Column* col, char c, int depth);
  bool VariantValue(LineScanner& sc, Column* col, char c, int depth);
  bool NestedValue(LineScanner& sc, Column* col, bool nullable, char c, int depth);
  bool Array(LineScanner& sc, Column* col, int depth);
  bool Struct(LineScanner& sc, Column* col, int depth);
  bool MapObject(LineScanner& sc, Column* col, int depth);
  bool MapEntries(LineScanner& sc, Column* col, int depth);
  bool UniqueKeys(const Column& keys, int64_t start);
  // A value of the wrong JSON kind for `col` at the cursor.
  bool WrongKind(LineScanner& sc, const Column& col, char c, int depth);

  bool Malformed(std::string why);
  bool Bad(std::string_view value, std::string why);
  // Adds a step to the path of a value failure below this level; returns false.
  bool InMember(std::string_view name);
  bool InElement(int64_t index);
  bool InMapValue(const Column& keys, int64_t index);

  std::string scratch_;
  std::string key_scratch_;
  std::vector<std::string_view> key_views_;  // the duplicate check of a large MAP
  Failure failure_ = Failure::kNone;
  std::string why_;
  std::string value_;
  std::string path_;
};

}  // namespace tarn::formats::internal
