#include "parquet/column_writer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "parquet/encoding.h"
#include "parquet/schema.h"

namespace tarn::parquet {
namespace {

// Rows handled per step (at most): levels and values of a step go into the same page, so pages
// end on row boundaries and overshoot the target size by at most one step.
constexpr int64_t kStepRows = 4096;
// The dictionary is dropped when, after this many values, more than half were distinct.
constexpr int64_t kDictCheckValues = 16384;
// Dictionary sizes stay far from the int32 counts of page headers.
constexpr int64_t kMaxDictEntries = int64_t{1} << 28;

template <typename V>
using DictFor =
    std::conditional_t<std::is_same_v<V, std::string_view>, BytesDictionary,
                       FixedDictionary<std::conditional_t<sizeof(V) == 8, uint64_t, uint32_t>>>;

template <typename V>
DictFor<V> MakeDict(const PhysicalMapping& pm) {
  if constexpr (std::is_same_v<V, std::string_view>) {
    return BytesDictionary(pm.type == Type::FIXED_LEN_BYTE_ARRAY ? pm.type_length : 0);
  } else {
    return DictFor<V>();
  }
}

// Min/max of a page or chunk in the column's sort order.
template <typename V>
struct ValueStats {
  using UV = typename std::conditional_t<std::is_integral_v<V>, std::make_unsigned<V>,
                                         std::type_identity<V>>::type;
  StatsOrder order = StatsOrder::kSigned;
  MinMax<V> s;
  MinMax<UV> u;

  void Update(const V* v, int64_t n) {
    if (order == StatsOrder::kUnsigned) {
      u.Update(reinterpret_cast<const UV*>(v), n);
    } else {
      s.Update(v, n);
    }
  }
  void Merge(const ValueStats& o) {
    s.Merge(o.s);
    u.Merge(o.u);
  }
  void Reset() {
    s = {};
    u = {};
  }
  Statistics Make(int64_t nulls) const {
    if (order == StatsOrder::kUnsigned) {
      if (!u.has) return MakeNullOnlyStatistics(nulls);
      return MakeStatistics(StatBytes(u.min), StatBytes(u.max), nulls);
    }
    if (!s.has) return MakeNullOnlyStatistics(nulls);
    if constexpr (std::is_floating_point_v<V>) {
      if (s.nan) return MakeNullOnlyStatistics(nulls);
      return MakeFloatStatistics(s.min, s.max, nulls);
    } else {
      return MakeStatistics(StatBytes(s.min), StatBytes(s.max), nulls);
    }
  }
};

template <>
struct ValueStats<std::string_view> {
  StatsOrder order = StatsOrder::kBytes;
  bool byte_array = true;  // BYTE_ARRAY (truncated) rather than FIXED_LEN_BYTE_ARRAY
  BytesMinMax b;

  void Update(const std::string_view* v, int64_t n) {
    b.signed_big_endian = order == StatsOrder::kSignedBigEndian;
    b.Update(v, n);
  }
  void Merge(const ValueStats& o) {
    b.signed_big_endian = order == StatsOrder::kSignedBigEndian;
    b.Merge(o.b);
  }
  void Reset() { b.has = false; }
  Statistics Make(int64_t nulls) const {
    if (!b.has) return MakeNullOnlyStatistics(nulls);
    if (byte_array) return MakeByteArrayStatistics(b.min, b.max, nulls);
    return MakeStatistics(b.min, b.max, nulls);
  }
};

// Copies the non-null values of rows [begin, end) (or of the listed rows, all valid) converted
// by `conv` into out; returns how many.
template <typename Src, typename V, typename F>
int64_t GatherFixed(const Column& c, int64_t begin, int64_t end, const int64_t* idx, int64_t n_idx,
                    V* out, F conv) {
  const Src* src = c.values<Src>();
  if (idx != nullptr) {
    for (int64_t k = 0; k < n_idx; ++k) out[k] = conv(src[idx[k]]);
    return n_idx;
  }
  if (c.validity.empty()) {
    for (int64_t i = begin; i < end; ++i) out[i - begin] = conv(src[i]);
    return end - begin;
  }
  const uint8_t* valid = c.validity.data();
  int64_t k = 0;
  for (int64_t i = begin; i < end; ++i) {
    out[k] = conv(src[i]);
    k += valid[i] != 0;
  }
  return k;
}

template <typename Src, typename V>
int64_t GatherCast(const Column& c, int64_t begin, int64_t end, const int64_t* idx, int64_t n_idx,
                   V* out) {
  return GatherFixed<Src>(c, begin, end, idx, n_idx, out, [](Src x) { return static_cast<V>(x); });
}

// Appends the big-endian two's complement of v in `width` bytes.
inline void PutBigEndian(int128 v, int width, uint8_t* dst) {
  uint128 u = static_cast<uint128>(v);
  for (int b = width - 1; b >= 0; --b) {
    dst[b] = static_cast<uint8_t>(u);
    u >>= 8;
  }
}

// One column on the path from a field down to a leaf column, with the levels it is written at.
struct LevelNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  int member = 0;  // which of the parent's members (STRUCT; MAP: 0 keys, 1 values)
  const Column* col = nullptr;
  uint8_t def_null = 0;   // def level of a null at this node
  uint8_t def_valid = 0;  // leaves: a present value; lists and maps: an empty one
  uint8_t elem_rep = 0;   // lists and maps: rep level of the second and later elements
};

// The path from a field to one of its leaves (the leaf-th in SchemaToParquet's order).
struct LeafPath {
  std::vector<LevelNode> nodes;
  std::vector<std::string> names;  // path_in_schema
  DataType leaf_type;
  uint8_t max_def = 0, max_rep = 0;
};

Result<LeafPath> LeafPathOf(const Field& field, int leaf) {
  LeafPath p;
  p.names.push_back(field.name);
  const DataType* t = &field.type;
  bool nullable = field.nullable;
  uint8_t def = 0, rep = 0;
  int member = 0;
  for (int depth = 0;; ++depth) {
    if (depth > kMaxNesting) {
      return Status::InvalidArgument("field " + field.name + ": nested too deeply");
    }
    t = &StoredShape(*t);
    LevelNode n;
    n.member = member;
    n.def_null = def;
    n.def_valid = static_cast<uint8_t>(def + (nullable ? 1 : 0));
    if (!t->is_nested()) {
      n.kind = LevelNode::Kind::kLeaf;
      p.nodes.push_back(n);
      p.leaf_type = *t;
      p.max_def = n.def_valid;
      p.max_rep = rep;
      return p;
    }
    if (t->id() == TypeId::kStruct || t->id() == TypeId::kMap) {
      // The member holding the leaf.
      const std::vector<Field>& kids = t->children();
      member = 0;
      while (member + 1 < static_cast<int>(kids.size()) && leaf >= LeafCount(kids[member].type)) {
        leaf -= LeafCount(kids[member].type);
        ++member;
      }
      if (t->id() == TypeId::kMap) {
        n.kind = LevelNode::Kind::kMap;
        n.elem_rep = ++rep;
        def = static_cast<uint8_t>(n.def_valid + 1);
        p.names.push_back(kMapRepeatedName);
      } else {
        n.kind = LevelNode::Kind::kStruct;
        def = n.def_valid;
      }
      p.names.push_back(kids[member].name);
      nullable = kids[member].nullable;
      t = &kids[member].type;
    } else {
      n.kind = LevelNode::Kind::kList;
      n.elem_rep = ++rep;
      def = static_cast<uint8_t>(n.def_valid + 1);
      p.names.push_back(kListRepeatedName);
      p.names.push_back(t->element_field().name);
      nullable = t->element_field().nullable;
      t = &t->element();
      member = 0;
    }
    p.nodes.push_back(n);
  }
}

// The parts of a column writer that do not depend on the value type: levels, pages, chunk
// bookkeeping.
class ColumnWriterBase : public ColumnChunkWriter {
 protected:
  ColumnWriterBase(LeafPath path, const ColumnWriterOptions& options, PhysicalMapping pm,
                   Codec codec)
      : options_(options),
        pm_(pm),
        codec_(codec),
        track_stats_(options.write_statistics || options.page_index) {
    page_type_ = options.data_page_version == 2 ? PageType::DATA_PAGE_V2 : PageType::DATA_PAGE;
    path_ = std::move(path.names);
    nodes_ = std::move(path.nodes);
    max_def_ = path.max_def;
    max_rep_ = path.max_rep;
    def_bits_ = BitWidth(max_def_);
    rep_bits_ = BitWidth(max_rep_);
  }

