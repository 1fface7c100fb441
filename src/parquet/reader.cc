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
  std::atomic<int64_t>* pages_read;
  std::atomic<int64_t>* pages_skipped;
};

// Page indexes larger than this are not read (a tarn file's is a few bytes per page).
constexpr int64_t kMaxPageIndexBytes = int64_t{64} << 20;
// Index ranges closer than this are read together.
constexpr int64_t kPageIndexGap = int64_t{64} << 10;

// A byte range of the file to read, and where its bytes land.
struct Span {
  int64_t begin = 0, end = 0;
  size_t at = 0;  // offset in the buffer holding it
};

// Reads `spans` (sorted by begin; they may overlap) into *buf, one ranged read per run of spans
// at most `gap` bytes apart; sets each span's `at`.
Status ReadSpans(const RandomAccessFile& file, std::vector<Span>& spans, int64_t gap,
                 ByteBuffer* buf) {
  buf->clear();
  for (size_t i = 0; i < spans.size();) {
    int64_t end = spans[i].end;
    size_t j = i + 1;
    for (; j < spans.size() && spans[j].begin - end <= gap; ++j) end = std::max(end, spans[j].end);
    const int64_t begin = spans[i].begin;
    const size_t at = buf->size();
    buf->resize(at + static_cast<size_t>(end - begin));
    TARN_RETURN_NOT_OK(file.ReadAt(static_cast<uint64_t>(begin), static_cast<size_t>(end - begin),
                                   buf->data() + at));
    for (size_t k = i; k < j; ++k) spans[k].at = at + static_cast<size_t>(spans[k].begin - begin);
    i = j;
  }
  return Status::OK();
}

Result<std::vector<ChunkPageIndex>> ReadPageIndexImpl(
    const RandomAccessFile& file, const FileMetaData& md,
    const std::vector<std::pair<int, int>>& chunks, bool with_column_index) {
  const int64_t data_end = static_cast<int64_t>(file.Size()) - 8;
  // Spans to read: per chunk, offset index (2k) and column index (2k + 1).
  std::vector<Span> wanted(chunks.size() * 2);
  std::vector<size_t> order;
  auto want = [&](size_t slot, const std::optional<int64_t>& off,
                  const std::optional<int32_t>& len) {
    if (!off || !len || *off < 4 || *len <= 0 || *len > kMaxPageIndexBytes || *off > data_end ||
        *len > data_end - *off) {
      return;
    }
    wanted[slot] = {*off, *off + *len, 0};
    order.push_back(slot);
  };
  for (size_t k = 0; k < chunks.size(); ++k) {
    const auto [g, leaf] = chunks[k];
    if (g < 0 || static_cast<size_t>(g) >= md.row_groups.size() || leaf < 0 ||
        static_cast<size_t>(leaf) >= md.row_groups[g].columns.size()) {
      return Status::InvalidArgument("no column chunk " + std::to_string(leaf) + " in row group " +
                                     std::to_string(g));
    }
    const ColumnChunk& cc = md.row_groups[g].columns[leaf];
    want(2 * k, cc.offset_index_offset, cc.offset_index_length);
    if (with_column_index && cc.offset_index_offset) {
      want(2 * k + 1, cc.column_index_offset, cc.column_index_length);
    }
  }
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return wanted[a].begin < wanted[b].begin; });
  std::vector<Span> spans;
  std::vector<size_t> span_of(wanted.size(), SIZE_MAX);
  for (size_t slot : order) {
    span_of[slot] = spans.size();
    spans.push_back(wanted[slot]);
  }
  ByteBuffer buf;
  std::vector<ChunkPageIndex> out(chunks.size());
  Status st = ReadSpans(file, spans, kPageIndexGap, &buf);
  if (!st.ok()) return st.WithContext(file.name() + ": reading the page index");
  for (size_t k = 0; k < chunks.size(); ++k) {
    const auto [g, leaf] = chunks[k];
    const RowGroup& rg = md.row_groups[g];
    const ColumnChunk& cc = rg.columns[leaf];
    if (span_of[2 * k] == SIZE_MAX || !cc.meta_data) continue;
    const Span& os = spans[span_of[2 * k]];
    auto oi = DecodeOffsetIndex(buf.data() + os.at, static_cast<size_t>(os.end - os.begin));
    if (!oi.ok()) continue;
    const int64_t start = ChunkStart(*cc.meta_data);
    if (!ValidateOffsetIndex(*oi, rg.num_rows, start, start + cc.meta_data->total_compressed_size)
             .ok()) {
      continue;
    }
    if (span_of[2 * k + 1] != SIZE_MAX) {
      const Span& cs = spans[span_of[2 * k + 1]];
      auto ci = DecodeColumnIndex(buf.data() + cs.at, static_cast<size_t>(cs.end - cs.begin));
      if (ci.ok() && ValidateColumnIndex(*ci, oi->page_locations.size()).ok()) {
        out[k].column_index = std::move(ci).value();
      }
    }
    out[k].offset_index = std::move(oi).value();
  }
  return out;
}

