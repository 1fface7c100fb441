#include "parquet/reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "parquet/column_reader.h"

namespace tarn::parquet {
namespace {

constexpr uint64_t kFooterTail = 64 * 1024;
// Reservations made from (untrusted) metadata are capped; past this, buffers grow as decoded.
constexpr int64_t kMaxReserveValues = int64_t{1} << 24;
constexpr int64_t kMaxReserveBytes = int64_t{1} << 28;

std::string JoinPath(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) {
    if (!s.empty()) s += '.';
    s += p;
  }
  return s;
}

int64_t ChunkStart(const ColumnMetaData& m) {
  int64_t start = m.data_page_offset;
  if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 &&
      *m.dictionary_page_offset < start) {
    start = *m.dictionary_page_offset;
  }
  return start;
}

// A column chunk of a row group without rows: nothing to read, wherever its offsets point.
bool EmptyChunk(const RowGroup& rg, const ColumnMetaData& m) {
  return rg.num_rows == 0 && m.num_values == 0;
}

// Checks what later decoding relies on: row groups match the schema's leaves, and every column
// chunk lies inside the file.
Status Validate(const FileMetaData& md, const ParquetSchema& ps, uint64_t file_size) {
  if (md.num_rows < 0)
    return Status::Corruption("negative num_rows " + std::to_string(md.num_rows));
  const int64_t data_end = static_cast<int64_t>(file_size) - 8;
  for (size_t g = 0; g < md.row_groups.size(); ++g) {
    const RowGroup& rg = md.row_groups[g];
    auto where = [&] { return "row group " + std::to_string(g); };
    if (rg.num_rows < 0 || rg.num_rows > INT32_MAX) {
      return Status::Corruption(where() + ": num_rows " + std::to_string(rg.num_rows) +
                                " out of range");
    }
    if (rg.columns.size() != ps.leaves.size()) {
      return Status::Corruption(where() + " has " + std::to_string(rg.columns.size()) +
                                " column chunks, the schema has " +
                                std::to_string(ps.leaves.size()) + " columns");
    }
    for (size_t c = 0; c < rg.columns.size(); ++c) {
      const ColumnChunk& cc = rg.columns[c];
      const LeafColumn& leaf = ps.leaves[c];
      // Error context is built only on failure: this loop runs for every chunk of the file.
      auto col = [&] { return where() + ", column '" + JoinPath(leaf.path) + "'"; };
      if (cc.file_path) {
        return Status::InvalidArgument(col() + ": column data in another file ('" + *cc.file_path +
                                       "') is not supported");
      }
      if (!cc.meta_data) {
        return Status::Corruption(col() + ": column chunk has no metadata (encrypted column?)");
      }
      const ColumnMetaData& m = *cc.meta_data;
      if (m.type != leaf.physical) {
        return Status::Corruption(col() + ": chunk type " + TypeName(m.type) +
                                  " differs from the schema's " + TypeName(leaf.physical));
      }
      if (m.path_in_schema != leaf.path) {
        return Status::Corruption(col() + ": chunk path '" + JoinPath(m.path_in_schema) +
                                  "' differs from the schema");
      }
      if (m.num_values < 0 || m.num_values > INT32_MAX) {
        return Status::Corruption(col() + ": num_values " + std::to_string(m.num_values) +
                                  " out of range");
      }
      // A chunk of no rows has no pages to read: other writers leave its offsets at 0.
      if (EmptyChunk(rg, m)) continue;
      const int64_t start = ChunkStart(m);
      if (start < 4 || m.total_compressed_size < 0 || start > data_end ||
          m.total_compressed_size > data_end - start) {
        return Status::Corruption(col() + ": column chunk at offset " + std::to_string(start) +
                                  " of " + std::to_string(m.total_compressed_size) +
                                  " bytes lies outside the file of " + std::to_string(file_size) +
                                  " bytes");
      }
    }
  }
  return Status::OK();
}

const DataType& LeafType(const DataType& t) {
  const DataType* p = &t;
  while (p->id() == TypeId::kArray) p = &p->element();
  return *p;
}

// Runs task(k, worker) for k in [0, n) on up to `threads` threads (the caller's included);
// `worker` (in [0, threads)) identifies the thread, for per-thread buffers.
template <typename Task>
void ParallelFor(int n, int threads, Task task) {
  const int workers = std::max(1, std::min(threads, n));
  std::atomic<int> next{0};
  auto work = [&](int worker) {
    for (int k = next.fetch_add(1); k < n; k = next.fetch_add(1)) task(k, worker);
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(work, w);
    } catch (const std::system_error&) {
      break;  // fewer threads; the caller's thread still drains the queue
    }
  }
  work(0);
  for (auto& t : pool) t.join();
}

}  // namespace

