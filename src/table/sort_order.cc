#include "tarn/sort_order.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>

#include "table/schema_json.h"

namespace tarn {

using nlohmann::json;

namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Splits one sort item ("ts DESC NULLS LAST", "\"my col\" ASC") into words; quoted names keep
// their spaces and lose their quotes.
Status SplitWords(std::string_view item, std::vector<std::string>* words, bool* first_quoted) {
  size_t i = 0;
  *first_quoted = false;
  while (i < item.size()) {
    if (std::isspace(static_cast<unsigned char>(item[i]))) {
      ++i;
      continue;
    }
    std::string w;
    if (item[i] == '"') {
      if (words->empty()) *first_quoted = true;
      ++i;
      bool closed = false;
      while (i < item.size()) {
        if (item[i] == '"') {
          if (i + 1 < item.size() && item[i + 1] == '"') {
            w.push_back('"');
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        w.push_back(item[i++]);
      }
      if (!closed) return Status::InvalidArgument("sort order: unterminated quoted name");
    } else {
      while (i < item.size() && !std::isspace(static_cast<unsigned char>(item[i]))) {
        w.push_back(item[i++]);
      }
    }
    words->push_back(std::move(w));
  }
  return Status::OK();
}

// Splits on commas outside double quotes.
std::vector<std::string_view> SplitItems(std::string_view text) {
  std::vector<std::string_view> items;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') quoted = !quoted;
    if (text[i] == ',' && !quoted) {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  items.push_back(text.substr(start));
  return items;
}

// ---- Sorting ----

// Order-preserving 64-bit key of a fixed-width value of at most 8 bytes.
template <typename T>
inline uint64_t NormKey(T v) {
  if constexpr (std::is_same_v<T, float>) {
    uint32_t b;
    std::memcpy(&b, &v, 4);
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    return b;
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return (b & (uint64_t{1} << 63)) ? ~b : (b | (uint64_t{1} << 63));
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(v)) ^ (uint64_t{1} << 63);
  } else {
    return static_cast<uint64_t>(v);
  }
}

template <typename T>
inline int Cmp3(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// One sort column: compares two rows, nulls and direction included.
struct KeyColumn {
  const Column* col;
  bool descending;
  bool nulls_first;

  template <typename T>
  int CmpTyped(int64_t a, int64_t b) const {
    return Cmp3(NormKey(col->Value<T>(a)), NormKey(col->Value<T>(b)));
  }

  int CompareValues(int64_t a, int64_t b) const {
    switch (col->type.id()) {
      case TypeId::kBoolean:
      case TypeId::kUInt8:
        return CmpTyped<uint8_t>(a, b);
      case TypeId::kInt8:
        return CmpTyped<int8_t>(a, b);
      case TypeId::kInt16:
        return CmpTyped<int16_t>(a, b);
      case TypeId::kUInt16:
        return CmpTyped<uint16_t>(a, b);
      case TypeId::kInt32:
      case TypeId::kDate:
        return CmpTyped<int32_t>(a, b);
      case TypeId::kUInt32:
      case TypeId::kIpv4:
        return CmpTyped<uint32_t>(a, b);
      case TypeId::kInt64:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
        return CmpTyped<int64_t>(a, b);
      case TypeId::kUInt64:
        return CmpTyped<uint64_t>(a, b);
      case TypeId::kFloat32:
        return CmpTyped<float>(a, b);
      case TypeId::kFloat64:
        return CmpTyped<double>(a, b);
      case TypeId::kDecimal:
        return Cmp3(col->Value<int128>(a), col->Value<int128>(b));
      case TypeId::kUuid: {
        int c = std::memcmp(col->data.data() + a * 16, col->data.data() + b * 16, 16);
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      case TypeId::kVarchar:
      case TypeId::kBlob:
      case TypeId::kJson: {
        int c = col->StringAt(a).compare(col->StringAt(b));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
      }
      case TypeId::kArray:
      case TypeId::kStruct:
      case TypeId::kMap:
      case TypeId::kVariant:
        return 0;
    }
    return 0;
  }

  int Compare(int64_t a, int64_t b) const {
    if (!col->validity.empty()) {
      bool va = col->validity[a] != 0, vb = col->validity[b] != 0;
      if (!va || !vb) {
        if (va == vb) return 0;
        return (!va) == nulls_first ? -1 : 1;
      }
    }
    int c = CompareValues(a, b);
    return descending ? -c : c;
  }
};

struct RowLess {
  const std::vector<KeyColumn>* keys;
  size_t from;
  bool operator()(int64_t a, int64_t b) const {
    for (size_t k = from; k < keys->size(); ++k) {
      int c = (*keys)[k].Compare(a, b);
      if (c != 0) return c < 0;
    }
    return false;
  }
};

// Stable sort of a run of row indices: insertion sort for short runs (no allocation).
void StableSortRun(int64_t* rows, size_t n, const RowLess& less) {
  if (n > 32) {
    std::stable_sort(rows, rows + n, less);
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    int64_t v = rows[i];
    size_t j = i;
    while (j > 0 && less(v, rows[j - 1])) {
      rows[j] = rows[j - 1];
      --j;
    }
    rows[j] = v;
  }
}

template <typename T>
void FillNormKeys(const Column& col, bool descending, const std::vector<int64_t>& rows,
                  std::vector<std::pair<uint64_t, int64_t>>* out) {
  const uint64_t flip = descending ? ~uint64_t{0} : 0;
  out->resize(rows.size());
  const uint8_t* base = col.data.data();
  for (size_t i = 0; i < rows.size(); ++i) {
    T v;
    std::memcpy(&v, base + rows[i] * sizeof(T), sizeof(T));
    (*out)[i] = {NormKey(v) ^ flip, rows[i]};
  }
}

// Fills `out` with normalized keys of `rows` when the column type allows; false otherwise.
bool NormKeys(const Column& col, bool descending, const std::vector<int64_t>& rows,
              std::vector<std::pair<uint64_t, int64_t>>* out) {
  switch (col.type.id()) {
    case TypeId::kBoolean:
    case TypeId::kUInt8:
      FillNormKeys<uint8_t>(col, descending, rows, out);
      return true;
    case TypeId::kInt8:
      FillNormKeys<int8_t>(col, descending, rows, out);
      return true;
    case TypeId::kInt16:
      FillNormKeys<int16_t>(col, descending, rows, out);
      return true;
    case TypeId::kUInt16:
      FillNormKeys<uint16_t>(col, descending, rows, out);
      return true;
    case TypeId::kInt32:
    case TypeId::kDate:
      FillNormKeys<int32_t>(col, descending, rows, out);
      return true;
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      FillNormKeys<uint32_t>(col, descending, rows, out);
      return true;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      FillNormKeys<int64_t>(col, descending, rows, out);
      return true;
    case TypeId::kUInt64:
      FillNormKeys<uint64_t>(col, descending, rows, out);
      return true;
    case TypeId::kFloat32:
      FillNormKeys<float>(col, descending, rows, out);
      return true;
    case TypeId::kFloat64:
      FillNormKeys<double>(col, descending, rows, out);
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<SortOrder> SortOrder::Parse(std::string_view text, const Schema& schema) {
  SortOrder order;
  bool all_space = std::all_of(text.begin(), text.end(),
                               [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  if (all_space) return order;
  for (std::string_view item : SplitItems(text)) {
    std::vector<std::string> words;
    bool quoted = false;
    TARN_RETURN_NOT_OK(SplitWords(item, &words, &quoted));
    if (words.empty())
      return Status::InvalidArgument("sort order: empty item in \"" + std::string(text) + "\"");
    int idx = schema.FieldIndex(words[0]);
    if (idx < 0) return Status::InvalidArgument("sort order: unknown column " + words[0]);
    const Field& f = schema.fields[idx];
    if (f.type.id() == TypeId::kVariant) {
      return Status::InvalidArgument("sort order: cannot sort by VARIANT column " + f.name +
                                     " (its values have no order)");
    }
    if (f.type.is_nested()) {
      return Status::InvalidArgument("sort order: cannot sort by ARRAY column " + f.name);
    }
    SortField sf;
    sf.field_id = f.field_id;
    size_t w = 1;
    if (w < words.size()) {
      std::string dir = Upper(words[w]);
      if (dir == "ASC" || dir == "DESC") {
        sf.descending = dir == "DESC";
        ++w;
      }
    }
    sf.nulls_first = !sf.descending;
    if (w < words.size()) {
      if (w + 1 < words.size() && Upper(words[w]) == "NULLS" &&
          (Upper(words[w + 1]) == "FIRST" || Upper(words[w + 1]) == "LAST")) {
        sf.nulls_first = Upper(words[w + 1]) == "FIRST";
        w += 2;
      }
    }
    if (w != words.size()) {
      return Status::InvalidArgument("sort order: unexpected \"" + words[w] + "\" after " + f.name +
                                     " (expected ASC, DESC, NULLS FIRST or NULLS LAST)");
    }
    for (const SortField& other : order.fields) {
      if (other.field_id == sf.field_id) {
        return Status::InvalidArgument("sort order: column " + f.name + " appears twice");
      }
    }
    order.fields.push_back(sf);
  }
  return order;
}

std::string SortOrder::ToString(const Schema& schema) const {
  std::string out;
  for (const SortField& sf : fields) {
    if (!out.empty()) out += ", ";
    const Field* f = FindFieldById(schema, sf.field_id);
    out += f ? QuoteColumnName(f->name) : "#" + std::to_string(sf.field_id);
    out += sf.descending ? " DESC" : " ASC";
    out += sf.nulls_first ? " NULLS FIRST" : " NULLS LAST";
  }
  return out;
}

std::string SortOrder::ToJson() const {
  json arr = json::array();
  for (const SortField& sf : fields) {
    arr.push_back({{"transform", "identity"},
                   {"source-id", sf.field_id},
                   {"direction", sf.descending ? "desc" : "asc"},
                   {"null-order", sf.nulls_first ? "nulls-first" : "nulls-last"}});
  }
  json root = {{"order-id", fields.empty() ? 0 : 1}, {"fields", std::move(arr)}};
  return root.dump();
}

Result<SortOrder> SortOrder::FromJson(std::string_view text) {
  auto bad = [](std::string what) { return Status::InvalidArgument("sort order JSON: " + what); };
  json root = json::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded() || !root.is_object()) return bad("not a JSON object");
  auto fit = root.find("fields");
  if (fit == root.end() || !fit->is_array()) return bad("no \"fields\" array");
  SortOrder order;
  for (const json& jf : *fit) {
    if (!jf.is_object()) return bad("a field is not an object");
    auto sid = jf.find("source-id");
    if (sid == jf.end() || !sid->is_number_integer() || sid->get<int64_t>() <= 0 ||
        sid->get<int64_t>() > INT32_MAX) {
      return bad("field without a valid \"source-id\"");
    }
    auto tr = jf.find("transform");
    if (tr != jf.end() && (!tr->is_string() || tr->get<std::string>() != "identity")) {
      return bad("only the identity transform is supported");
    }
    SortField sf;
    sf.field_id = static_cast<int32_t>(sid->get<int64_t>());
    auto dir = jf.find("direction");
    if (dir == jf.end() || !dir->is_string() || (*dir != "asc" && *dir != "desc")) {
      return bad("\"direction\" must be \"asc\" or \"desc\"");
    }
    sf.descending = *dir == "desc";
    auto no = jf.find("null-order");
    if (no == jf.end() || !no->is_string() || (*no != "nulls-first" && *no != "nulls-last")) {
      return bad("\"null-order\" must be \"nulls-first\" or \"nulls-last\"");
    }
    sf.nulls_first = *no == "nulls-first";
    order.fields.push_back(sf);
  }
  return order;
}

Result<std::vector<int64_t>> SortPermutation(const RecordBatch& batch, const SortOrder& order) {
  std::vector<KeyColumn> keys;
  for (const SortField& sf : order.fields) {
    const Column* col = nullptr;
    for (size_t i = 0; i < batch.schema.fields.size() && i < batch.columns.size(); ++i) {
      if (batch.schema.fields[i].field_id == sf.field_id) col = &batch.columns[i];
    }
    if (col == nullptr) {
      return Status::InvalidArgument("sort column with field id " + std::to_string(sf.field_id) +
                                     " is not in the batch");
    }
    if (col->type.is_nested() || col->type.id() == TypeId::kVariant) {
      return Status::InvalidArgument("cannot sort by a " + col->type.ToString() + " column");
    }
    if (col->length != batch.num_rows) {
      return Status::InvalidArgument("sort column length differs from the batch's row count");
    }
    keys.push_back({col, sf.descending, sf.nulls_first});
  }
  const int64_t n = batch.num_rows;
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), int64_t{0});
  if (keys.empty() || n < 2) return perm;

  const KeyColumn& first = keys[0];
  std::vector<int64_t> valid_rows, null_rows;
  const std::vector<int64_t>* rows = &perm;
  if (first.col->null_count() > 0) {
    valid_rows.reserve(n);
    for (int64_t i = 0; i < n; ++i) (first.col->validity[i] ? valid_rows : null_rows).push_back(i);
    rows = &valid_rows;
  }
  std::vector<std::pair<uint64_t, int64_t>> norm;
  if (!NormKeys(*first.col, first.descending, *rows, &norm)) {
    std::stable_sort(perm.begin(), perm.end(), RowLess{&keys, 0});
    return perm;
  }
  std::sort(norm.begin(), norm.end());  // ties broken by row index: stable
  std::vector<int64_t> sorted;
  sorted.reserve(n);
  RowLess rest{&keys, 1};
  if (!null_rows.empty() && first.nulls_first) {
    if (keys.size() > 1) StableSortRun(null_rows.data(), null_rows.size(), rest);
    sorted.insert(sorted.end(), null_rows.begin(), null_rows.end());
  }
  size_t base = sorted.size();
  for (const auto& p : norm) sorted.push_back(p.second);
  if (keys.size() > 1) {
    for (size_t i = 0; i < norm.size();) {
      size_t j = i + 1;
      while (j < norm.size() && norm[j].first == norm[i].first) ++j;
      if (j - i > 1) StableSortRun(sorted.data() + base + i, j - i, rest);
      i = j;
    }
  }
  if (!null_rows.empty() && !first.nulls_first) {
    if (keys.size() > 1) StableSortRun(null_rows.data(), null_rows.size(), rest);
    sorted.insert(sorted.end(), null_rows.begin(), null_rows.end());
  }
  return sorted;
}

namespace {

template <typename T>
void GatherFixed(const uint8_t* src, const std::vector<int64_t>& rows, uint8_t* dst) {
  T* d = reinterpret_cast<T*>(dst);
  for (size_t i = 0; i < rows.size(); ++i) std::memcpy(d + i, src + rows[i] * sizeof(T), sizeof(T));
}

}  // namespace

Column TakeColumn(const Column& col, const std::vector<int64_t>& rows) {
  Column out(col.type);
  const size_t n = rows.size();
  out.length = static_cast<int64_t>(n);
  if (!col.validity.empty()) {
    out.validity.resize(n);
    for (size_t i = 0; i < n; ++i) out.validity[i] = col.validity[rows[i]];
  }
  if (col.type.id() == TypeId::kStruct || col.type.id() == TypeId::kVariant) {
    for (size_t m = 0; m < col.members.size(); ++m) {
      out.members[m] = TakeColumn(col.members[m], rows);
    }
    return out;
  }
  if (col.type.is_variable_width() || col.type.is_repeated()) {
    out.offsets.resize(n + 1);
    out.offsets[0] = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      total += col.offsets[rows[i] + 1] - col.offsets[rows[i]];
      out.offsets[i + 1] = total;
    }
    if (col.type.is_repeated()) {
      std::vector<int64_t> child_rows;
      child_rows.reserve(total);
      for (size_t i = 0; i < n; ++i) {
        for (int64_t k = col.offsets[rows[i]]; k < col.offsets[rows[i] + 1]; ++k) {
          child_rows.push_back(k);
        }
      }
      if (col.type.id() == TypeId::kMap) {
        for (size_t m = 0; m < col.members.size(); ++m) {
          out.members[m] = TakeColumn(col.members[m], child_rows);
        }
      } else {
        out.child = std::make_unique<Column>(TakeColumn(*col.child, child_rows));
      }
    } else {
      out.data.resize(total);
      uint8_t* dst = out.data.data();
      for (size_t i = 0; i < n; ++i) {
        int64_t b = col.offsets[rows[i]], e = col.offsets[rows[i] + 1];
        if (e > b) std::memcpy(dst, col.data.data() + b, e - b);
        dst += e - b;
      }
    }
    return out;
  }
  const int w = col.type.PhysicalWidth();
  out.data.resize(n * w);
  const uint8_t* src = col.data.data();
  switch (w) {
    case 1:
      GatherFixed<uint8_t>(src, rows, out.data.data());
      break;
    case 2:
      GatherFixed<uint16_t>(src, rows, out.data.data());
      break;
    case 4:
      GatherFixed<uint32_t>(src, rows, out.data.data());
      break;
    case 8:
      GatherFixed<uint64_t>(src, rows, out.data.data());
      break;
    default:
      for (size_t i = 0; i < n; ++i) std::memcpy(out.data.data() + i * w, src + rows[i] * w, w);
  }
  return out;
}

RecordBatch TakeRows(const RecordBatch& batch, const std::vector<int64_t>& rows) {
  RecordBatch out;
  out.schema = batch.schema;
  out.num_rows = static_cast<int64_t>(rows.size());
  out.columns.reserve(batch.columns.size());
  for (const Column& c : batch.columns) out.columns.push_back(TakeColumn(c, rows));
  return out;
}

RecordBatch FilterRows(const RecordBatch& batch, const std::vector<uint8_t>& mask) {
  std::vector<int64_t> rows;
  rows.reserve(mask.size());
  for (size_t i = 0; i < mask.size(); ++i) {
    if (mask[i]) rows.push_back(static_cast<int64_t>(i));
  }
  return TakeRows(batch, rows);
}

}  // namespace tarn
