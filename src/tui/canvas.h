// A frame of the full-screen app as a grid of cells, drawn by the views (view.h) and written to
// the terminal by RenderDiff. The grid is plain data, so what a screen shows can be tested
// without a terminal: Lines() gives the text of every row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "render/style.h"

namespace tarn::tui {

using render::ColorDepth;
using render::ColorRole;

// How a cell is drawn: a palette role (style.h; none = the terminal's default colour) and
// attributes.
struct Attr {
  std::optional<ColorRole> role;
  bool bold = false;
  bool reverse = false;  // swapped foreground and background (a selection bar)
  bool underline = false;

  static Attr Role(ColorRole r) {
    Attr a;
    a.role = r;
    return a;
  }
  bool operator==(const Attr& o) const {
    return role == o.role && bold == o.bold && reverse == o.reverse && underline == o.underline;
  }
  bool operator!=(const Attr& o) const { return !(*this == o); }
};

struct Cell {
  // One code point as UTF-8 (" " when blank). The cell right of a 2-column character holds ""
  // (it is covered by it).
  std::string glyph = " ";
  Attr attr;
  bool operator==(const Cell& o) const { return glyph == o.glyph && attr == o.attr; }
  bool operator!=(const Cell& o) const { return !(*this == o); }
};

class Canvas {
 public:
  Canvas(int width, int height);  // negative sizes count as 0

  int width() const { return width_; }
  int height() const { return height_; }
  // Blanks every cell.
  void Clear();
  const Cell& at(int row, int col) const { return cells_[static_cast<size_t>(row) * width_ + col]; }

  // Writes `text` from (row, col), clipped to the canvas and, when max_width >= 0, to
  // max_width columns (cut text ends in "…" when `ellipsis`). A 2-column character that
  // does not fit whole is not drawn. Rows and columns off the canvas are ignored (nothing
  // is drawn, no crash). Returns the columns written. Controls are drawn as U+FFFD.
  int Put(int row, int col, std::string_view text, Attr attr = {}, int max_width = -1,
          bool ellipsis = true);
  // Sets the attribute of `width` cells from (row, col) (clipped), keeping their glyphs; -1:
  // to the end of the row.
  void SetAttr(int row, int col, int width, Attr attr);

  // The text of a row, trailing blanks removed.
  std::string RowText(int row) const;
  // Every row's text.
  std::vector<std::string> Lines() const;

 private:
  int width_;
  int height_;
  std::vector<Cell> cells_;
};

// The bytes that make a terminal showing `prev` show `next`: only the rows (and, within a row,
// the cells) that differ are written, with cursor moves (CSI row;col H) and SGR attributes at
// `depth` (the palette of style.h: RoleEscape; bold/reverse/underline as SGR 1/7/4; every
// attribute change starts from SGR 0). `prev` == nullptr or of another size: the whole screen
// is cleared (CSI 2J) and written. The result ends with SGR 0.
std::string RenderDiff(const Canvas* prev, const Canvas& next, ColorDepth depth);

}  // namespace tarn::tui