Result<FileMetaData> FileReader::ReadFooter(const RandomAccessFile& file) {
  const uint64_t size = file.Size();
  const std::string& name = file.name();
  if (size < 12) {
    return Status::Corruption(name + ": not a Parquet file (" + std::to_string(size) +
                              " bytes is too small)");
  }
  const size_t tail = static_cast<size_t>(std::min<uint64_t>(size, kFooterTail));
  ByteBuffer buf(tail);
  Status st = file.ReadAt(size - tail, tail, buf.data());
  if (!st.ok()) return st.WithContext(name + ": reading the footer");
  const uint8_t* end = buf.data() + tail;
  if (std::memcmp(end - 4, "PARE", 4) == 0) {
    return Status::InvalidArgument(name + ": encrypted Parquet files are not supported");
  }
  if (std::memcmp(end - 4, "PAR1", 4) != 0) {
    return Status::Corruption(name + ": not a Parquet file (no PAR1 magic at the end)");
  }
  if (tail == size && std::memcmp(buf.data(), "PAR1", 4) != 0) {
    return Status::Corruption(name + ": not a Parquet file (no PAR1 magic at the start)");
  }
  uint32_t footer_len;
  std::memcpy(&footer_len, end - 8, 4);
  if (footer_len > size - 12) {
    return Status::Corruption(name + ": footer length " + std::to_string(footer_len) +
                              " exceeds the file size " + std::to_string(size));
  }
  const uint8_t* footer;
  ByteBuffer whole;
  if (footer_len + 8 <= tail) {
    footer = end - 8 - footer_len;
  } else {
    whole.resize(footer_len);
    st = file.ReadAt(size - 8 - footer_len, footer_len, whole.data());
    if (!st.ok()) return st.WithContext(name + ": reading the footer");
    footer = whole.data();
  }
  auto md = DecodeFileMetaData(footer, footer_len);
  if (!md.ok()) return md.status().WithContext(name + ": footer");
  if (md->encrypted) {
    return Status::InvalidArgument(name + ": encrypted Parquet files are not supported");
  }
  return md;
}

Result<std::unique_ptr<FileReader>> FileReader::Open(std::shared_ptr<RandomAccessFile> file,
                                                     ReaderOptions options) {
  if (!file) return Status::InvalidArgument("FileReader::Open: no file");
  TARN_ASSIGN_OR_RETURN(FileMetaData md, ReadFooter(*file));
  const std::string& name = file->name();
  if (file->Size() > kFooterTail) {  // ReadFooter saw the start only for small files
    uint8_t head[4];
    Status st = file->ReadAt(0, 4, head);
    if (!st.ok()) return st.WithContext(name);
    if (std::memcmp(head, "PAR1", 4) != 0) {
      return Status::Corruption(name + ": not a Parquet file (no PAR1 magic at the start)");
    }
  }
  auto schema = SchemaFromParquet(md);
  if (!schema.ok()) return schema.status().WithContext(name + ": schema");
  Status st = Validate(md, *schema, file->Size());
  if (!st.ok()) return st.WithContext(name);
  std::unique_ptr<FileReader> reader(new FileReader());
  reader->file_ = std::move(file);
  reader->options_ = options;
  reader->metadata_ = std::move(md);
  reader->schema_ = std::move(schema).value();
  return reader;
}