  // Value-type hooks.
  // Converts and encodes the values of a step: rows [begin, end) of the leaf (flat columns) or
  // the listed leaf rows (all non-null). Returns the number of values.
  virtual int64_t AddValues(const Column& leaf, int64_t begin, int64_t end, const int64_t* idx,
                            int64_t n_idx) = 0;
  virtual Status AfterStep() = 0;       // dictionary fallback decisions
  virtual Status BeforePageFull() = 0;  // the open page reached its target size
  virtual int64_t PageValueBytes() const = 0;
  virtual int64_t DictionaryBytes() const = 0;
  // Appends the page's encoded values to body, resets them, returns their encoding.
  virtual Encoding EncodePageValues(ByteBuffer* body) = 0;
  virtual std::optional<Statistics> PageStatistics(int64_t nulls) = 0;  // and merge into chunk
  virtual std::optional<Statistics> ChunkStatistics(int64_t nulls) = 0;
  virtual std::optional<BloomFilter> ChunkBloomFilter() = 0;  // and start the next chunk's
  virtual Status BeforeFinish() = 0;
  // Dictionary page body, if the chunk has dictionary-encoded pages; resets value state.
  virtual bool TakeDictionary(ByteBuffer* body, int32_t* count) = 0;

 public:
  Status WriteRows(const Column& column, int64_t begin, int64_t end) override {
    nodes_[0].col = &column;
    for (size_t k = 1; k < nodes_.size(); ++k) {
      const LevelNode& parent = nodes_[k - 1];
      nodes_[k].col = parent.kind == LevelNode::Kind::kList
                          ? parent.col->child.get()
                          : &parent.col->members[static_cast<size_t>(nodes_[k].member)];
    }
    const Column& leaf = *nodes_.back().col;
    bool flat = nodes_.size() == 1;
    for (int64_t b = begin; b < end;) {
      // A step never takes the page past data_page_rows.
      int64_t e = std::min(
          {end, b + kStepRows, b + std::max<int64_t>(1, options_.data_page_rows - page_rows_)});
      if (flat && !column.offsets.empty()) {
        // Byte strings: keep a step within one page's worth of bytes.
        while (e - b > 1 && column.offsets[e] - column.offsets[b] > options_.data_page_bytes) {
          e = b + (e - b) / 2;
        }
      }
      int64_t levels, values;
      if (flat) {
        levels = e - b;
        values = AddValues(leaf, b, e, nullptr, 0);
        if (max_def_ > 0) {
          size_t at = page_def_.size();
          if (column.validity.empty()) {
            page_def_.resize(at + levels, 1);
          } else {
            page_def_.resize(at + levels);
            const uint8_t* valid = column.validity.data() + b;
            uint8_t* def = page_def_.data() + at;
            for (int64_t k = 0; k < levels; ++k) def[k] = valid[k] != 0;
          }
        }
      } else {
        size_t def_before = page_def_.size();
        leaf_rows_.clear();
        for (int64_t i = b; i < e; ++i) Stripe(0, i, 0);
        levels = static_cast<int64_t>(page_def_.size() - def_before);
        values = AddValues(leaf, 0, 0, leaf_rows_.data(), static_cast<int64_t>(leaf_rows_.size()));
      }
      page_levels_ += levels;
      page_nulls_ += levels - values;
      page_rows_ += e - b;
      TARN_RETURN_NOT_OK(AfterStep());
      if (EstimatedPageBytes() >= options_.data_page_bytes ||
          page_rows_ >= options_.data_page_rows) {
        TARN_RETURN_NOT_OK(BeforePageFull());
        TARN_RETURN_NOT_OK(FlushPage());
      }
      b = e;
    }
    return Status::OK();
  }

  Status CloseChunk() override {
    TARN_RETURN_NOT_OK(BeforeFinish());
    TARN_RETURN_NOT_OK(FlushPage());
    ByteBuffer dict_body;
    int32_t dict_count = 0;
    has_dict_page_ = TakeDictionary(&dict_body, &dict_count);
    if (has_dict_page_) {
      PageHeader h;
      h.type = PageType::DICTIONARY_PAGE;
      DictionaryPageHeader d;
      d.num_values = dict_count;
      d.encoding = Encoding::PLAIN;
      h.dictionary_page_header = d;
      QueuePage(std::move(h), nullptr, 0, std::move(dict_body), /*slot=*/-1);
    }
    return Status::OK();
  }

