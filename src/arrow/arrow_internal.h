// What the files of src/arrow share: the physical layouts Import reads, the type table's lookup,
// field metadata.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrow/arrow_c.h"

namespace tarn::arrow {

// How the buffers of an Arrow array are read into a tarn Column. Every layout has a validity
// bitmap in buffers[0].
enum class Layout : uint8_t {
  kBoolean,        // "b": a values bitmap
  kFixed,          // values of the tarn type's physical width, taken as they are
  kDecimal32,      // "d:p,s,32": int32, sign-extended to int128
  kDecimal64,      // "d:p,s,64": int64, sign-extended to int128
  kTime32Seconds,  // "tts": int32 seconds -> TIME[us]
  kTime32Millis,   // "ttm": int32 milliseconds -> TIME[us]
  kDate64,         // "tdm": int64 milliseconds -> DATE, whole days only
  kBinary32,       // "u", "z": int32 offsets, bytes
  kBinary64,       // "U", "Z": int64 offsets, bytes
  kBinaryView,     // "vu", "vz": 16-byte views, variadic data buffers, then their int64 sizes
  kFixedBinary,    // "w:N" (not arrow.uuid): N bytes a value -> BLOB
  kList32,         // "+l": int32 offsets into the child
  kList64,         // "+L": int64 offsets into the child
  kFixedList,      // "+w:N": N child values a row
  kStruct,         // "+s"
  kMap,            // "+m": int32 offsets into an entries struct of key and value
  kVariant,        // "+s" with arrow.parquet.variant: metadata and value binaries
};

// One row of the type table as Import finds it: the layout and, for formats that are not
// nested, the tarn type (nested types are built from their children by TypeFromMatch).
struct ArrowMatch {
  Layout layout = Layout::kFixed;
  DataType type;
  int32_t fixed_size = 0;  // kFixedBinary, kFixedList: N
};

// The table's lookup for Import (TarnTypeOf without the children).
Result<ArrowMatch> MatchArrowType(const ArrowTypeName& name);
// The tarn type of a match, given its nested fields (TarnTypeOf's second half).
Result<DataType> TypeFromMatch(const ArrowMatch& match, std::vector<Field> children);

// How ImportBatch reads one field's arrays (ImportSchema builds the tree; the top is the batch's
// struct).
struct ArrowLayout {
  Field field;       // the tarn field (name, type, nullability, id)
  std::string path;  // "a.b.element", for messages
  Layout layout = Layout::kStruct;
  int32_t fixed_size = 0;
  // Where each child is among the Arrow children (of the entries struct, for a map's key and
  // value): a variant's members come in any order.
  int arrow_child = 0;
  // In tarn's order: a list's element; a struct's members; a map's key and value; a variant's
  // metadata and value.
  std::vector<ArrowLayout> children;
};

using Metadata = std::vector<std::pair<std::string, std::string>>;
// The spec's binary encoding: int32 count, then int32 length and bytes of each key and value,
// native endianness. Empty `pairs` encode as "" (exported as a NULL pointer).
std::string EncodeMetadata(const Metadata& pairs);
// Reads the encoding from a producer's pointer (NULL: none). Lengths cannot be bounded by the
// buffer (the spec gives none); negative counts and lengths are kInvalidArgument.
Result<Metadata> DecodeMetadata(const char* metadata);

}  // namespace tarn::arrow
