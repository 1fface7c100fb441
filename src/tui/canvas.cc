#include "tui/canvas.h"

#include <algorithm>

#include "tui/text.h"

namespace tarn::tui {

namespace {

bool IsControl(char32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp < 0xA0); }

// The attribute as it is drawn at `depth`: without colour (NO_COLOR, a dumb terminal) only
// reverse is kept, so a selection bar stays visible while everything else is plain text.
Attr Effective(const Attr& a, ColorDepth depth) {
  if (depth != ColorDepth::kNone) return a;
  Attr plain;
  plain.reverse = a.reverse;
  return plain;
}

void AppendSgr(const Attr& a, ColorDepth depth, std::string* out) {
  *out += "\033[0m";
  if (depth == ColorDepth::kNone) {
    if (a.reverse) *out += "\033[7m";
    return;
  }
  if (a.role) *out += render::RoleEscape(depth, *a.role);
  if (a.bold) *out += "\033[1m";
  if (a.reverse) *out += "\033[7m";
  if (a.underline) *out += "\033[4m";
}

void AppendMove(int row, int col, std::string* out) {
  *out += "\033[" + std::to_string(row + 1) + ";" + std::to_string(col + 1) + "H";
}

}  // namespace

Canvas::Canvas(int width, int height)
    : width_(std::max(width, 0)),
      height_(std::max(height, 0)),
      cells_(static_cast<size_t>(width_) * height_) {}

void Canvas::Clear() { std::fill(cells_.begin(), cells_.end(), Cell{}); }

int Canvas::Put(int row, int col, std::string_view text, Attr attr, int max_width, bool ellipsis) {
  if (row < 0 || row >= height_ || width_ == 0) return 0;
  std::string fitted;
  if (max_width >= 0) {
    fitted = FitText(text, max_width, ellipsis);
    text = fitted;
  }
  Cell* line = &cells_[static_cast<size_t>(row) * width_];
  int written = 0;
  int x = col;
  for (size_t i = 0; i < text.size() && x < width_;) {
    char32_t cp;
    size_t n = DecodeUtf8(text, i, &cp);
    std::string_view bytes = text.substr(i, n);
    i += n;
    int w = CodePointWidth(cp);
    // Zero-width code points (combining marks, joiners, variation selectors) are dropped: a
    // cell holds one code point, and a terminal's idea of their width varies.
    if (w == 0) continue;
    if (x < 0 || x + w > width_) {  // not whole on the canvas
      x += w;
      continue;
    }
    // Overwriting half of a wide character blanks its other half.
    if (line[x].glyph.empty() && x > 0) line[x - 1].glyph = " ";
    if (x + w < width_ && line[x + w].glyph.empty()) line[x + w].glyph = " ";
    Cell& cell = line[x];
    if (IsControl(cp) || cp == 0xFFFD) {
      cell.glyph = "\uFFFD";
    } else {
      cell.glyph.assign(bytes);
    }
    cell.attr = attr;
    if (w == 2) {
      line[x + 1].glyph.clear();
      line[x + 1].attr = attr;
    }
    x += w;
    written += w;
  }
  return written;
}

void Canvas::SetAttr(int row, int col, int width, Attr attr) {
  if (row < 0 || row >= height_) return;
  int end = width < 0 ? width_ : std::min<long long>(width_, static_cast<long long>(col) + width);
  for (int x = std::max(col, 0); x < end; ++x) {
    cells_[static_cast<size_t>(row) * width_ + x].attr = attr;
  }
}

std::string Canvas::RowText(int row) const {
  std::string out;
  if (row < 0 || row >= height_) return out;
  for (int x = 0; x < width_; ++x) out += at(row, x).glyph;
  out.erase(out.find_last_not_of(' ') + 1);
  return out;
}

std::vector<std::string> Canvas::Lines() const {
  std::vector<std::string> out;
  out.reserve(height_);
  for (int r = 0; r < height_; ++r) out.push_back(RowText(r));
  return out;
}

std::string RenderDiff(const Canvas* prev, const Canvas& next, ColorDepth depth) {
  bool full = prev == nullptr || prev->width() != next.width() || prev->height() != next.height();
  std::string out;
  // The attribute the terminal draws with now; unknown until the first SGR.
  std::optional<Attr> current;
  if (full) {
    out += "\033[0m\033[2J";
    current = Attr{};
  }
  const int width = next.width();
  for (int r = 0; r < next.height(); ++r) {
    int first, last;
    if (full) {
      // The cleared screen already shows trailing default blanks.
      first = 0;
      last = width - 1;
      while (last >= 0 && next.at(r, last) == Cell{}) --last;
    } else {
      first = 0;
      while (first < width && next.at(r, first) == prev->at(r, first)) ++first;
      if (first == width) continue;
      last = width - 1;
      while (next.at(r, last) == prev->at(r, last)) --last;
    }
    if (last < first) continue;
    // Start at the wide character that covers the first changed cell, so it is written whole.
    while (first > 0 && next.at(r, first).glyph.empty()) --first;
    AppendMove(r, first, &out);
    for (int c = first; c <= last; ++c) {
      const Cell& cell = next.at(r, c);
      if (cell.glyph.empty()) continue;  // covered by the wide character on its left
      Attr a = Effective(cell.attr, depth);
      if (!current || *current != a) {
        AppendSgr(a, depth, &out);
        current = a;
      }
      out += cell.glyph;
    }
  }
  if (out.empty()) return out;
  out += "\033[0m";
  return out;
}

}  // namespace tarn::tui