  int pending_pages() const override { return static_cast<int>(pending_.size()); }

  Status CompressPage(int i) override {
    PendingPage& p = pending_[i];
    EncodedPage& page = p.slot < 0 ? dict_page_ : data_pages_[p.slot];
    constexpr size_t kHeaderRoom = 256;
    constexpr size_t kMaxPage = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    if (p.body.size() + p.raw.size() > kMaxPage) {
      return Status::TooLarge("column " + path_[0] + ": a page exceeds 2 GiB");
    }
    page.bytes.clear();
    page.bytes.resize(kHeaderRoom);
    page.bytes.insert(page.bytes.end(), p.raw.begin(), p.raw.end());
    if (options_.codec != CompressionCodec::kNone) {
      TARN_RETURN_NOT_OK(Compress(options_.codec, p.body.data(), p.body.size(), &page.bytes,
                                  options_.compression_level));
    } else {
      page.bytes.insert(page.bytes.end(), p.body.begin(), p.body.end());
    }
    size_t payload = page.bytes.size() - kHeaderRoom;
    if (payload > kMaxPage) {
      return Status::TooLarge("column " + path_[0] + ": a compressed page exceeds 2 GiB");
    }
    p.header.uncompressed_page_size = static_cast<int32_t>(p.raw.size() + p.body.size());
    p.header.compressed_page_size = static_cast<int32_t>(payload);
    ByteBuffer header;
    EncodePageHeader(p.header, &header);
    if (header.size() <= kHeaderRoom) {
      page.offset = kHeaderRoom - header.size();
      std::memcpy(page.bytes.data() + page.offset, header.data(), header.size());
    } else {
      ByteBuffer joined;
      joined.reserve(header.size() + payload);
      joined.insert(joined.end(), header.begin(), header.end());
      joined.insert(joined.end(), page.bytes.begin() + kHeaderRoom, page.bytes.end());
      page.bytes = std::move(joined);
      page.offset = 0;
    }
    p.uncompressed = static_cast<int64_t>(header.size() + p.raw.size() + p.body.size());
    p.body = ByteBuffer();
    p.raw = ByteBuffer();
    return Status::OK();
  }

  void SettlePages() override {
    for (const PendingPage& p : pending_) {
      const EncodedPage& page = p.slot < 0 ? dict_page_ : data_pages_[p.slot];
      (p.slot < 0 ? dict_uncompressed_ : chunk_uncompressed_) += p.uncompressed;
      chunk_compressed_ += static_cast<int64_t>(page.size());
    }
    pending_.clear();
    pending_bytes_ = 0;
  }

  void TakeChunk(EncodedChunk* out) override {
    *out = EncodedChunk();
    ColumnMetaData& m = out->meta;
    m.type = pm_.type;
    m.path_in_schema = path_;
    m.codec = codec_;
    m.num_values = chunk_values_;
    if (has_dict_page_) {
      m.dictionary_page_offset = 0;
      m.data_page_offset = static_cast<int64_t>(dict_page_.size());
      m.encoding_stats.push_back({PageType::DICTIONARY_PAGE, Encoding::PLAIN, 1});
      out->pages.push_back(std::move(dict_page_));
      dict_page_ = EncodedPage();
    }
    m.total_uncompressed_size = chunk_uncompressed_ + dict_uncompressed_;
    m.total_compressed_size = chunk_compressed_;
    if (has_dict_page_ || enc_pages_[0] > 0) m.encodings.push_back(Encoding::PLAIN);
    if (max_def_ > 0 || max_rep_ > 0) m.encodings.push_back(Encoding::RLE);
    if (dict_pages() > 0) {
      m.encodings.push_back(Encoding::RLE_DICTIONARY);
      m.encoding_stats.push_back({page_type_, Encoding::RLE_DICTIONARY, dict_pages()});
    }
    for (int e = 0; e < kEncodings; ++e) {
      if (enc_pages_[e] == 0 || e == static_cast<int>(Encoding::RLE_DICTIONARY)) continue;
      if (e != 0) m.encodings.push_back(static_cast<Encoding>(e));
      m.encoding_stats.push_back({page_type_, static_cast<Encoding>(e), enc_pages_[e]});
    }
    if (options_.write_statistics) m.statistics = ChunkStatistics(chunk_nulls_);
    TakePageIndex(out);
    out->bloom_filter = ChunkBloomFilter();
    for (EncodedPage& p : data_pages_) out->pages.push_back(std::move(p));
    data_pages_.clear();
    chunk_rows_ = chunk_values_ = chunk_nulls_ = chunk_uncompressed_ = dict_uncompressed_ = 0;
    chunk_compressed_ = 0;
    has_dict_page_ = false;
    std::fill(std::begin(enc_pages_), std::end(enc_pages_), 0);
  }

  int64_t buffered_bytes() const override {
    return chunk_compressed_ + pending_bytes_ + EstimatedPageBytes() + DictionaryBytes();
  }

 protected:
  int64_t EstimatedPageBytes() const {
    return (page_levels_ * (def_bits_ + rep_bits_) + 7) / 8 + PageValueBytes();
  }

  // Dremel striping of one value at nodes_[depth].
  void Stripe(size_t depth, int64_t i, uint8_t rep) {
    const LevelNode* n = &nodes_[depth];
    // Down through valid struct rows: the member's value is at the same index.
    while (n->kind == LevelNode::Kind::kStruct && n->col->IsValid(i)) n = &nodes_[++depth];
    const Column& c = *n->col;
    if (!c.IsValid(i)) {
      Level(n->def_null, rep);
      return;
    }
    if (n->kind == LevelNode::Kind::kLeaf) {
      Level(n->def_valid, rep);
      leaf_rows_.push_back(i);
      return;
    }
    int64_t s = c.offsets[i], e = c.offsets[i + 1];
    if (s >= e) {
      Level(n->def_valid, rep);
      return;
    }
    Stripe(depth + 1, s, rep);
    for (int64_t j = s + 1; j < e; ++j) Stripe(depth + 1, j, n->elem_rep);
  }

  void Level(uint8_t def, uint8_t rep) {
    page_def_.push_back(def);
    if (max_rep_ > 0) page_rep_.push_back(rep);
  }