namespace {

struct ReadRequest {
  const RandomAccessFile* file;
  const FileMetaData* md;
  const ParquetSchema* ps;
  const ReaderOptions* options;
};

Result<RecordBatch> ReadRowGroups(const ReadRequest& req, const std::vector<int>& groups,
                                  const std::vector<int>& fields) {
  const ParquetSchema& ps = *req.ps;
  const std::string& name = req.file->name();
  const int nfields = static_cast<int>(ps.schema.fields.size());
  std::vector<int> selected;
  if (fields.empty()) {
    for (int f = 0; f < nfields; ++f) {
      if (ps.unsupported[f].empty()) {
        selected.push_back(f);
      } else if (!req.options->skip_unsupported) {
        return Status::InvalidArgument(name + ": field '" + ps.schema.fields[f].name +
                                       "' cannot be read: " + ps.unsupported[f]);
      }
    }
  } else {
    for (int f : fields) {
      if (f < 0 || f >= nfields) {
        return Status::InvalidArgument(name + ": field index " + std::to_string(f) +
                                       " out of range (the file has " + std::to_string(nfields) +
                                       " fields)");
      }
      if (!ps.unsupported[f].empty()) {
        return Status::InvalidArgument(name + ": field '" + ps.schema.fields[f].name +
                                       "' cannot be read: " + ps.unsupported[f]);
      }
      selected.push_back(f);
    }
  }

  RecordBatch batch;
  int64_t total_rows = 0;
  for (int g : groups) total_rows += req.md->row_groups[g].num_rows;
  batch.num_rows = total_rows;
  const int n = static_cast<int>(selected.size());
  std::vector<LeafPlan> plans(n);
  batch.schema.fields.reserve(n);
  batch.columns.reserve(n);
  for (int k = 0; k < n; ++k) {
    const Field& field = ps.schema.fields[selected[k]];
    const LeafColumn& leaf = ps.leaves[ps.field_leaves[selected[k]][0]];
    auto plan = PlanLeaf(req.md->schema[leaf.schema_index], leaf, LeafType(field.type));
    if (!plan.ok()) return plan.status().WithContext(name + ": column '" + field.name + "'");
    plans[k] = std::move(plan).value();
    batch.schema.fields.push_back(field);
    batch.columns.emplace_back(field.type);
  }

  std::vector<Status> status(n);
  std::vector<DecodeScratch> scratches(
      static_cast<size_t>(std::max(1, std::min(req.options->threads, n))));
  ParallelFor(n, req.options->threads, [&](int k, int worker) {
    DecodeScratch& scratch = scratches[worker];
    const int f = selected[k];
    const int leaf_index = ps.field_leaves[f][0];
    const LeafColumn& leaf = ps.leaves[leaf_index];
    const LeafPlan& plan = plans[k];
    Column* out = &batch.columns[k];
    // Reserve from the metadata (capped: it is untrusted).
    int64_t values = 0, bytes = 0;
    for (int g : groups) {
      const ColumnMetaData& m = *req.md->row_groups[g].columns[leaf_index].meta_data;
      values += m.num_values;
      bytes += m.total_uncompressed_size;
    }
    Column* leaf_col = out;
    while (leaf_col->child) leaf_col = leaf_col->child.get();
    values = std::min(values, kMaxReserveValues);
    if (plan.out_width > 0) {
      leaf_col->data.reserve(static_cast<size_t>(values) * plan.out_width);
    } else {
      leaf_col->offsets.reserve(static_cast<size_t>(values) + 1);
      leaf_col->data.reserve(static_cast<size_t>(std::clamp<int64_t>(bytes, 0, kMaxReserveBytes)));
    }
    for (int g : groups) {
      const RowGroup& rg = req.md->row_groups[g];
      const ColumnMetaData& m = *rg.columns[leaf_index].meta_data;
      if (EmptyChunk(rg, m)) continue;  // no rows, no pages (Validate checked nothing else)
      const size_t len = static_cast<size_t>(m.total_compressed_size);
      Status st;
      // Counts in the metadata and runs in the pages may legitimately expand a small file into
      // a large batch; one that cannot be allocated is an error for this read, not a crash.
      try {
        scratch.chunk.resize(len);
        st = req.file->ReadAt(static_cast<uint64_t>(ChunkStart(m)), len, scratch.chunk.data());
        if (st.ok()) {
          st = DecodeColumnChunk(scratch.chunk.data(), len, m, rg.num_rows, leaf, plan, out,
                                 &scratch);
        }
      } catch (const std::bad_alloc&) {
        st = Status::TooLarge("out of memory decoding the column chunk");
      } catch (const std::length_error&) {
        st = Status::TooLarge("the column chunk decodes to more than a buffer can hold");
      }
      if (!st.ok()) {
        status[k] = st.WithContext(name + ": row group " + std::to_string(g) + ", column '" +
                                   JoinPath(leaf.path) + "'");
        return;
      }
    }
  });
  for (auto& st : status) {
    if (!st.ok()) return st;
  }
  return batch;
}

}  // namespace

Result<RecordBatch> FileReader::ReadRowGroup(int row_group, const std::vector<int>& fields) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::InvalidArgument(file_->name() + ": row group " + std::to_string(row_group) +
                                   " out of range (the file has " +
                                   std::to_string(num_row_groups()) + ")");
  }
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_};
  return ReadRowGroups(req, {row_group}, fields);
}

Result<RecordBatch> FileReader::ReadRowGroupSubset(const std::vector<int>& row_groups,
                                                   const std::vector<int>& fields) const {
  for (size_t i = 0; i < row_groups.size(); ++i) {
    const int g = row_groups[i];
    if (g < 0 || g >= num_row_groups() || (i > 0 && g <= row_groups[i - 1])) {
      return Status::InvalidArgument(file_->name() +
                                     ": row groups must be ascending indices below " +
                                     std::to_string(num_row_groups()));
    }
  }
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_};
  return ReadRowGroups(req, row_groups, fields);
}

Result<RecordBatch> FileReader::ReadAll(const std::vector<int>& fields) const {
  std::vector<int> groups(metadata_.row_groups.size());
  for (size_t g = 0; g < groups.size(); ++g) groups[g] = static_cast<int>(g);
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_};
  return ReadRowGroups(req, groups, fields);
}

}  // namespace tarn::parquet