bool WholeGroup(const std::vector<RowRange>& ranges, int64_t num_rows) {
  return ranges.size() == 1 && ranges[0].begin == 0 && ranges[0].end == num_rows;
}

// Appends to *out the rows of `ranges` from `decoded`, which holds the rows of `held` (ranges of
// the row group, in order, covering every range) one after the other.
void AppendSelected(const Column& decoded, const std::vector<RowRange>& held,
                    const std::vector<RowRange>& ranges, Column* out) {
  int64_t slice_begin = -1, slice_end = -1;  // the pending slice of `decoded`
  int64_t pos = 0;                           // where held[h] starts in `decoded`
  size_t r = 0;
  for (const RowRange& h : held) {
    while (r < ranges.size() && ranges[r].end <= h.begin) ++r;
    for (size_t q = r; q < ranges.size() && ranges[q].begin < h.end; ++q) {
      const int64_t b = pos + std::max(ranges[q].begin, h.begin) - h.begin;
      const int64_t e = pos + std::min(ranges[q].end, h.end) - h.begin;
      if (b == slice_end) {
        slice_end = e;
      } else {
        if (slice_end > slice_begin) out->AppendRows(decoded, slice_begin, slice_end);
        slice_begin = b;
        slice_end = e;
      }
    }
    pos += h.end - h.begin;
  }
  if (slice_end > slice_begin) out->AppendRows(decoded, slice_begin, slice_end);
}

// Reads the pages of one chunk that hold rows of `ranges` (with its head: the dictionary page)
// and decodes them into *tmp; *held gets the rows they hold.
Status ReadSelectedPages(const ReadRequest& req, const RowGroup& rg, const ColumnMetaData& m,
                         const OffsetIndex& oi, const std::vector<RowRange>& ranges,
                         const LeafColumn& leaf, const LeafPlan& plan, Column* tmp,
                         std::vector<RowRange>* held, DecodeScratch* scratch) {
  const std::vector<size_t> pages = PagesForRanges(oi, rg.num_rows, ranges);
  req.pages_skipped->fetch_add(static_cast<int64_t>(oi.page_locations.size() - pages.size()));
  std::vector<Span> spans;
  const int64_t start = ChunkStart(m);
  const int64_t first = oi.page_locations[0].offset;
  if (first > start) spans.push_back({start, first, 0});
  for (size_t p : pages) {
    const PageLocation& l = oi.page_locations[p];
    spans.push_back({l.offset, l.offset + l.compressed_page_size, 0});
  }
  TARN_RETURN_NOT_OK(ReadSpans(*req.file, spans, 0, &scratch->chunk));
  const uint8_t* base = scratch->chunk.data();
  const size_t head = first > start ? 1 : 0;
  std::vector<PageSpan> page_spans;
  held->clear();
  for (size_t i = 0; i < pages.size(); ++i) {
    const Span& sp = spans[head + i];
    const RowRange rows = PageRows(oi, pages[i], rg.num_rows);
    page_spans.push_back(
        {base + sp.at, static_cast<size_t>(sp.end - sp.begin), rows.end - rows.begin, pages[i]});
    held->push_back(rows);
  }
  const uint8_t* head_data = head ? base + spans[0].at : nullptr;
  const size_t head_len = head ? static_cast<size_t>(spans[0].end - spans[0].begin) : 0;
  return DecodeColumnPages(head_data, head_len, page_spans, m, leaf, plan, tmp, scratch);
}