  // Queues a page for CompressPage: header, then `raw_len` bytes stored as they are (V2
  // levels), then `body` compressed with the chunk's codec. slot -1 is the dictionary page.
  void QueuePage(PageHeader header, const uint8_t* raw, size_t raw_len, ByteBuffer body,
                 int64_t slot) {
    if (slot >= 0) data_pages_.emplace_back();
    PendingPage p;
    p.slot = slot;
    p.header = std::move(header);
    p.raw.assign(raw, raw + raw_len);
    pending_bytes_ += static_cast<int64_t>(raw_len + body.size());
    p.body = std::move(body);
    pending_.push_back(std::move(p));
  }

  Status FlushPage() {
    if (page_levels_ == 0) return Status::OK();
    if (page_levels_ > std::numeric_limits<int32_t>::max()) {
      return Status::TooLarge("column " + path_[0] + ": too many values in a page");
    }
    std::optional<Statistics> stats = PageStatistics(page_nulls_);
    if (options_.page_index) RecordPageIndexEntry(stats);
    if (!options_.write_statistics) stats.reset();
    PageHeader h;
    h.type = page_type_;
    body_.clear();
    Encoding enc;
    if (page_type_ == PageType::DATA_PAGE) {
      if (max_rep_ > 0) EncodeLevelsV1(page_rep_.data(), page_levels_, rep_bits_, &body_);
      if (max_def_ > 0) EncodeLevelsV1(page_def_.data(), page_levels_, def_bits_, &body_);
      enc = EncodePageValues(&body_);
      DataPageHeader d;
      d.num_values = static_cast<int32_t>(page_levels_);
      d.encoding = enc;
      d.definition_level_encoding = Encoding::RLE;
      d.repetition_level_encoding = Encoding::RLE;
      d.statistics = std::move(stats);
      h.data_page_header = std::move(d);
      QueuePage(std::move(h), nullptr, 0, TakeBody(), static_cast<int64_t>(data_pages_.size()));
    } else {
      // V2: levels without length prefixes and never compressed, then the values.
      levels_.clear();
      if (max_rep_ > 0) EncodeRleBitPacked(page_rep_.data(), page_levels_, rep_bits_, &levels_);
      size_t rep_len = levels_.size();
      if (max_def_ > 0) EncodeRleBitPacked(page_def_.data(), page_levels_, def_bits_, &levels_);
      enc = EncodePageValues(&body_);
      DataPageHeaderV2 d;
      d.num_values = static_cast<int32_t>(page_levels_);
      d.num_nulls = static_cast<int32_t>(page_nulls_);
      d.num_rows = static_cast<int32_t>(page_rows_);
      d.encoding = enc;
      d.definition_levels_byte_length = static_cast<int32_t>(levels_.size() - rep_len);
      d.repetition_levels_byte_length = static_cast<int32_t>(rep_len);
      d.is_compressed = options_.codec != CompressionCodec::kNone;
      d.statistics = std::move(stats);
      h.data_page_header_v2 = std::move(d);
      QueuePage(std::move(h), levels_.data(), levels_.size(), TakeBody(),
                static_cast<int64_t>(data_pages_.size()));
    }
    enc_pages_[static_cast<int>(enc)] += 1;
    chunk_rows_ += page_rows_;
    chunk_values_ += page_levels_;
    chunk_nulls_ += page_nulls_;
    page_levels_ = page_nulls_ = page_rows_ = 0;
    page_def_.clear();
    page_rep_.clear();
    return Status::OK();
  }

  int32_t dict_pages() const { return enc_pages_[static_cast<int>(Encoding::RLE_DICTIONARY)]; }

  // The page index entry of the page being flushed (its size is known after compression).
  void RecordPageIndexEntry(const std::optional<Statistics>& stats) {
    PageIndexEntry e;
    e.first_row = chunk_rows_;
    e.null_count = page_nulls_;
    e.null_page = page_nulls_ == page_levels_;
    if (!e.null_page && stats && stats->min_value && stats->max_value) {
      e.min = stats->min_value;
      e.max = stats->max_value;
    }
    page_entries_.push_back(std::move(e));
  }

  // Hands the chunk's page index entries to *out, with the sizes of the data pages.
  void TakePageIndex(EncodedChunk* out) {
    if (!options_.page_index) return;
    for (size_t i = 0; i < page_entries_.size() && i < data_pages_.size(); ++i) {
      page_entries_[i].size = static_cast<int32_t>(data_pages_[i].size());
    }
    out->column_index = BuildColumnIndex(page_entries_, pm_.type, pm_.order);
    out->page_entries = std::move(page_entries_);
    page_entries_.clear();
  }

  // Hands the page body over to a pending page; the next body starts with the same capacity.
  ByteBuffer TakeBody() {
    ByteBuffer b = std::move(body_);
    body_ = ByteBuffer();
    body_.reserve(b.capacity());
    return b;
  }

  ColumnWriterOptions options_;
  PhysicalMapping pm_;
  Codec codec_;
  bool track_stats_;  // page min/max are needed (statistics or the column index)
  std::vector<std::string> path_;
  std::vector<LevelNode> nodes_;
  uint8_t max_def_ = 0, max_rep_ = 0;
  int def_bits_ = 0, rep_bits_ = 0;

  // The page being built.
  ByteBuffer page_def_, page_rep_;
  int64_t page_levels_ = 0, page_nulls_ = 0, page_rows_ = 0;
  std::vector<int64_t> leaf_rows_;

  // The chunk being built.
  // A page encoded but not yet compressed; CompressPage fills its slot.
  struct PendingPage {
    int64_t slot = 0;  // index into data_pages_, or -1 for the dictionary page
    PageHeader header;
    ByteBuffer raw;
    ByteBuffer body;
    int64_t uncompressed = 0;  // header + raw + body, set by CompressPage
  };
  std::vector<PendingPage> pending_;
  int64_t pending_bytes_ = 0;
  EncodedPage dict_page_;
  bool has_dict_page_ = false;
  std::vector<EncodedPage> data_pages_;
  int64_t chunk_rows_ = 0, chunk_values_ = 0, chunk_nulls_ = 0;
  std::vector<PageIndexEntry> page_entries_;  // one per data page, with ColumnIndex bounds
  int64_t chunk_uncompressed_ = 0, dict_uncompressed_ = 0, chunk_compressed_ = 0;
  static constexpr int kEncodings = 10;
  int32_t enc_pages_[kEncodings] = {};  // data pages written per Encoding value
  PageType page_type_ = PageType::DATA_PAGE;

