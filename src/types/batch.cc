#include "types/batch.h"

namespace tarn {

int64_t ColumnBytes(const Column& c) {
  int64_t n =
      static_cast<int64_t>(c.data.size() + c.validity.size() + c.offsets.size() * sizeof(int64_t));
  if (c.child) n += ColumnBytes(*c.child);
  for (const Column& m : c.members) n += ColumnBytes(m);
  return n;
}

int64_t BatchBytes(const RecordBatch& b) {
  int64_t n = 0;
  for (const Column& c : b.columns) n += ColumnBytes(c);
  return n;
}

RecordBatch CloneBatch(const RecordBatch& b) {
  RecordBatch out;
  out.schema = b.schema;
  out.num_rows = b.num_rows;
  out.columns.reserve(b.columns.size());
  for (const Column& c : b.columns) out.columns.push_back(c.Clone());
  return out;
}

}  // namespace tarn