// The top-level fields `fields` names (empty: every field tarn can read).
Result<std::vector<int>> SelectFields(const ReadRequest& req, const std::vector<int>& fields) {
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
  return selected;
}

// Reads `groups` (with their rows in `selection`, or whole when it is null) concatenated.
// A group read in part is decoded into a column of its own and cut to the selected rows: a
// one-leaf field decodes only the pages holding them (through the offset index, when the file
// has one); a field of several leaves (STRUCT, MAP) decodes its chunks whole, as its leaves'
// pages start at different rows.
Result<RecordBatch> ReadRowGroups(const ReadRequest& req, const std::vector<int>& groups,
                                  const std::vector<int>& fields,
                                  const RowSelection* selection = nullptr) {
  const ParquetSchema& ps = *req.ps;
  const std::string& name = req.file->name();
  TARN_ASSIGN_OR_RETURN(const std::vector<int> selected, SelectFields(req, fields));
  RecordBatch batch;
  int64_t total_rows = 0;
  for (int g : groups) {
    if (selection == nullptr) {
      total_rows += req.md->row_groups[g].num_rows;
    } else {
      for (const RowRange& r : (*selection)[g]) total_rows += r.end - r.begin;
    }
  }
  batch.num_rows = total_rows;
  const int n = static_cast<int>(selected.size());
  auto single_leaf = [&](int k) { return ps.field_leaves[selected[k]].size() == 1; };
  // Groups read in part: the offset indexes of their one-leaf fields' chunks, all read at once.
  std::vector<bool> partial(groups.size(), false);
  std::vector<std::vector<int>> index_slot(groups.size(), std::vector<int>(n, -1));
  std::vector<std::pair<int, int>> partial_chunks;
  if (selection != nullptr) {
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const int g = groups[gi];
      if (WholeGroup((*selection)[g], req.md->row_groups[g].num_rows)) continue;
      partial[gi] = true;
      for (int k = 0; k < n; ++k) {
        if (!single_leaf(k)) continue;
        index_slot[gi][k] = static_cast<int>(partial_chunks.size());
        partial_chunks.emplace_back(g, ps.field_leaves[selected[k]][0]);
      }
    }
  }
  std::vector<ChunkPageIndex> partial_index;
  if (!partial_chunks.empty()) {
    TARN_ASSIGN_OR_RETURN(partial_index,
                          ReadPageIndexImpl(*req.file, *req.md, partial_chunks, false));
  }
  batch.schema.fields.reserve(n);
  batch.columns.reserve(n);
  // One task per leaf column: a STRUCT or MAP field is decoded by several, each into the
  // columns of the batch column it owns (DecodeColumnChunk).
  struct LeafTask {
    int column;  // in the batch
    int leaf;    // in ps.leaves
    LeafPlan plan;
  };
  std::vector<LeafTask> tasks;
  // The partly read groups of fields of several leaves: [column][group] decoded whole, cut
  // after every leaf is in.
  std::vector<std::vector<Column>> whole(n);
  for (int k = 0; k < n; ++k) {
    const Field& field = ps.schema.fields[selected[k]];
    for (int leaf_index : ps.field_leaves[selected[k]]) {
      const LeafColumn& leaf = ps.leaves[leaf_index];
      auto plan = PlanLeaf(req.md->schema[leaf.schema_index], leaf, LeafTypeOf(field.type, leaf));
      if (!plan.ok()) {
        return plan.status().WithContext(name + ": column '" + JoinPath(leaf.path) + "'");
      }
      tasks.push_back({k, leaf_index, std::move(plan).value()});
    }
    batch.schema.fields.push_back(field);
    batch.columns.emplace_back(field.type);
    if (!single_leaf(k) && selection != nullptr) {
      for (size_t gi = 0; gi < groups.size(); ++gi) whole[k].emplace_back(field.type);
    }
  }

  const int ntasks = static_cast<int>(tasks.size());
  std::vector<Status> status(ntasks);
  std::vector<DecodeScratch> scratches(
      static_cast<size_t>(std::max(1, std::min(req.options->threads, ntasks))));
  ParallelFor(ntasks, req.options->threads, [&](int t, int worker) {
    DecodeScratch& scratch = scratches[worker];
    const int k = tasks[t].column;
    const int leaf_index = tasks[t].leaf;
    const LeafColumn& leaf = ps.leaves[leaf_index];
    const LeafPlan& plan = tasks[t].plan;
    Column* out = &batch.columns[k];
    // Reserve from the metadata (capped: it is untrusted).
    int64_t values = 0, bytes = 0;
    for (int g : groups) {
      const ColumnMetaData& m = *req.md->row_groups[g].columns[leaf_index].meta_data;
      values += m.num_values;
      bytes += m.total_uncompressed_size;
    }
    Column* leaf_col = out;
    for (size_t i = 1; i < leaf.nodes.size(); ++i) {
      leaf_col = leaf.nodes[i - 1].kind == PathNode::Kind::kList
                     ? leaf_col->child.get()
                     : &leaf_col->members[static_cast<size_t>(leaf.nodes[i].member)];
    }
    values = std::min(values, kMaxReserveValues);
    if (plan.out_width > 0) {
      leaf_col->data.reserve(static_cast<size_t>(values) * plan.out_width);
    } else {
      leaf_col->offsets.reserve(static_cast<size_t>(values) + 1);
      leaf_col->data.reserve(static_cast<size_t>(std::clamp<int64_t>(bytes, 0, kMaxReserveBytes)));
    }
    auto read_chunk = [&](const RowGroup& rg, const ColumnMetaData& m, Column* into) {
      const size_t len = static_cast<size_t>(m.total_compressed_size);
      scratch.chunk.resize(len);
      TARN_RETURN_NOT_OK(
          req.file->ReadAt(static_cast<uint64_t>(ChunkStart(m)), len, scratch.chunk.data()));
      return DecodeColumnChunk(scratch.chunk.data(), len, m, rg.num_rows, leaf, plan, into,
                               &scratch);
    };
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const int g = groups[gi];
      const RowGroup& rg = req.md->row_groups[g];
      const ColumnMetaData& m = *rg.columns[leaf_index].meta_data;
      if (EmptyChunk(rg, m)) continue;  // no rows, no pages (Validate checked nothing else)
      Status st;
      // Counts in the metadata and runs in the pages may legitimately expand a small file into
      // a large batch; one that cannot be allocated is an error for this read, not a crash.
      try {
        if (!partial[gi]) {
          st = read_chunk(rg, m, out);
        } else if (!single_leaf(k)) {
          st = read_chunk(rg, m, &whole[k][gi]);
        } else {
          // Decoded into a column of its own, then cut to the selected rows.
          const std::vector<RowRange>& ranges = (*selection)[g];
          const ChunkPageIndex& pi = partial_index[index_slot[gi][k]];
          Column tmp(out->type);
          std::vector<RowRange> held;
          if (pi.offset_index) {
            st = ReadSelectedPages(req, rg, m, *pi.offset_index, ranges, leaf, plan, &tmp, &held,
                                   &scratch);
          } else {
            st = read_chunk(rg, m, &tmp);
            held.push_back({0, rg.num_rows});
          }
          if (st.ok()) AppendSelected(tmp, held, ranges, out);
        }
      } catch (const std::bad_alloc&) {
        st = Status::TooLarge("out of memory decoding the column chunk");
      } catch (const std::length_error&) {
        st = Status::TooLarge("the column chunk decodes to more than a buffer can hold");
      }
      if (!st.ok()) {
        status[t] = st.WithContext(name + ": row group " + std::to_string(g) + ", column '" +
                                   JoinPath(leaf.path) + "'");
        return;
      }
    }
  });
  int64_t pages = 0;
  for (const DecodeScratch& sc : scratches) pages += sc.data_pages;
  req.pages_read->fetch_add(pages);
  for (auto& st : status) {
    if (!st.ok()) return st;
  }
  for (int k = 0; k < n; ++k) {
    if (single_leaf(k)) continue;
    const std::string context = name + ": field '" + ps.schema.fields[selected[k]].name + "'";
    Status checked = CheckAssembled(batch.columns[k]);
    if (!checked.ok()) return checked.WithContext(context);
    if (selection == nullptr) continue;
    // Groups read whole went straight to the batch; partly read ones are cut now, in order.
    Column out(batch.columns[k].type);
    int64_t at = 0;  // rows of the whole groups consumed from batch.columns[k]
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const int g = groups[gi];
      const int64_t rows = req.md->row_groups[g].num_rows;
      if (!partial[gi]) {
        if (at + rows > batch.columns[k].length) {
          return Status::Corruption("row group " + std::to_string(g) + " decoded to fewer rows " +
                                    "than it holds").WithContext(context);
        }
        out.AppendRows(batch.columns[k], at, at + rows);
        at += rows;
        continue;
      }
      Status st = CheckAssembled(whole[k][gi]);
      if (st.ok() && whole[k][gi].length != rows) {
        st = Status::Corruption("row group " + std::to_string(g) + " decoded to " +
                                std::to_string(whole[k][gi].length) + " rows, not " +
                                std::to_string(rows));
      }
      if (!st.ok()) return st.WithContext(context);
      AppendSelected(whole[k][gi], {{0, rows}}, (*selection)[g], &out);
      whole[k][gi] = Column();
    }
    batch.columns[k] = std::move(out);
  }
  return batch;
}

