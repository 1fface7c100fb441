#include "tui/text.h"

#include <algorithm>
#include <array>

#include "common/utf8.h"

namespace tarn::tui {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Code points whose width is not 1, as sorted, disjoint, inclusive ranges. A small table of the
// blocks text in a catalog actually uses (CJK, Hangul, fullwidth forms, emoji, combining marks),
// not the whole of Unicode's East Asian Width property.
struct WidthRange {
  char32_t first;
  char32_t last;
  int width;
};
constexpr std::array<WidthRange, 18> kWidths = {{
    {0x0300, 0x036F, 0},    // combining diacritical marks
    {0x1100, 0x115F, 2},    // Hangul Jamo leading consonants
    {0x1AB0, 0x1AFF, 0},    // combining diacritical marks extended
    {0x1DC0, 0x1DFF, 0},    // combining diacritical marks supplement
    {0x200B, 0x200F, 0},    // zero-width space, joiners, direction marks
    {0x20D0, 0x20FF, 0},    // combining marks for symbols
    {0x2E80, 0x303E, 2},    // CJK radicals .. CJK symbols (U+303F is a half-width space)
    {0x3040, 0xA4CF, 2},    // kana .. CJK unified ideographs .. Yi
    {0xAC00, 0xD7A3, 2},    // Hangul syllables
    {0xF900, 0xFAFF, 2},    // CJK compatibility ideographs
    {0xFE00, 0xFE0F, 0},    // variation selectors
    {0xFE20, 0xFE2F, 0},    // combining half marks
    {0xFE30, 0xFE4F, 2},    // CJK compatibility forms
    {0xFF00, 0xFF60, 2},    // fullwidth forms
    {0xFFE0, 0xFFE6, 2},    // fullwidth signs
    {0x1F300, 0x1F64F, 2},  // pictographs, emoticons
    {0x1F900, 0x1F9FF, 2},  // supplemental symbols and pictographs
    {0x20000, 0x3FFFD, 2},  // CJK extension planes
}};

constexpr bool TableIsSorted() {
  for (size_t i = 0; i < kWidths.size(); ++i) {
    if (kWidths[i].first > kWidths[i].last) return false;
    if (i > 0 && kWidths[i - 1].last >= kWidths[i].first) return false;
  }
  return true;
}
static_assert(TableIsSorted(), "kWidths must be sorted and disjoint for the binary search");

}  // namespace

size_t DecodeUtf8(std::string_view s, size_t i, char32_t* cp) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int len = Utf8SequenceLength(p + i, p + s.size());
  if (len == 0) {
    *cp = kReplacement;
    return 1;
  }
  *cp = DecodeUtf8Sequence(p + i, len);
  return static_cast<size_t>(len);
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  tarn::AppendUtf8(static_cast<uint32_t>(cp), out);
}

int CodePointWidth(char32_t cp) {
  if (cp < 0x300) return 1;  // ASCII, Latin-1 and controls (drawn as U+FFFD)
  auto it = std::upper_bound(kWidths.begin(), kWidths.end(), cp,
                             [](char32_t c, const WidthRange& r) { return c < r.first; });
  if (it == kWidths.begin()) return 1;
  --it;
  return cp <= it->last ? it->width : 1;
}

int TextWidth(std::string_view s) {
  int width = 0;
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    i += DecodeUtf8(s, i, &cp);
    width += CodePointWidth(cp);
  }
  return width;
}

std::string FitText(std::string_view s, int width, bool ellipsis) {
  if (width <= 0) return {};
  if (TextWidth(s) <= width) return std::string(s);
  int limit = ellipsis ? width - 1 : width;
  int cols = 0;
  size_t end = 0;
  while (end < s.size()) {
    char32_t cp;
    size_t n = DecodeUtf8(s, end, &cp);
    int w = CodePointWidth(cp);
    if (cols + w > limit) break;
    cols += w;
    end += n;
  }
  std::string out(s.substr(0, end));
  if (ellipsis) out += "\u2026";
  return out;
}

std::string PadText(std::string_view s, int width) {
  if (width <= 0) return {};
  std::string out = FitText(s, width, true);
  int w = TextWidth(out);
  if (w < width) out.append(static_cast<size_t>(width - w), ' ');
  return out;
}

}  // namespace tarn::tui
