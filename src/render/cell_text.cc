#include "render/cell_text.h"

#include <string_view>

#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::render {

namespace {

bool NeedsQuotes(std::string_view s) {
  if (s.empty() || s == "NULL" || s.front() == ' ' || s.back() == ' ') return true;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return true;
    switch (c) {
      case ',':
      case ':':
      case '[':
      case ']':
      case '{':
      case '}':
      case '"':
        return true;
      default:
        break;
    }
  }
  return false;
}

class CellWriter {
 public:
  CellWriter(std::string* out, size_t max_bytes) : out_(out), max_bytes_(max_bytes) {}

  // Appends row `row` of `col`; `nested` when it is inside an ARRAY, STRUCT or MAP.
  void Value(const Column& col, int64_t row, bool nested) {
    if (cut_) return;
    if (!col.IsValid(row)) {
      out_->append("NULL");
      return;
    }
    switch (col.type.id()) {
      case TypeId::kArray:
        out_->push_back('[');
        for (int64_t k = col.offsets[row]; k < col.offsets[row + 1]; ++k) {
          if (!Separator(k > col.offsets[row])) return;
          Value(*col.child, k, true);
        }
        out_->push_back(']');
        return;
      case TypeId::kStruct: {
        const std::vector<Field>& members = col.type.children();
        out_->push_back('{');
        for (size_t m = 0; m < members.size(); ++m) {
          if (!Separator(m > 0)) return;
          Text(members[m].name);
          out_->append(": ");
          Value(col.members[m], row, true);
        }
        out_->push_back('}');
        return;
      }
      case TypeId::kMap:
        out_->push_back('{');
        for (int64_t k = col.offsets[row]; k < col.offsets[row + 1]; ++k) {
          if (!Separator(k > col.offsets[row])) return;
          Value(col.members[0], k, true);
          out_->append(": ");
          Value(col.members[1], k, true);
        }
        out_->push_back('}');
        return;
      case TypeId::kVarchar:
      case TypeId::kJson:
        if (nested) return Text(col.StringAt(row));
        break;
      default:
        break;
    }
    AppendValueText(col, row, out_);
  }

  bool cut() const { return cut_; }

 private:
  // Before an element: ", " after the first; false (and the text is cut) past the limit.
  bool Separator(bool after_first) {
    if (cut_ || out_->size() > max_bytes_) {
      cut_ = true;
      return false;
    }
    if (after_first) out_->append(", ");
    return true;
  }
  void Text(std::string_view s) {
    if (NeedsQuotes(s)) {
      AppendJsonString(s, out_);
    } else {
      out_->append(s);
    }
  }

  std::string* out_;
  size_t max_bytes_;
  bool cut_ = false;
};

}  // namespace

std::string CellText(const Column& col, int64_t row, size_t max_bytes) {
  std::string out;
  CellWriter writer(&out, max_bytes);
  writer.Value(col, row, false);
  if (writer.cut()) out.append("…");
  return out;
}

}  // namespace tarn::render