// A row group of more than a batch, being read batch by batch (BatchReader).
struct StreamedGroup {
  int group = -1;
  int64_t rows = 0, start = 0;  // its rows, and the first not yet handed over
  std::vector<std::unique_ptr<FlatChunkStream>> streams;  // per batch column; null for `whole`
  std::vector<int> stream_of;                             // batch column of each stream
  std::vector<const LeafColumn*> leaf_of;                 // per batch column, streams only
  std::vector<int> whole_of;                              // batch column of each whole field
  RecordBatch whole;  // the fields of several leaves, decoded whole, cut per batch

  int64_t data_pages() const {
    int64_t pages = 0;
    for (int k : stream_of) pages += streams[k]->data_pages();
    return pages;
  }
};

// Opens row group `g` for streaming: the chunks of its flat fields read (each decoded a few
// pages at a time later), its other fields decoded whole. `selected`: SelectFields's.
Status OpenStreamedGroup(const ReadRequest& req, int g, const std::vector<int>& selected,
                         StreamedGroup* out) {
  const ParquetSchema& ps = *req.ps;
  const std::string& name = req.file->name();
  const RowGroup& rg = req.md->row_groups[g];
  const int n = static_cast<int>(selected.size());
  StreamedGroup& sg = *out;
  sg = StreamedGroup();
  sg.group = g;
  sg.rows = rg.num_rows;
  sg.streams.resize(static_cast<size_t>(n));
  sg.leaf_of.assign(static_cast<size_t>(n), nullptr);
  std::vector<int> whole_fields;
  for (int k = 0; k < n; ++k) {
    const Field& field = ps.schema.fields[selected[k]];
    const std::vector<int>& leaves = ps.field_leaves[selected[k]];
    if (leaves.size() != 1 || ps.leaves[leaves[0]].nodes.size() != 1) {
      sg.whole_of.push_back(k);
      whole_fields.push_back(selected[k]);
      continue;
    }
    const LeafColumn& leaf = ps.leaves[leaves[0]];
    sg.leaf_of[k] = &leaf;
    const std::string context =
        name + ": row group " + std::to_string(g) + ", column '" + JoinPath(leaf.path) + "'";
    auto plan = PlanLeaf(req.md->schema[leaf.schema_index], leaf, LeafTypeOf(field.type, leaf));
    if (!plan.ok()) return plan.status().WithContext(context);
    const ColumnMetaData& m = *rg.columns[leaves[0]].meta_data;
    ByteBuffer chunk;
    try {
      chunk.resize(static_cast<size_t>(m.total_compressed_size));
    } catch (const std::bad_alloc&) {
      return Status::TooLarge("out of memory reading the column chunk").WithContext(context);
    }
    TARN_RETURN_NOT_OK(
        req.file->ReadAt(static_cast<uint64_t>(ChunkStart(m)), chunk.size(), chunk.data()));
    TARN_ASSIGN_OR_RETURN(sg.streams[k],
                          FlatChunkStream::Make(std::move(chunk), m, rg.num_rows, leaf, *plan));
    sg.stream_of.push_back(k);
  }
  if (!whole_fields.empty()) {
    TARN_ASSIGN_OR_RETURN(sg.whole, ReadRowGroups(req, {g}, whole_fields));
  }
  return Status::OK();
}

