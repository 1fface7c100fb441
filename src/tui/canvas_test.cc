#include "tui/canvas.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "tui/text.h"

namespace tarn::tui {
namespace {

size_t Count(const std::string& haystack, std::string_view needle) {
  size_t n = 0;
  for (size_t p = haystack.find(needle); p != std::string::npos; p = haystack.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

TEST(Canvas, SizesAndBlankCells) {
  Canvas c(4, 2);
  EXPECT_EQ(c.width(), 4);
  EXPECT_EQ(c.height(), 2);
  EXPECT_EQ(c.at(1, 3), Cell{});
  EXPECT_EQ(c.Lines(), (std::vector<std::string>{"", ""}));
  Canvas empty(-3, -1);
  EXPECT_EQ(empty.width(), 0);
  EXPECT_EQ(empty.height(), 0);
  EXPECT_TRUE(empty.Lines().empty());
  EXPECT_EQ(empty.Put(0, 0, "x"), 0);
  EXPECT_EQ(RenderDiff(nullptr, empty, ColorDepth::kTrue), "\033[0m\033[2J\033[0m");
  // Rows without columns (a terminal 0 wide): nothing is drawn, nothing is touched.
  Canvas flat(0, 3);
  EXPECT_EQ(flat.Put(1, 0, "x"), 0);
  flat.SetAttr(1, 0, -1, Attr::Role(ColorRole::kDim));
  EXPECT_EQ(flat.Lines(), (std::vector<std::string>{"", "", ""}));
}

TEST(Canvas, PutWritesTextAndAttr) {
  Canvas c(10, 3);
  Attr accent = Attr::Role(ColorRole::kAccent);
  EXPECT_EQ(c.Put(1, 2, "abc", accent), 3);
  EXPECT_EQ(c.RowText(1), "  abc");
  EXPECT_EQ(c.at(1, 2).glyph, "a");
  EXPECT_EQ(c.at(1, 2).attr, accent);
  EXPECT_EQ(c.at(1, 5).attr, Attr{});
  EXPECT_EQ(c.Lines(), (std::vector<std::string>{"", "  abc", ""}));
  c.Clear();
  EXPECT_EQ(c.Lines(), (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(c.at(1, 2), Cell{});
}

TEST(Canvas, PutClipsToTheCanvas) {
  Canvas c(5, 2);
  EXPECT_EQ(c.Put(0, 3, "abcdef"), 2);
  EXPECT_EQ(c.RowText(0), "   ab");
  EXPECT_EQ(c.Put(-1, 0, "x"), 0);
  EXPECT_EQ(c.Put(2, 0, "x"), 0);
  EXPECT_EQ(c.Put(1, 5, "x"), 0);
  EXPECT_EQ(c.Put(1, 99, "x"), 0);
  // Left of the canvas: what falls on it is drawn.
  EXPECT_EQ(c.Put(1, -2, "abcd"), 2);
  EXPECT_EQ(c.RowText(1), "cd");
}

TEST(Canvas, PutMaxWidth) {
  Canvas c(10, 1);
  EXPECT_EQ(c.Put(0, 0, "hello world", {}, 5), 5);
  EXPECT_EQ(c.RowText(0), "hell\u2026");
  c.Clear();
  EXPECT_EQ(c.Put(0, 0, "hello world", {}, 5, /*ellipsis=*/false), 5);
  EXPECT_EQ(c.RowText(0), "hello");
  c.Clear();
  EXPECT_EQ(c.Put(0, 0, "hi", {}, 5), 2);
  EXPECT_EQ(c.RowText(0), "hi");
  EXPECT_EQ(c.Put(0, 0, "zz", {}, 0), 0);
  EXPECT_EQ(c.RowText(0), "hi");
  // max_width and the canvas edge together: the edge cuts hard.
  c.Clear();
  EXPECT_EQ(c.Put(0, 8, "abcdef", {}, 4), 2);
  EXPECT_EQ(c.RowText(0), "        ab");
}

TEST(Canvas, WideCharacters) {
  Canvas c(5, 1);
  EXPECT_EQ(c.Put(0, 0, "字x"), 3);
  EXPECT_EQ(c.at(0, 0).glyph, "字");
  EXPECT_EQ(c.at(0, 1).glyph, "");
  EXPECT_EQ(c.at(0, 2).glyph, "x");
  EXPECT_EQ(c.RowText(0), "字x");
  // Half off the right edge: not drawn, and the cell keeps what it had.
  c.Put(0, 4, "y");
  EXPECT_EQ(c.Put(0, 4, "字"), 0);
  EXPECT_EQ(c.at(0, 4).glyph, "y");
  // Half off the left edge: not drawn either.
  Canvas d(3, 1);
  EXPECT_EQ(d.Put(0, -1, "字ab"), 2);
  EXPECT_EQ(d.RowText(0), " ab");
  // A wide character that does not fit after a narrow one.
  Canvas e(3, 1);
  EXPECT_EQ(e.Put(0, 1, "a字"), 1);
  EXPECT_EQ(e.RowText(0), " a");
}

TEST(Canvas, OverwritingHalfAWideCharacterBlanksTheOtherHalf) {
  Canvas c(6, 1);
  Attr warn = Attr::Role(ColorRole::kWarn);
  c.Put(0, 0, "字字字", warn);
  // Over the right half of the first: its left half becomes a blank.
  c.Put(0, 1, "x");
  EXPECT_EQ(c.RowText(0), " x字字");
  EXPECT_EQ(c.at(0, 0).glyph, " ");
  EXPECT_EQ(c.at(0, 0).attr, warn);  // the blank keeps the attribute it had
  // Over the left half of the last: its right half becomes a blank.
  c.Put(0, 4, "y");
  EXPECT_EQ(c.RowText(0), " x字y");
  EXPECT_EQ(c.at(0, 5).glyph, " ");
  // A wide character straddling another's halves blanks both neighbours.
  Canvas d(6, 1);
  d.Put(0, 0, "字字字");
  d.Put(0, 1, "가");
  EXPECT_EQ(d.RowText(0), " 가 字");
  EXPECT_EQ(d.at(0, 2).glyph, "");
  EXPECT_EQ(d.at(0, 3).glyph, " ");
}

TEST(Canvas, ControlsAndInvalidBytesAreReplacementCharacters) {
  Canvas c(8, 1);
  EXPECT_EQ(c.Put(0, 0, "a\tb\x1b[\xff\x7f"), 7);
  EXPECT_EQ(c.RowText(0), "a\uFFFDb\uFFFD[\uFFFD\uFFFD");
}

TEST(Canvas, ZeroWidthCodePointsAreDropped) {
  Canvas c(8, 1);
  EXPECT_EQ(c.Put(0, 0, "e\u0301x\u200By"), 3);
  EXPECT_EQ(c.RowText(0), "exy");
}

TEST(Canvas, SetAttrKeepsGlyphs) {
  Canvas c(6, 2);
  c.Put(0, 0, "abcdef");
  Attr bar;
  bar.reverse = true;
  c.SetAttr(0, 2, 2, bar);
  EXPECT_EQ(c.RowText(0), "abcdef");
  EXPECT_EQ(c.at(0, 1).attr, Attr{});
  EXPECT_EQ(c.at(0, 2).attr, bar);
  EXPECT_EQ(c.at(0, 3).attr, bar);
  EXPECT_EQ(c.at(0, 4).attr, Attr{});
  c.SetAttr(1, 3, -1, bar);
  EXPECT_EQ(c.at(1, 2).attr, Attr{});
  EXPECT_EQ(c.at(1, 3).attr, bar);
  EXPECT_EQ(c.at(1, 5).attr, bar);
  // Clipped on both sides; rows off the canvas ignored.
  Canvas d(4, 1);
  d.SetAttr(0, -2, 4, bar);
  EXPECT_EQ(d.at(0, 1).attr, bar);
  EXPECT_EQ(d.at(0, 2).attr, Attr{});
  d.SetAttr(0, 3, 100, bar);
  EXPECT_EQ(d.at(0, 3).attr, bar);
  d.SetAttr(5, 0, -1, bar);
  d.SetAttr(-1, 0, -1, bar);
}

TEST(Canvas, RowTextKeepsInnerBlanks) {
  Canvas c(10, 1);
  c.Put(0, 1, "a  b");
  EXPECT_EQ(c.RowText(0), " a  b");
}

// ---- RenderDiff ----

TEST(RenderDiff, IdenticalCanvasesNeedNothing) {
  Canvas a(8, 3);
  a.Put(1, 1, "hello", Attr::Role(ColorRole::kOk));
  Canvas b = a;
  EXPECT_EQ(RenderDiff(&a, b, ColorDepth::kTrue), "");
}

TEST(RenderDiff, OneChangedCellMovesThereAndWritesIt) {
  Canvas a(8, 4);
  a.Put(2, 0, "abcdefgh");
  Canvas b = a;
  b.Put(2, 4, "X");
  std::string out = RenderDiff(&a, b, ColorDepth::kNone);
  EXPECT_EQ(out, "\033[3;5H\033[0mX\033[0m");
  EXPECT_EQ(Count(out, "H"), 1u);
}

TEST(RenderDiff, OnlyTheChangedSpanOfEachChangedRow) {
  Canvas a(10, 3);
  a.Put(0, 0, "0123456789");
  a.Put(1, 0, "0123456789");
  a.Put(2, 0, "0123456789");
  Canvas b = a;
  b.Put(0, 2, "x");
  b.Put(0, 6, "y");
  b.Put(2, 9, "z");
  std::string out = RenderDiff(&a, b, ColorDepth::kNone);
  EXPECT_EQ(out, "\033[1;3H\033[0mx345y\033[3;10Hz\033[0m");
}

TEST(RenderDiff, FullRepaintWithoutPrevOrOnResize) {
  Canvas b(4, 2);
  b.Put(0, 0, "ab");
  b.Put(1, 1, "c");
  std::string out = RenderDiff(nullptr, b, ColorDepth::kNone);
  EXPECT_EQ(out, "\033[0m\033[2J\033[1;1Hab\033[2;1H c\033[0m");
  Canvas smaller(3, 2);
  EXPECT_EQ(RenderDiff(&smaller, b, ColorDepth::kNone), out);
  // A blank screen needs only the clear.
  Canvas blank(4, 2);
  EXPECT_EQ(RenderDiff(nullptr, blank, ColorDepth::kNone), "\033[0m\033[2J\033[0m");
}

TEST(RenderDiff, SgrOnlyWhenTheAttributeChanges) {
  Canvas b(6, 1);
  b.Put(0, 0, "aaa", Attr::Role(ColorRole::kAccent));
  b.Put(0, 3, "bbb", Attr::Role(ColorRole::kDim));
  std::string out = RenderDiff(nullptr, b, ColorDepth::k256);
  std::string accent = render::RoleEscape(ColorDepth::k256, ColorRole::kAccent);
  std::string dim = render::RoleEscape(ColorDepth::k256, ColorRole::kDim);
  EXPECT_EQ(out, "\033[0m\033[2J\033[1;1H\033[0m" + accent + "aaa\033[0m" + dim + "bbb\033[0m");
}

TEST(RenderDiff, ColourSequencesByDepth) {
  Canvas b(12, 1);
  Attr a = Attr::Role(ColorRole::kOk);
  a.bold = true;
  a.underline = true;
  b.Put(0, 0, "ok", a);
  Attr bar;
  bar.reverse = true;
  b.Put(0, 3, "sel", bar);

  std::string none = RenderDiff(nullptr, b, ColorDepth::kNone);
  EXPECT_EQ(none.find("38;"), std::string::npos) << none;
  EXPECT_EQ(none.find("\033[1m"), std::string::npos) << none;
  EXPECT_EQ(none.find("\033[4m"), std::string::npos) << none;
  EXPECT_NE(none.find("\033[7msel"), std::string::npos) << none;  // the selection stays visible
  // Every escape at kNone is a cursor move, a clear or SGR 0/7.
  for (size_t p = none.find('\033'); p != std::string::npos; p = none.find('\033', p + 1)) {
    std::string_view rest = std::string_view(none).substr(p);
    bool allowed = rest.rfind("\033[0m", 0) == 0 || rest.rfind("\033[7m", 0) == 0 ||
                   rest.rfind("\033[2J", 0) == 0 || rest.find('H') < rest.find_first_of("mJ");
    EXPECT_TRUE(allowed) << "at " << p << " in " << none;
  }

  std::string truecolor = RenderDiff(nullptr, b, ColorDepth::kTrue);
  EXPECT_NE(truecolor.find("38;2;"), std::string::npos);
  EXPECT_EQ(truecolor.find("38;5;"), std::string::npos);
  EXPECT_NE(truecolor.find("\033[1m"), std::string::npos);
  EXPECT_NE(truecolor.find("\033[4m"), std::string::npos);
  std::string x256 = RenderDiff(nullptr, b, ColorDepth::k256);
  EXPECT_NE(x256.find("38;5;"), std::string::npos);
  EXPECT_EQ(x256.find("38;2;"), std::string::npos);
  for (const std::string* s : {&none, &truecolor, &x256}) {
    ASSERT_GE(s->size(), 4u);
    EXPECT_EQ(s->substr(s->size() - 4), "\033[0m");
  }
}

TEST(RenderDiff, WideCharacterWrittenOnceAndWhole) {
  Canvas a(6, 1);
  a.Put(0, 0, "ab字");
  Canvas b = a;
  b.Put(0, 3, "x");  // over the right half: the wide character's cell becomes a blank
  EXPECT_EQ(RenderDiff(&a, b, ColorDepth::kNone), "\033[1;3H\033[0m x\033[0m");
  // A change in the covered cell alone rewrites the wide character that covers it.
  Canvas c = a;
  c.SetAttr(0, 3, 1, Attr::Role(ColorRole::kDim));
  std::string out = RenderDiff(&a, c, ColorDepth::kNone);
  EXPECT_EQ(out, "\033[1;3H\033[0m字\033[0m");  // starts at the wide character
}

// A terminal reduced to what RenderDiff uses: CSI H, CSI 2J, SGR and printable UTF-8 into a grid,
// with a wide character taking two cells the way xterm does it.
class VirtualTerminal {
 public:
  struct VCell {
    std::string glyph = " ";
    std::string fg;  // "" default, "5;N" or "2;R;G;B"
    bool bold = false, reverse = false, underline = false;
    bool operator==(const VCell& o) const {
      return glyph == o.glyph && fg == o.fg && bold == o.bold && reverse == o.reverse &&
             underline == o.underline;
    }
  };

  VirtualTerminal(int w, int h) : w_(w), h_(h), grid_(static_cast<size_t>(w) * h) {}

  VCell& cell(int r, int c) { return grid_[static_cast<size_t>(r) * w_ + c]; }

  void Apply(std::string_view s) {
    size_t i = 0;
    while (i < s.size()) {
      if (s[i] == '\033') {
        ASSERT_LT(i + 1, s.size());
        ASSERT_EQ(s[i + 1], '[');
        size_t j = i + 2;
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';')) {
          ++j;
        }
        ASSERT_LT(j, s.size());
        Csi(std::string(s.substr(i + 2, j - i - 2)), s[j]);
        i = j + 1;
        continue;
      }
      ASSERT_GE(static_cast<unsigned char>(s[i]), 0x20) << "a raw control byte at " << i;
      char32_t cp;
      size_t n = DecodeUtf8(s, i, &cp);
      // Every glyph RenderDiff writes is valid UTF-8 (invalid bytes became U+FFFD in Put).
      ASSERT_TRUE(cp != 0xFFFD || s.substr(i, n) == "\uFFFD") << "invalid UTF-8 at " << i;
      Print(std::string(s.substr(i, n)), CodePointWidth(cp));
      i += n;
    }
  }

  // Every cell compared with what `c` should look like at `depth`.
  void ExpectShows(const Canvas& c, ColorDepth depth, const std::string& context) {
    ASSERT_EQ(c.width(), w_);
    ASSERT_EQ(c.height(), h_);
    for (int r = 0; r < h_; ++r) {
      std::string text;
      for (int x = 0; x < w_; ++x) text += cell(r, x).glyph;
      text.erase(text.find_last_not_of(' ') + 1);
      EXPECT_EQ(text, c.RowText(r)) << context << " row " << r;
      for (int x = 0; x < w_; ++x) {
        const Cell& cc = c.at(r, x);
        if (cc.glyph.empty()) {
          // A covered half shows in the attribute of its wide character; its own is not drawn.
          EXPECT_EQ(cell(r, x).glyph, "") << context << " cell " << r << "," << x;
          continue;
        }
        VCell want;
        want.glyph = cc.glyph;
        want.reverse = cc.attr.reverse;
        if (depth != ColorDepth::kNone) {
          want.underline = cc.attr.underline;
          want.bold = cc.attr.bold || (cc.attr.role && render::RoleBold(*cc.attr.role));
          if (cc.attr.role) {
            render::Rgb rgb = render::RoleColor(*cc.attr.role);
            want.fg = depth == ColorDepth::kTrue
                          ? "2;" + std::to_string(rgb.r) + ";" + std::to_string(rgb.g) + ";" +
                                std::to_string(rgb.b)
                          : "5;" + std::to_string(render::NearestXterm256(rgb));
          }
        }
        EXPECT_TRUE(cell(r, x) == want)
            << context << " cell " << r << "," << x << " shows '" << cell(r, x).glyph << "' fg "
            << cell(r, x).fg << ", want '" << want.glyph << "' fg " << want.fg;
      }
    }
  }

 private:
  void Csi(const std::string& params, char final) {
    std::vector<int> p;
    size_t start = 0;
    while (start <= params.size() && !params.empty()) {
      size_t semi = params.find(';', start);
      if (semi == std::string::npos) semi = params.size();
      p.push_back(semi == start ? 0 : std::stoi(params.substr(start, semi - start)));
      start = semi + 1;
    }
    switch (final) {
      case 'H': {
        int r = p.size() > 0 && p[0] > 0 ? p[0] : 1;
        int c = p.size() > 1 && p[1] > 0 ? p[1] : 1;
        ASSERT_LE(r, h_);
        ASSERT_LE(c, w_);
        row_ = r - 1;
        col_ = c - 1;
        break;
      }
      case 'J':
        ASSERT_EQ(p, std::vector<int>{2});
        for (VCell& c : grid_) c = VCell{};
        break;
      case 'm':
        if (p.empty()) p.push_back(0);
        for (size_t k = 0; k < p.size(); ++k) {
          switch (p[k]) {
            case 0:
              pen_ = VCell{};
              break;
            case 1:
              pen_.bold = true;
              break;
            case 4:
              pen_.underline = true;
              break;
            case 7:
              pen_.reverse = true;
              break;
            case 38:
              ASSERT_LT(k + 1, p.size());
              if (p[k + 1] == 5) {
                ASSERT_LT(k + 2, p.size());
                pen_.fg = "5;" + std::to_string(p[k + 2]);
                k += 2;
              } else {
                ASSERT_EQ(p[k + 1], 2);
                ASSERT_LT(k + 4, p.size());
                pen_.fg = "2;" + std::to_string(p[k + 2]) + ";" + std::to_string(p[k + 3]) + ";" +
                          std::to_string(p[k + 4]);
                k += 4;
              }
              break;
            default:
              FAIL() << "unexpected SGR " << p[k];
          }
        }
        break;
      default:
        FAIL() << "unexpected CSI final " << final;
    }
  }

  void Print(const std::string& glyph, int w) {
    ASSERT_GT(w, 0) << "a zero-width code point written";
    ASSERT_LE(col_ + w, w_) << "written past the right edge (it would wrap)";
    if (cell(row_, col_).glyph.empty() && col_ > 0) cell(row_, col_ - 1).glyph = " ";
    if (col_ + w < w_ && cell(row_, col_ + w).glyph.empty()) cell(row_, col_ + w).glyph = " ";
    VCell v = pen_;
    v.glyph = glyph;
    cell(row_, col_) = v;
    if (w == 2) {
      v.glyph.clear();
      cell(row_, col_ + 1) = v;
    }
    col_ += w;
  }

  int w_, h_;
  std::vector<VCell> grid_;
  int row_ = 0, col_ = 0;
  VCell pen_;
};

TEST(VirtualTerminal, ModelsWideCharactersLikeATerminal) {
  // The model must itself be right for the test below to mean anything.
  VirtualTerminal vt(4, 1);
  vt.Apply("\033[1;1H字字\033[1;2Hx");
  EXPECT_EQ(vt.cell(0, 0).glyph, " ");
  EXPECT_EQ(vt.cell(0, 1).glyph, "x");
  EXPECT_EQ(vt.cell(0, 2).glyph, "字");
  vt.Apply("\033[1;3H\033[1;38;5;12mz");
  EXPECT_EQ(vt.cell(0, 2).glyph, "z");
  EXPECT_EQ(vt.cell(0, 3).glyph, " ");
  EXPECT_EQ(vt.cell(0, 2).fg, "5;12");
  EXPECT_TRUE(vt.cell(0, 2).bold);
}

bool SameCells(const Canvas& a, const Canvas& b) {
  if (a.width() != b.width() || a.height() != b.height()) return false;
  for (int r = 0; r < a.height(); ++r) {
    for (int c = 0; c < a.width(); ++c) {
      if (a.at(r, c) != b.at(r, c)) return false;
    }
  }
  return true;
}

Attr RandomAttr(std::mt19937& rng) {
  Attr a;
  if (rng() % 2) a.role = static_cast<ColorRole>(rng() % 6);
  a.bold = rng() % 4 == 0;
  a.reverse = rng() % 4 == 0;
  a.underline = rng() % 4 == 0;
  return a;
}

void RandomEdit(std::mt19937& rng, Canvas* c) {
  static const char* const kPieces[] = {"a",    "b",       "xyz",   " ",    "字",   "😀",
                                        "é",    "e\u0301", "\t",    "\x01", "\xff", "\u2026",
                                        "가나", "  ",      "🤔z", "Ａ"};
  int op = static_cast<int>(rng() % 10);
  int row = static_cast<int>(rng() % (c->height() + 2)) - 1;
  int col = static_cast<int>(rng() % (c->width() + 3)) - 2;
  if (op == 0) {
    int w = static_cast<int>(rng() % (c->width() + 2)) - 1;
    c->SetAttr(row, col, w, RandomAttr(rng));
    return;
  }
  std::string text;
  for (int n = 1 + static_cast<int>(rng() % 4); n > 0; --n) {
    text += kPieces[rng() % (sizeof(kPieces) / sizeof(kPieces[0]))];
  }
  int max_width = rng() % 3 == 0 ? static_cast<int>(rng() % (c->width() + 1)) : -1;
  c->Put(row, col, text, RandomAttr(rng), max_width, rng() % 2 == 0);
}

Canvas RandomCanvas(std::mt19937& rng, int w, int h) {
  Canvas c(w, h);
  for (int n = static_cast<int>(rng() % (2 * h + 4)); n > 0; --n) RandomEdit(rng, &c);
  return c;
}

TEST(RenderDiff, BytesMakeATerminalShowTheCanvas) {
  std::mt19937 rng(20240607);
  for (int round = 0; round < 500; ++round) {
    int w = 1 + static_cast<int>(rng() % 12);
    int h = 1 + static_cast<int>(rng() % 5);
    ColorDepth depth = static_cast<ColorDepth>(rng() % 3);
    Canvas prev = RandomCanvas(rng, w, h);
    Canvas next = prev;
    if (rng() % 4 == 0) {
      next = RandomCanvas(rng, w, h);  // unrelated
    } else {
      if (rng() % 5 == 0) next.Clear();
      for (int n = static_cast<int>(rng() % 5); n > 0; --n) RandomEdit(rng, &next);
    }
    std::string context = "round " + std::to_string(round);

    VirtualTerminal vt(w, h);
    vt.Apply("\033[1;7;38;5;9m#");  // whatever the screen showed before
    std::string full = RenderDiff(nullptr, prev, depth);
    vt.Apply(full);
    vt.ExpectShows(prev, depth, context + " full");
    // The diff must not rely on the pen the terminal was left with.
    vt.Apply("\033[4;38;2;1;2;3m");
    std::string diff = RenderDiff(&prev, next, depth);
    vt.Apply(diff);
    vt.ExpectShows(next, depth, context + " diff");
    if (SameCells(prev, next)) {
      EXPECT_EQ(diff, "") << context;
    }
    if (HasFailure()) {
      ADD_FAILURE() << context << ": prev " << testing::PrintToString(prev.Lines()) << " next "
                    << testing::PrintToString(next.Lines()) << " full "
                    << testing::PrintToString(full) << " diff " << testing::PrintToString(diff);
      break;
    }
  }
}

}  // namespace
}  // namespace tarn::tui