  ByteBuffer body_, levels_;
};

// V: uint8_t (BOOLEAN), int32_t, int64_t, float, double, std::string_view (BYTE_ARRAY, FLBA).
template <typename V>
class TypedColumnWriter final : public ColumnWriterBase {
 public:
  TypedColumnWriter(LeafPath path, const ColumnWriterOptions& options, PhysicalMapping pm,
                    Codec codec)
      : ColumnWriterBase(std::move(path), options, pm, codec), dict_(MakeDict<V>(pm)) {
    dict_enabled_ = options.enable_dictionary && !std::is_same_v<V, uint8_t>;
    if (options.bloom_filter && !std::is_same_v<V, uint8_t>) bloom_.emplace(*options.bloom_filter);
    use_dict_ = dict_enabled_;
    page_stats_.order = chunk_stats_.order = pm.order;
    if constexpr (std::is_same_v<V, std::string_view>) {
      page_stats_.byte_array = chunk_stats_.byte_array = pm.type == Type::BYTE_ARRAY;
    }
  }

 protected:
  int64_t AddValues(const Column& leaf, int64_t begin, int64_t end, const int64_t* idx,
                    int64_t n_idx) override {
    int64_t cap = idx != nullptr ? n_idx : end - begin;
    if (static_cast<int64_t>(values_.size()) < cap) values_.resize(cap);
    int64_t n = Gather(leaf, begin, end, idx, n_idx, values_.data());
    const V* v = values_.data();
    if (track_stats_) page_stats_.Update(v, n);
    if constexpr (!std::is_same_v<V, uint8_t>) {
      if (bloom_) bloom_->Add(v, n);
    }
    if (use_dict_) {
      size_t at = page_indices_.size();
      page_indices_.resize(at + n);
      if constexpr (std::is_same_v<V, std::string_view>) {
        dict_.Put(v, n, page_indices_.data() + at);
      } else {
        using Bits = std::conditional_t<sizeof(V) == 8, uint64_t, uint32_t>;
        dict_.Put(reinterpret_cast<const Bits*>(v), n, page_indices_.data() + at);
      }
      dict_values_seen_ += n;
    } else {
      AppendPlain(v, n);
    }
    return n;
  }

  Status AfterStep() override {
    if (!use_dict_) return Status::OK();
    if (dict_.plain_bytes() > options_.dictionary_page_bytes || dict_.size() > kMaxDictEntries) {
      return Fallback();
    }
    if (!ratio_checked_ && dict_values_seen_ >= kDictCheckValues) {
      ratio_checked_ = true;
      if (dict_.size() * 2 > dict_values_seen_) return Fallback();
    }
    return Status::OK();
  }

  int64_t DictionaryBytes() const override {
    return use_dict_ || dict_pages() > 0 ? dict_.plain_bytes() : 0;
  }

  Status BeforePageFull() override {
    // The first page decides whether the dictionary pays off, if 16 Ki values did not already.
    if (use_dict_ && !ratio_checked_ && dict_pages() == 0) {
      ratio_checked_ = true;
      if (dict_.size() * 2 > dict_values_seen_) return Fallback();
    }
    return Status::OK();
  }

  int64_t PageValueBytes() const override {
    if (use_dict_) {
      int bits =
          std::max(1, BitWidth(static_cast<uint64_t>(std::max<int64_t>(dict_.size(), 1) - 1)));
      return (static_cast<int64_t>(page_indices_.size()) * bits + 7) / 8;
    }
    if constexpr (std::is_same_v<V, uint8_t>) {
      return static_cast<int64_t>(page_plain_.size()) / 8;
    } else {
      return static_cast<int64_t>(page_plain_.size());
    }
  }

  Encoding EncodePageValues(ByteBuffer* body) override {
    if (use_dict_) {
      int bits =
          std::max(1, BitWidth(static_cast<uint64_t>(std::max<int64_t>(dict_.size(), 1) - 1)));
      body->push_back(static_cast<uint8_t>(bits));
      EncodeRleBitPacked(page_indices_.data(), static_cast<int64_t>(page_indices_.size()), bits,
                         body);
      page_indices_.clear();
      return Encoding::RLE_DICTIONARY;
    }
    Encoding enc = Encoding::PLAIN;
    if constexpr (std::is_same_v<V, uint8_t>) {
      PlainEncodeBooleans(page_plain_.data(), static_cast<int64_t>(page_plain_.size()), body);
    } else if (page_type_ == PageType::DATA_PAGE_V2) {
      enc = EncodeV2Values(body);
    } else {
      body->insert(body->end(), page_plain_.begin(), page_plain_.end());
    }
    page_plain_.clear();
    return enc;
  }

  std::optional<Statistics> PageStatistics(int64_t nulls) override {
    if (!track_stats_) return std::nullopt;
    Statistics s = page_stats_.Make(nulls);
    chunk_stats_.Merge(page_stats_);
    page_stats_.Reset();
    return s;
  }

  std::optional<Statistics> ChunkStatistics(int64_t nulls) override {
    Statistics s = chunk_stats_.Make(nulls);
    chunk_stats_.Reset();
    return s;
  }

  std::optional<BloomFilter> ChunkBloomFilter() override {
    if (!bloom_) return std::nullopt;
    return bloom_->Finish();
  }

  Status BeforeFinish() override {
    // A chunk that never reached the ratio check: keep the dictionary only if it pays off.
    if (use_dict_ && dict_pages() == 0 && !ratio_checked_ &&
        (dict_.size() == 0 || dict_.size() * 2 > dict_values_seen_)) {
      return Fallback();
    }
    return Status::OK();
  }

  bool TakeDictionary(ByteBuffer* body, int32_t* count) override {
    bool has = dict_pages() > 0;
    if (has) {
      dict_.WritePlain(body);
      *count = static_cast<int32_t>(dict_.size());
    }
    dict_.Clear();
    use_dict_ = dict_enabled_;
    ratio_checked_ = false;
    dict_values_seen_ = 0;
    return has;
  }