// The next `batch_rows` rows (or fewer, at its end) of a streamed row group.
Result<RecordBatch> NextOfGroup(const ReadRequest& req, const std::vector<int>& selected,
                                int64_t batch_rows, StreamedGroup* sg) {
  const ParquetSchema& ps = *req.ps;
  const int n = static_cast<int>(selected.size());
  const int64_t rows = std::min(batch_rows, sg->rows - sg->start);
  RecordBatch batch;
  batch.num_rows = rows;
  batch.columns.resize(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) batch.schema.fields.push_back(ps.schema.fields[selected[k]]);
  std::vector<Status> results(sg->stream_of.size());
  ParallelFor(static_cast<int>(sg->stream_of.size()), req.options->threads, [&](int t, int) {
    const int k = sg->stream_of[t];
    try {
      results[t] = sg->streams[k]->Next(rows, &batch.columns[k]);
    } catch (const std::bad_alloc&) {
      results[t] = Status::TooLarge("out of memory decoding the column chunk");
    } catch (const std::length_error&) {
      results[t] = Status::TooLarge("the column chunk decodes to more than a buffer can hold");
    }
    if (!results[t].ok()) {
      results[t] =
          results[t].WithContext(req.file->name() + ": row group " + std::to_string(sg->group) +
                                 ", column '" + JoinPath(sg->leaf_of[k]->path) + "'");
    }
  });
  for (Status& st : results) {
    if (!st.ok()) return st;
  }
  for (size_t j = 0; j < sg->whole_of.size(); ++j) {
    Column& c = batch.columns[sg->whole_of[j]];
    c = Column(sg->whole.columns[j].type);
    c.AppendRows(sg->whole.columns[j], sg->start, sg->start + rows);
  }
  sg->start += rows;
  return batch;
}

}  // namespace

