#include "render/style.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tarn::render {

namespace {

std::atomic<bool> g_disabled{false};

// The palette (the Dracula family's accents: readable on dark and light backgrounds).
constexpr Rgb kAccent{0xBD, 0x93, 0xF9};  // purple
constexpr Rgb kDim{0x62, 0x72, 0xA4};     // comment grey-blue
constexpr Rgb kOk{0x50, 0xFA, 0x7B};      // green
constexpr Rgb kWarn{0xFF, 0xB8, 0x6C};    // orange
constexpr Rgb kError{0xFF, 0x55, 0x55};   // red
constexpr Rgb kHeader{0x8B, 0xE9, 0xFD};  // cyan

bool EqualsIgnoreCase(const char* a, const char* b) {
  if (a == nullptr) return false;
  return strcasecmp(a, b) == 0;
}

int Dist(int a, int b) { return (a - b) * (a - b); }

}  // namespace

Rgb RoleColor(ColorRole role) {
  switch (role) {
    case ColorRole::kAccent:
      return kAccent;
    case ColorRole::kDim:
      return kDim;
    case ColorRole::kOk:
      return kOk;
    case ColorRole::kWarn:
      return kWarn;
    case ColorRole::kError:
      return kError;
    case ColorRole::kHeader:
      return kHeader;
  }
  return kAccent;
}

bool RoleBold(ColorRole role) { return role == ColorRole::kHeader || role == ColorRole::kError; }

int NearestXterm256(Rgb c) {
  // The cube's six levels per channel.
  static constexpr int kLevels[6] = {0, 95, 135, 175, 215, 255};
  auto nearest_level = [](int v) {
    int best = 0;
    for (int i = 1; i < 6; ++i) {
      if (Dist(v, kLevels[i]) < Dist(v, kLevels[best])) best = i;
    }
    return best;
  };
  int ri = nearest_level(c.r), gi = nearest_level(c.g), bi = nearest_level(c.b);
  int cube = 16 + 36 * ri + 6 * gi + bi;
  int cube_d = Dist(c.r, kLevels[ri]) + Dist(c.g, kLevels[gi]) + Dist(c.b, kLevels[bi]);
  // The grey ramp: 232 + i is 8 + 10 i.
  int avg = (c.r + c.g + c.b) / 3;
  int gi_ramp = avg < 8 ? 0 : (avg > 238 ? 23 : (avg - 8 + 5) / 10);
  if (gi_ramp > 23) gi_ramp = 23;
  int grey = 8 + 10 * gi_ramp;
  int grey_d = Dist(c.r, grey) + Dist(c.g, grey) + Dist(c.b, grey);
  return grey_d < cube_d ? 232 + gi_ramp : cube;
}

ColorDepth DetectColorDepth(bool is_tty, const char* no_color, const char* colorterm,
                            const char* term) {
  // NO_COLOR set to anything non-empty disables colour (no-color.org).
  if (no_color != nullptr && no_color[0] != '\0') return ColorDepth::kNone;
  if (!is_tty) return ColorDepth::kNone;
  if (term != nullptr && std::strcmp(term, "dumb") == 0) return ColorDepth::kNone;
  if (EqualsIgnoreCase(colorterm, "truecolor") || EqualsIgnoreCase(colorterm, "24bit")) {
    return ColorDepth::kTrue;
  }
  return ColorDepth::k256;
}

void DisableColor() { g_disabled = true; }

ColorDepth DepthFor(int fd) {
  if (g_disabled) return ColorDepth::kNone;
  return DetectColorDepth(::isatty(fd) == 1, std::getenv("NO_COLOR"), std::getenv("COLORTERM"),
                          std::getenv("TERM"));
}

std::string RoleEscape(ColorDepth depth, ColorRole role) {
  if (depth == ColorDepth::kNone) return {};
  Rgb c = RoleColor(role);
  std::string out = "\033[";
  if (RoleBold(role)) out += "1;";
  if (depth == ColorDepth::kTrue) {
    out += "38;2;" + std::to_string(c.r) + ";" + std::to_string(c.g) + ";" + std::to_string(c.b);
  } else {
    out += "38;5;" + std::to_string(NearestXterm256(c));
  }
  out += "m";
  return out;
}

std::string Paint(ColorDepth depth, ColorRole role, std::string_view text) {
  if (depth == ColorDepth::kNone || text.empty()) return std::string(text);
  std::string out = RoleEscape(depth, role);
  out.append(text);
  out += "\033[0m";
  return out;
}

}  // namespace tarn::render
