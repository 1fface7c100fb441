// The Arrow C Data Interface and C Stream Interface over tarn's batches
// (arrow.apache.org/docs/format/CDataInterface.html and CStreamInterface.html): export a Schema,
// a RecordBatch or a stream of batches to any Arrow consumer (pyarrow, Polars, DuckDB), sharing
// tarn's buffers wherever the two layouts agree; import what an Arrow producer hands over,
// copied into tarn Columns. The type mapping, both ways, is one table (ArrowTypeOf, TarnTypeOf;
// the tables of README.md).
//
// Ownership follows the spec: an exported structure belongs to the consumer, who calls its
// `release` once (children moved out of a parent are released by their own callbacks, in any
// order); an imported structure is consumed: Import* release it, on success and on error.
// Nothing here throws across the C boundary: the stream's callbacks catch everything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tarn/column.h"
#include "tarn/data_type.h"
#include "tarn/status.h"

// The spec's structures, verbatim in layout, guarded so they coexist with another definition
// (nanoarrow's, Arrow C++'s abi.h, DuckDB's).
#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

#ifdef __cplusplus
}
#endif

namespace tarn::arrow {

// Field metadata keys tarn writes and reads.
inline constexpr std::string_view kFieldIdKey = "PARQUET:field_id";  // the Iceberg field id
inline constexpr std::string_view kExtensionNameKey = "ARROW:extension:name";
inline constexpr std::string_view kExtensionMetadataKey = "ARROW:extension:metadata";
inline constexpr std::string_view kTarnTypeKey = "tarn:type";  // "IPV4" on a uint32 field

// One level of a type as Arrow names it: the format string and the metadata that completes it.
struct ArrowTypeName {
  std::string format;     // "l", "d:10,2", "tsu:UTC", "+L"
  std::string extension;  // the ARROW:extension:name value ("arrow.uuid"), or empty
  std::string tarn_type;  // the tarn:type value ("IPV4"), or empty
};

// What Export writes for `type`. Nested types name their own level only ("+L", "+s", "+m");
// their nested fields are Arrow children of their own. Every tarn type maps.
ArrowTypeName ArrowTypeOf(const DataType& type);

// What Import reads `name` as. `children` are the nested fields already read: the element of a
// list, the members of a struct, {key, value} of a map (not the entries struct); ignored for
// other formats. An unknown extension name is ignored (its storage type is read), as the spec
// asks of consumers. Errors: kInvalidArgument naming the format for formats tarn does not hold
// (README.md, "Refused").
Result<DataType> TarnTypeOf(const ArrowTypeName& name, std::vector<Field> children);

// Exports `schema` as a struct ("+s") with one child per field: names, the nullable flag, field
// ids as PARQUET:field_id metadata at every level. On error *out is left released
// (release == NULL).
Status ExportSchema(const Schema& schema, ArrowSchema* out);

// Exports `batch` (taken over) as a struct array of its columns. Fixed-width values, VARCHAR /
// BLOB / JSON bytes and offsets, and ARRAY offsets are tarn's own buffers, kept alive by the
// array's private data until its release; validity bitmaps, BOOLEAN values and MAP offsets
// (int32 in Arrow) are converted copies. Errors: kInvalidArgument for a batch whose columns do
// not match its schema or are malformed, or a MAP whose offsets exceed int32. On error *out is
// left released.
Status ExportBatch(RecordBatch batch, ArrowArray* out);

// Exports a pull stream of batches of `schema`: each get_next calls `next` (nullopt ends the
// stream). An error from `next`, or a batch whose column types differ from `schema`, makes
// get_next return EIO, and get_last_error the status's text; the stream stays in that error.
// The stream may be released at any time; releasing it destroys `next`. The callbacks are
// called from one thread at a time (the spec's rule) and never throw.
Status ExportStream(std::function<Result<std::optional<RecordBatch>>()> next, Schema schema,
                    ArrowArrayStream* out);

// The internal reading of one Arrow field (arrow_c.cc).
struct ArrowLayout;

// An imported Arrow schema: the tarn schema and how the Arrow arrays of that schema are laid
// out, which the tarn schema alone does not say ("u" and "U" are both VARCHAR).
struct ImportedSchema {
  Schema schema;
  std::shared_ptr<const ArrowLayout> layout;
};

// Reads a struct ("+s") schema: one tarn field per child, names, nullability, PARQUET:field_id
// at every level (absent: -1). Consumes `schema`: it is released on success and on error.
// Errors: kInvalidArgument naming the field for a type tarn does not hold (README.md), a
// dictionary-encoded field, an empty or repeated (case-insensitively) name, a VARIANT inside a
// nested type, malformed metadata.
Result<ImportedSchema> ImportSchema(ArrowSchema* schema);

// Copies a struct array laid out as `schema` says into a RecordBatch of schema.schema, honouring
// `offset` at every level, null bitmaps (absent = all valid) and null_count -1 (unknown).
// Consumes `array`: released on success and on error. Errors: kInvalidArgument naming the field
// for buffers or children that do not match the layout, offsets out of order or past a child's
// end, a null in a NOT NULL field or a MAP key, a null top-level row, values tarn refuses (text
// that is not UTF-8, JSON that does not parse, Variant bytes that do not decode, a DECIMAL
// beyond its precision, a date64 that is not whole days).
Result<RecordBatch> ImportBatch(ArrowArray* array, const ImportedSchema& schema);
// The same for an array laid out as ExportBatch lays out `schema` (the canonical formats).
Result<RecordBatch> ImportBatch(ArrowArray* array, const Schema& schema);

// Reads `stream` to its end: imports its schema, then calls `fn` with each batch in order
// (zero-row batches too). Consumes the stream: everything it hands over, and the stream itself,
// is released on every path. Errors: a producer's error (get_schema or get_next returned
// non-zero) as kInvalidArgument for EINVAL and kIOError otherwise, with get_last_error's text;
// ImportSchema's and ImportBatch's errors; the first error `fn` returns (the stream is released
// without reading further).
Status ImportStream(ArrowArrayStream* stream, const std::function<Status(RecordBatch)>& fn);

}  // namespace tarn::arrow