struct BatchReader::State {
  State(const FileReader& r, ReadRequest q, std::vector<int> f, std::vector<int> sel, int64_t rows)
      : reader(r), req(q), fields(std::move(f)), selected(std::move(sel)), batch_rows(rows) {}
  const FileReader& reader;
  ReadRequest req;
  std::vector<int> fields, selected;
  int64_t batch_rows = 0;
  int next_group = 0;       // the first row group not yet begun
  bool whole_done = false;  // batch_rows <= 0: the one batch was handed over
  std::optional<StreamedGroup> streamed;
};

BatchReader::BatchReader(std::unique_ptr<State> s) : s_(std::move(s)) {}

BatchReader::~BatchReader() {
  if (s_ && s_->streamed) s_->req.pages_read->fetch_add(s_->streamed->data_pages());
}

Result<std::unique_ptr<BatchReader>> FileReader::Batches(const std::vector<int>& fields,
                                                         int64_t batch_rows) const {
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_, &pages_read_, &pages_skipped_};
  TARN_ASSIGN_OR_RETURN(std::vector<int> selected, SelectFields(req, fields));
  auto s =
      std::make_unique<BatchReader::State>(*this, req, fields, std::move(selected), batch_rows);
  return std::unique_ptr<BatchReader>(new BatchReader(std::move(s)));
}

Result<std::optional<RecordBatch>> BatchReader::Next() {
  State& s = *s_;
  const FileMetaData& md = *s.req.md;
  if (s.batch_rows <= 0) {
    if (s.whole_done) return std::optional<RecordBatch>();
    s.whole_done = true;
    TARN_ASSIGN_OR_RETURN(RecordBatch all, s.reader.ReadAll(s.fields));
    return std::optional<RecordBatch>(std::move(all));
  }
  for (;;) {
    if (s.streamed) {
      if (s.streamed->start < s.streamed->rows) {
        TARN_ASSIGN_OR_RETURN(RecordBatch b,
                              NextOfGroup(s.req, s.selected, s.batch_rows, &*s.streamed));
        return std::optional<RecordBatch>(std::move(b));
      }
      s.req.pages_read->fetch_add(s.streamed->data_pages());
      s.streamed.reset();
    }
    const int groups = static_cast<int>(md.row_groups.size());
    // Row groups that fit in one batch together; a larger one is streamed.
    std::vector<int> together;
    int64_t together_rows = 0;
    while (s.next_group < groups) {
      const int64_t rows = md.row_groups[s.next_group].num_rows;
      if (rows == 0) {
        ++s.next_group;
        continue;
      }
      if (rows > s.batch_rows || together_rows + rows > s.batch_rows) break;
      together.push_back(s.next_group++);
      together_rows += rows;
    }
    if (!together.empty()) {
      TARN_ASSIGN_OR_RETURN(RecordBatch b, ReadRowGroups(s.req, together, s.fields));
      return std::optional<RecordBatch>(std::move(b));
    }
    if (s.next_group >= groups) return std::optional<RecordBatch>();
    s.streamed.emplace();
    const int g = s.next_group++;
    Status opened = OpenStreamedGroup(s.req, g, s.selected, &*s.streamed);
    if (!opened.ok()) {
      s.streamed.reset();
      return opened;
    }
  }
}