 private:
  // Stops dictionary encoding for the rest of the chunk.
  Status Fallback() {
    if (dict_pages() == 0) {
      // Nothing refers to the dictionary yet: re-encode the open page as PLAIN and drop it.
      const uint32_t* idx = page_indices_.data();
      int64_t n = static_cast<int64_t>(page_indices_.size());
      if constexpr (std::is_same_v<V, std::string_view>) {
        scratch_views_.resize(n);
        for (int64_t k = 0; k < n; ++k) scratch_views_[k] = dict_.Get(idx[k]);
        AppendPlain(scratch_views_.data(), n);
      } else if constexpr (!std::is_same_v<V, uint8_t>) {
        size_t at = page_plain_.size();
        page_plain_.resize(at + n * sizeof(V));
        uint8_t* dst = page_plain_.data() + at;
        const auto* dv = dict_.values();
        for (int64_t k = 0; k < n; ++k) std::memcpy(dst + k * sizeof(V), dv + idx[k], sizeof(V));
      }
      page_indices_.clear();
      dict_.Clear();
      use_dict_ = false;
      return Status::OK();
    }
    // Earlier pages use the dictionary: close the open page with it and keep it for Finish.
    TARN_RETURN_NOT_OK(FlushPage());
    use_dict_ = false;
    return Status::OK();
  }

  // V2 pages without a dictionary: DELTA_BINARY_PACKED integers, BYTE_STREAM_SPLIT floats,
  // DELTA_LENGTH_BYTE_ARRAY strings (as DuckDB and Arrow write them), re-encoded from the page's
  // PLAIN bytes; FIXED_LEN_BYTE_ARRAY stays PLAIN.
  Encoding EncodeV2Values(ByteBuffer* body) {
    if constexpr (std::is_same_v<V, int32_t> || std::is_same_v<V, int64_t>) {
      EncodeDeltaBinaryPacked(reinterpret_cast<const V*>(page_plain_.data()),
                              static_cast<int64_t>(page_plain_.size() / sizeof(V)), body);
      return Encoding::DELTA_BINARY_PACKED;
    } else if constexpr (std::is_floating_point_v<V>) {
      EncodeByteStreamSplit(page_plain_.data(),
                            static_cast<int64_t>(page_plain_.size() / sizeof(V)), sizeof(V), body);
      return Encoding::BYTE_STREAM_SPLIT;
    } else if constexpr (std::is_same_v<V, std::string_view>) {
      if (pm_.type == Type::BYTE_ARRAY) {
        scratch_views_.clear();
        const uint8_t* p = page_plain_.data();
        const uint8_t* end = p + page_plain_.size();
        while (p < end) {
          uint32_t len;
          std::memcpy(&len, p, 4);
          scratch_views_.emplace_back(reinterpret_cast<const char*>(p + 4), len);
          p += 4 + len;
        }
        EncodeDeltaLengthByteArray(scratch_views_.data(),
                                   static_cast<int64_t>(scratch_views_.size()), body);
        return Encoding::DELTA_LENGTH_BYTE_ARRAY;
      }
    }
    body->insert(body->end(), page_plain_.begin(), page_plain_.end());
    return Encoding::PLAIN;
  }

  void AppendPlain(const V* v, int64_t n) {
    if constexpr (std::is_same_v<V, std::string_view>) {
      if (pm_.type == Type::FIXED_LEN_BYTE_ARRAY) {
        PlainEncodeFixedLenByteArrays(v, n, &page_plain_);
      } else {
        PlainEncodeByteArrays(v, n, &page_plain_);
      }
    } else {
      PlainEncodeFixed(v, n, &page_plain_);
    }
  }

  int64_t Gather(const Column& c, int64_t b, int64_t e, const int64_t* idx, int64_t n_idx, V* out);

  DictFor<V> dict_;
  bool dict_enabled_ = false;
  bool use_dict_ = false;
  bool ratio_checked_ = false;
  int64_t dict_values_seen_ = 0;
  std::vector<uint32_t> page_indices_;
  ByteBuffer page_plain_;
  std::vector<V> values_;
  std::vector<std::string_view> scratch_views_;
  ByteBuffer decimal_bytes_;
  ValueStats<V> page_stats_, chunk_stats_;
  std::optional<BloomFilterBuilder> bloom_;
};

template <>
int64_t TypedColumnWriter<uint8_t>::Gather(const Column& c, int64_t b, int64_t e,
                                           const int64_t* idx, int64_t n_idx, uint8_t* out) {
  return GatherFixed<uint8_t>(c, b, e, idx, n_idx, out,
                              [](uint8_t x) { return static_cast<uint8_t>(x != 0); });
}

template <>
int64_t TypedColumnWriter<int32_t>::Gather(const Column& c, int64_t b, int64_t e,
                                           const int64_t* idx, int64_t n_idx, int32_t* out) {
  switch (c.type.id()) {
    case TypeId::kInt8:
      return GatherCast<int8_t>(c, b, e, idx, n_idx, out);
    case TypeId::kInt16:
      return GatherCast<int16_t>(c, b, e, idx, n_idx, out);
    case TypeId::kUInt8:
      return GatherCast<uint8_t>(c, b, e, idx, n_idx, out);
    case TypeId::kUInt16:
      return GatherCast<uint16_t>(c, b, e, idx, n_idx, out);
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return GatherCast<uint32_t>(c, b, e, idx, n_idx, out);
    case TypeId::kDecimal:
      return GatherCast<int128>(c, b, e, idx, n_idx, out);
    default:  // INT32, DATE
      return GatherCast<int32_t>(c, b, e, idx, n_idx, out);
  }
}

template <>
int64_t TypedColumnWriter<int64_t>::Gather(const Column& c, int64_t b, int64_t e,
                                           const int64_t* idx, int64_t n_idx, int64_t* out) {
  switch (c.type.id()) {
    case TypeId::kUInt64:
      return GatherCast<uint64_t>(c, b, e, idx, n_idx, out);
    case TypeId::kDecimal:
      return GatherCast<int128>(c, b, e, idx, n_idx, out);
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      if (c.type.unit() == TimeUnit::kSecond) {
        // Range checked by ValidateColumnForWrite.
        return GatherFixed<int64_t>(c, b, e, idx, n_idx, out, [](int64_t x) {
          return static_cast<int64_t>(static_cast<uint64_t>(x) * 1000);
        });
      }
      return GatherCast<int64_t>(c, b, e, idx, n_idx, out);
    default:  // INT64, TIME, TIMESTAMP
      return GatherCast<int64_t>(c, b, e, idx, n_idx, out);
  }
}

template <>
int64_t TypedColumnWriter<float>::Gather(const Column& c, int64_t b, int64_t e, const int64_t* idx,
                                         int64_t n_idx, float* out) {
  return GatherCast<float>(c, b, e, idx, n_idx, out);
}

template <>
int64_t TypedColumnWriter<double>::Gather(const Column& c, int64_t b, int64_t e, const int64_t* idx,
                                          int64_t n_idx, double* out) {
  return GatherCast<double>(c, b, e, idx, n_idx, out);
}

template <>
int64_t TypedColumnWriter<std::string_view>::Gather(const Column& c, int64_t b, int64_t e,
                                                    const int64_t* idx, int64_t n_idx,
                                                    std::string_view* out) {
  const char* data = reinterpret_cast<const char*>(c.data.data());
  if (c.type.id() == TypeId::kUuid) {
    if (idx != nullptr) {
      for (int64_t k = 0; k < n_idx; ++k) out[k] = std::string_view(data + idx[k] * 16, 16);
      return n_idx;
    }
    int64_t k = 0;
    for (int64_t i = b; i < e; ++i) {
      out[k] = std::string_view(data + i * 16, 16);
      k += c.IsValid(i);
    }
    return k;
  }
  if (c.type.id() == TypeId::kDecimal) {
    // Big-endian two's complement bytes, written to scratch the views point into.
    int width = pm_.type_length;
    int64_t cap = idx != nullptr ? n_idx : e - b;
    if (static_cast<int64_t>(decimal_bytes_.size()) < cap * width) {
      decimal_bytes_.resize(cap * width);
    }
    uint8_t* dst = decimal_bytes_.data();
    const int128* src = c.values<int128>();
    int64_t k = 0;
    auto put = [&](int128 x) {
      PutBigEndian(x, width, dst + k * width);
      out[k] = std::string_view(reinterpret_cast<const char*>(dst + k * width), width);
      ++k;
    };
    if (idx != nullptr) {
      for (int64_t j = 0; j < n_idx; ++j) put(src[idx[j]]);
    } else {
      for (int64_t i = b; i < e; ++i) {
        if (c.IsValid(i)) put(src[i]);
      }
    }
    return k;
  }
  // VARCHAR, BLOB, JSON.
  const int64_t* off = c.offsets.data();
  if (idx != nullptr) {
    for (int64_t k = 0; k < n_idx; ++k) {
      int64_t i = idx[k];
      out[k] = std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
    }
    return n_idx;
  }
  int64_t k = 0;
  if (c.validity.empty()) {
    for (int64_t i = b; i < e; ++i) {
      out[k++] = std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
    }
    return k;
  }
  const uint8_t* valid = c.validity.data();
  for (int64_t i = b; i < e; ++i) {
    out[k] = std::string_view(data + off[i], static_cast<size_t>(off[i + 1] - off[i]));
    k += valid[i] != 0;
  }
  return k;
}

}  // namespace

