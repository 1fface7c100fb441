// Fuzzes what the full-screen app takes from outside: the bytes a terminal sends (KeyDecoder, fed
// in arbitrary pieces) and text of any encoding drawn on the screen (a file name, a sampled
// value: TextWidth, FitText, Canvas::Put, RenderDiff). Nothing may crash or loop, every key is
// whole, and drawn text never overflows its columns.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tui/canvas.h"
#include "tui/terminal.h"
#include "tui/text.h"

namespace {

void Fail(const std::string& what) {
  std::fprintf(stderr, "tui_input_fuzz: %s\n", what.c_str());
  std::abort();
}

void CheckKey(const tarn::tui::Key& k) {
  using tarn::tui::KeyCode;
  if (k.code == KeyCode::kChar) {
    char32_t cp = 0;
    if (k.text.empty() || tarn::tui::DecodeUtf8(k.text, 0, &cp) != k.text.size()) {
      Fail("a character key that is not one code point");
    }
  } else if (k.code == KeyCode::kCtrl) {
    if (k.text.size() != 1 || k.text[0] < 'a' || k.text[0] > 'z') Fail("a bad control key");
  }
}

void FuzzKeys(std::string_view data) {
  tarn::tui::KeyDecoder d;
  size_t keys = 0;
  size_t i = 0;
  while (i < data.size()) {
    // Pieces of 1..8 bytes, sized by the data itself.
    size_t n = 1 + static_cast<unsigned char>(data[i]) % 8;
    d.Feed(data.substr(i, n));
    i += n;
    while (auto k = d.Next(false)) {
      CheckKey(*k);
      if (++keys > data.size()) Fail("more keys than bytes");
    }
  }
  for (int idle = 0; d.pending(); ++idle) {
    if (idle > static_cast<int>(data.size()) + 1) Fail("the decoder never drains");
    if (auto k = d.Next(true)) CheckKey(*k);
  }
}

void FuzzText(std::string_view data) {
  if (data.size() < 3) return;
  const int width = static_cast<unsigned char>(data[0]) % 40;
  const int height = 1 + static_cast<unsigned char>(data[1]) % 4;
  const int col = static_cast<int>(static_cast<unsigned char>(data[2]) % 48) - 4;
  std::string_view text = data.substr(3);
  for (int w : {0, 1, 2, width}) {
    if (tarn::tui::TextWidth(tarn::tui::FitText(text, w)) > w) Fail("FitText overflows");
    if (tarn::tui::TextWidth(tarn::tui::PadText(text, w)) != w) Fail("PadText is not exact");
  }
  tarn::tui::Canvas a(width, height);
  tarn::tui::Canvas b(width, height);
  a.Put(0, col, text);
  b.Put(height - 1, col, text, tarn::tui::Attr::Role(tarn::render::ColorRole::kAccent), width / 2);
  b.Put(0, 0, text.substr(text.size() / 2));
  for (const auto* c : {&a, &b}) {
    for (int r = 0; r < height; ++r) {
      if (tarn::tui::TextWidth(c->RowText(r)) > width) Fail("a row wider than the canvas");
    }
  }
  for (auto depth : {tarn::render::ColorDepth::kNone, tarn::render::ColorDepth::kTrue}) {
    std::string out = tarn::tui::RenderDiff(&a, b, depth);
    out += tarn::tui::RenderDiff(nullptr, a, depth);
    if (out.size() < 4 || out.compare(out.size() - 4, 4, "\033[0m") != 0) {
      Fail("a frame that does not end with SGR 0");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  FuzzKeys(in);
  FuzzText(in);
  return 0;
}