Status FileReader::ReadBatches(const std::vector<int>& fields, int64_t batch_rows,
                               const std::function<Status(RecordBatch&&)>& fn) const {
  TARN_ASSIGN_OR_RETURN(std::unique_ptr<BatchReader> batches, Batches(fields, batch_rows));
  for (;;) {
    TARN_ASSIGN_OR_RETURN(std::optional<RecordBatch> b, batches->Next());
    if (!b) return Status::OK();
    TARN_RETURN_NOT_OK(fn(std::move(*b)));
  }
}

Result<RecordBatch> FileReader::ReadRowGroup(int row_group, const std::vector<int>& fields) const {
  if (row_group < 0 || row_group >= num_row_groups()) {
    return Status::InvalidArgument(file_->name() + ": row group " + std::to_string(row_group) +
                                   " out of range (the file has " +
                                   std::to_string(num_row_groups()) + ")");
  }
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_, &pages_read_, &pages_skipped_};
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
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_, &pages_read_, &pages_skipped_};
  return ReadRowGroups(req, row_groups, fields);
}

Result<RecordBatch> FileReader::ReadAll(const std::vector<int>& fields) const {
  std::vector<int> groups(metadata_.row_groups.size());
  for (size_t g = 0; g < groups.size(); ++g) groups[g] = static_cast<int>(g);
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_, &pages_read_, &pages_skipped_};
  return ReadRowGroups(req, groups, fields);
}

Result<RecordBatch> FileReader::ReadRows(const RowSelection& rows,
                                         const std::vector<int>& fields) const {
  if (rows.size() != metadata_.row_groups.size()) {
    return Status::InvalidArgument(file_->name() + ": a row selection for " +
                                   std::to_string(rows.size()) + " row groups, the file has " +
                                   std::to_string(metadata_.row_groups.size()));
  }
  std::vector<int> groups;
  for (size_t g = 0; g < rows.size(); ++g) {
    int64_t prev_end = 0;
    for (const RowRange& r : rows[g]) {
      if (r.begin < prev_end || r.end <= r.begin || r.end > metadata_.row_groups[g].num_rows) {
        return Status::InvalidArgument(file_->name() + ": row group " + std::to_string(g) +
                                       ": rows [" + std::to_string(r.begin) + ", " +
                                       std::to_string(r.end) +
                                       ") are out of order or outside its " +
                                       std::to_string(metadata_.row_groups[g].num_rows) + " rows");
      }
      prev_end = r.end;
    }
    if (rows[g].empty()) {
      groups_skipped_.fetch_add(1);
    } else {
      groups.push_back(static_cast<int>(g));
    }
  }
  ReadRequest req{file_.get(), &metadata_, &schema_, &options_, &pages_read_, &pages_skipped_};
  return ReadRowGroups(req, groups, fields, &rows);
}

Result<std::vector<ChunkPageIndex>> FileReader::ReadPageIndex(
    const std::vector<std::pair<int, int>>& chunks, bool with_column_index) const {
  return ReadPageIndexImpl(*file_, metadata_, chunks, with_column_index);
}

ReadStats FileReader::stats() const {
  ReadStats s;
  s.data_pages_read = pages_read_.load();
  s.data_pages_skipped = pages_skipped_.load();
  s.row_groups_skipped = groups_skipped_.load();
  return s;
}

}  // namespace tarn::parquet
