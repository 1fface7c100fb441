#include "render/style.h"

#include <gtest/gtest.h>

namespace tarn::render {
namespace {

TEST(Style, NoColorWinsOverEverything) {
  EXPECT_EQ(DetectColorDepth(true, "1", "truecolor", "xterm-256color"), ColorDepth::kNone);
  // An empty NO_COLOR does not count (no-color.org).
  EXPECT_EQ(DetectColorDepth(true, "", "truecolor", "xterm"), ColorDepth::kTrue);
}

TEST(Style, NotATerminalOrDumbIsNone) {
  EXPECT_EQ(DetectColorDepth(false, nullptr, "truecolor", "xterm"), ColorDepth::kNone);
  EXPECT_EQ(DetectColorDepth(true, nullptr, "truecolor", "dumb"), ColorDepth::kNone);
}

TEST(Style, ColortermPicksTruecolorElse256) {
  EXPECT_EQ(DetectColorDepth(true, nullptr, "truecolor", "xterm"), ColorDepth::kTrue);
  EXPECT_EQ(DetectColorDepth(true, nullptr, "24BIT", "xterm"), ColorDepth::kTrue);
  EXPECT_EQ(DetectColorDepth(true, nullptr, nullptr, "xterm"), ColorDepth::k256);
  EXPECT_EQ(DetectColorDepth(true, nullptr, "yes", nullptr), ColorDepth::k256);
}

TEST(Style, NearestXterm256) {
  EXPECT_EQ(NearestXterm256({0, 0, 0}), 16);                            // cube black
  EXPECT_EQ(NearestXterm256({255, 255, 255}), 231);                     // cube white
  EXPECT_EQ(NearestXterm256({255, 0, 0}), 196);                         // pure red
  EXPECT_EQ(NearestXterm256({0, 255, 0}), 46);                          // pure green
  EXPECT_EQ(NearestXterm256({0, 0, 255}), 21);                          // pure blue
  EXPECT_EQ(NearestXterm256({95, 135, 175}), 16 + 36 * 1 + 6 * 2 + 3);  // exact cube point
  EXPECT_EQ(NearestXterm256({128, 128, 128}), 244);  // grey ramp: 8 + 10 * 12 = 128
  EXPECT_EQ(NearestXterm256({18, 18, 18}), 233);     // dark grey on the ramp
  // Every palette colour maps into the extended range.
  for (auto role : {ColorRole::kAccent, ColorRole::kDim, ColorRole::kOk, ColorRole::kWarn,
                    ColorRole::kError, ColorRole::kHeader}) {
    int i = NearestXterm256(RoleColor(role));
    EXPECT_GE(i, 16);
    EXPECT_LE(i, 255);
  }
}

TEST(Style, PaintByDepth) {
  EXPECT_EQ(Paint(ColorDepth::kNone, ColorRole::kError, "x"), "x");
  EXPECT_EQ(Paint(ColorDepth::kTrue, ColorRole::kOk, ""), "");
  Rgb ok = RoleColor(ColorRole::kOk);
  EXPECT_EQ(Paint(ColorDepth::kTrue, ColorRole::kOk, "done"),
            "\033[38;2;" + std::to_string(ok.r) + ";" + std::to_string(ok.g) + ";" +
                std::to_string(ok.b) + "mdone\033[0m");
  EXPECT_EQ(Paint(ColorDepth::k256, ColorRole::kOk, "done"),
            "\033[38;5;" + std::to_string(NearestXterm256(ok)) + "mdone\033[0m");
  // Errors and headers are bold too.
  EXPECT_EQ(Paint(ColorDepth::k256, ColorRole::kError, "e").rfind("\033[1;38;5;", 0), 0u);
  Style none(ColorDepth::kNone);
  EXPECT_FALSE(none.enabled());
  EXPECT_EQ(none.accent("a"), "a");
}

TEST(Style, DisableColorTurnsEveryStreamOff) {
  DisableColor();
  EXPECT_EQ(DepthFor(1), ColorDepth::kNone);
  EXPECT_EQ(DepthFor(2), ColorDepth::kNone);
}

}  // namespace
}  // namespace tarn::render