namespace {

// The first row that is null in `c` though `reach` (the rows whose parents are all present;
// null means every row) says it is written, or -1.
int64_t FirstWrittenNull(const Column& c, const uint8_t* reach) {
  if (c.validity.empty()) return -1;
  const uint8_t* v = c.validity.data();
  const size_t n = c.validity.size();
  if (reach == nullptr) {
    const void* z = std::memchr(v, 0, n);
    return z == nullptr ? -1 : static_cast<const uint8_t*>(z) - v;
  }
  for (size_t i = 0; i < n; ++i) {
    if (v[i] == 0 && reach[i] != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

// Validates `c` against `type`. `reach` (one byte per row, or null for all rows) marks the rows
// the writer reaches: those of a STRUCT member whose struct rows are present. `what` names a
// row for messages ("row ", "element ").
Status ValidateColumn(const std::string& name, const DataType& type, bool nullable, const Column& c,
                      const char* what, const uint8_t* reach) {
  if (c.type != type) {
    return Status::InvalidArgument("field " + name + ": column of type " + c.type.ToString() +
                                   " where the schema says " + type.ToString());
  }
  const bool top = std::strcmp(what, "row ") == 0;
  if (c.length < 0) return Status::InvalidArgument("field " + name + ": negative length");
  uint64_t len = static_cast<uint64_t>(c.length);
  if (!c.validity.empty() && c.validity.size() != len) {
    return Status::InvalidArgument("field " + name + ": validity has " +
                                   std::to_string(c.validity.size()) + " entries for " +
                                   std::to_string(len) + " values");
  }
  if (!nullable) {
    const int64_t row = FirstWrittenNull(c, reach);
    if (row >= 0) {
      return Status::InvalidArgument("field " + name + ": " + what + std::to_string(row) +
                                     " is null but the " + (top ? "field" : "element") +
                                     " is NOT NULL")
          .WithField("column", name)
          .WithField("row", std::to_string(row));
    }
  }
  auto written = [&](uint64_t i) {
    return c.IsValid(static_cast<int64_t>(i)) && (reach == nullptr || reach[i] != 0);
  };
  if (type.id() == TypeId::kStruct || type.id() == TypeId::kVariant) {
    const std::vector<Field>& kids = StoredShape(type).children();
    if (c.members.size() != kids.size()) {
      return Status::InvalidArgument("field " + name + ": " + std::to_string(c.members.size()) +
                                     " member columns for " + std::to_string(kids.size()) +
                                     " members");
    }
    // Members are written where the struct row is.
    ByteBuffer member_reach;
    const uint8_t* mr = reach;
    if (!c.validity.empty()) {
      member_reach.resize(len);
      for (uint64_t i = 0; i < len; ++i) member_reach[i] = written(i);
      mr = member_reach.data();
    }
    for (size_t k = 0; k < kids.size(); ++k) {
      const std::string member = name + "." + kids[k].name;
      if (c.members[k].length != c.length) {
        return Status::InvalidArgument("field " + member + ": " +
                                       std::to_string(c.members[k].length) + " values for " +
                                       std::to_string(len) + " struct rows");
      }
      TARN_RETURN_NOT_OK(
          ValidateColumn(member, kids[k].type, kids[k].nullable, c.members[k], what, mr));
    }
    return Status::OK();
  }
  if (type.is_nested() || type.is_variable_width()) {
    if (c.offsets.size() != len + 1) {
      return Status::InvalidArgument("field " + name + ": " + std::to_string(c.offsets.size()) +
                                     " offsets for " + std::to_string(len) + " values");
    }
    if (c.offsets[0] < 0) return Status::InvalidArgument("field " + name + ": negative offset");
    for (uint64_t i = 0; i < len; ++i) {
      if (c.offsets[i + 1] < c.offsets[i]) {
        return Status::InvalidArgument("field " + name + ": offsets decrease at " + what +
                                       std::to_string(i));
      }
    }
    if (type.is_variable_width()) {
      if (static_cast<uint64_t>(c.offsets[len]) > c.data.size()) {
        return Status::InvalidArgument("field " + name + ": offsets past the end of the data");
      }
      for (uint64_t i = 0; i < len; ++i) {
        if (c.offsets[i + 1] - c.offsets[i] > std::numeric_limits<int32_t>::max()) {
          return Status::InvalidArgument("field " + name + ": value at " + what +
                                         std::to_string(i) + " is 2 GiB or longer");
        }
      }
      return Status::OK();
    }
    if (type.id() == TypeId::kMap) {
      if (c.members.size() != 2) {
        return Status::InvalidArgument("field " + name + ": a MAP column needs keys and values");
      }
      if (c.members[0].length != c.members[1].length) {
        return Status::InvalidArgument("field " + name + ": " +
                                       std::to_string(c.members[0].length) + " keys and " +
                                       std::to_string(c.members[1].length) + " values");
      }
      if (c.offsets[len] > c.members[0].length) {
        return Status::InvalidArgument("field " + name + ": offsets past the end of the entries");
      }
      const Field& key = type.key_field();
      const Field& value = type.value_field();
      TARN_RETURN_NOT_OK(
          ValidateColumn(name + ".key", key.type, false, c.members[0], "entry ", nullptr));
      return ValidateColumn(name + ".value", value.type, value.nullable, c.members[1], "entry ",
                            nullptr);
    }
    if (c.child == nullptr) return Status::InvalidArgument("field " + name + ": no element column");
    if (c.offsets[len] > c.child->length) {
      return Status::InvalidArgument("field " + name + ": offsets past the end of the elements");
    }
    return ValidateColumn(name, type.element(), type.element_field().nullable, *c.child, "element ",
                          nullptr);
  }
  uint64_t width = static_cast<uint64_t>(type.PhysicalWidth());
  if (c.data.size() / width < len) {
    return Status::InvalidArgument("field " + name + ": data holds fewer than " +
                                   std::to_string(len) + " values");
  }
  if (type.id() == TypeId::kDecimal) {
    int128 limit = 1;
    for (int i = 0; i < type.precision(); ++i) limit *= 10;
    const int128* v = c.values<int128>();
    for (uint64_t i = 0; i < len; ++i) {
      if ((v[i] >= limit || v[i] <= -limit) && written(i)) {
        return Status::InvalidArgument("field " + name + ": " + what + std::to_string(i) +
                                       " does not fit " + type.ToString())
            .WithField("column", name)
            .WithField("row", std::to_string(i));
      }
    }
  }
  if ((type.id() == TypeId::kTimestamp || type.id() == TypeId::kTimestampTz) &&
      type.unit() == TimeUnit::kSecond) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max() / 1000;
    const int64_t* v = c.values<int64_t>();
    for (uint64_t i = 0; i < len; ++i) {
      if ((v[i] > kMax || v[i] < -kMax) && written(i)) {
        return Status::InvalidArgument("field " + name + ": " + what + std::to_string(i) +
                                       " is out of the range of milliseconds")
            .WithField("column", name)
            .WithField("row", std::to_string(i));
      }
    }
  }
  return Status::OK();
}

}  // namespace

Status ValidateColumnForWrite(const Field& field, const Column& column) {
  return ValidateColumn(field.name, field.type, field.nullable, column, "row ", nullptr);
}

Result<Codec> ParquetCodecFor(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kNone:
      return Codec::UNCOMPRESSED;
    case CompressionCodec::kSnappy:
      return Codec::SNAPPY;
    case CompressionCodec::kGzip:
      return Codec::GZIP;
    case CompressionCodec::kZstd:
      return Codec::ZSTD;
    case CompressionCodec::kLz4Raw:
      return Codec::LZ4_RAW;
    case CompressionCodec::kBrotli:
      return Codec::BROTLI;
    case CompressionCodec::kLz4Hadoop:
      break;
  }
  return Status::InvalidArgument("the Parquet writer does not write codec " +
                                 std::string(CompressionCodecName(codec)) + "; use lz4_raw");
}

int LeafCount(const DataType& type) {
  const DataType& shape = StoredShape(type);
  if (!shape.is_nested()) return 1;
  int n = 0;
  for (const Field& f : shape.children()) n += LeafCount(f.type);
  return n;
}

Result<std::unique_ptr<ColumnChunkWriter>> ColumnChunkWriter::Make(
    const Field& field, int leaf, const ColumnWriterOptions& options) {
  TARN_ASSIGN_OR_RETURN(Codec codec, ParquetCodecFor(options.codec));
  if (leaf < 0 || leaf >= LeafCount(field.type)) {
    return Status::InvalidArgument("field " + field.name + " has no leaf " + std::to_string(leaf));
  }
  TARN_ASSIGN_OR_RETURN(LeafPath path, LeafPathOf(field, leaf));
  PhysicalMapping pm = PhysicalFor(path.leaf_type);
  std::unique_ptr<ColumnChunkWriter> w;
  switch (pm.type) {
    case Type::BOOLEAN:
      w = std::make_unique<TypedColumnWriter<uint8_t>>(std::move(path), options, pm, codec);
      break;
    case Type::INT32:
      w = std::make_unique<TypedColumnWriter<int32_t>>(std::move(path), options, pm, codec);
      break;
    case Type::INT64:
      w = std::make_unique<TypedColumnWriter<int64_t>>(std::move(path), options, pm, codec);
      break;
    case Type::FLOAT:
      w = std::make_unique<TypedColumnWriter<float>>(std::move(path), options, pm, codec);
      break;
    case Type::DOUBLE:
      w = std::make_unique<TypedColumnWriter<double>>(std::move(path), options, pm, codec);
      break;
    case Type::BYTE_ARRAY:
    case Type::FIXED_LEN_BYTE_ARRAY:
      w = std::make_unique<TypedColumnWriter<std::string_view>>(std::move(path), options, pm,
                                                                codec);
      break;
    case Type::INT96:
      return Status::Internal("INT96 is never written");
  }
  return w;
}

}  // namespace tarn::parquet
