// The colours of tarn's printed output, defined once: a small palette of roles (accent, dim, ok,
// warn, error, header) written as 24-bit colour when the terminal says it takes it
// (COLORTERM=truecolor or 24bit), else as the nearest xterm-256 index, and not at all with
// NO_COLOR, --no-color, TERM=dumb or when the stream is not a terminal. The printed commands and
// the full-screen app share it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tarn::render {

enum class ColorRole : uint8_t { kAccent, kDim, kOk, kWarn, kError, kHeader };
enum class ColorDepth : uint8_t { kNone, k256, kTrue };

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
};

// The palette colour of a role.
Rgb RoleColor(ColorRole role);
// Whether the role is also drawn bold (header, error).
bool RoleBold(ColorRole role);

// The xterm-256 index nearest to `c` (the 6x6x6 cube 16..231 or the grey ramp 232..255, by
// squared distance in RGB).
int NearestXterm256(Rgb c);

// The depth for a stream from the environment alone: `is_tty` whether it is a terminal,
// `no_color` the value of $NO_COLOR (nullptr when unset), `colorterm` $COLORTERM, `term` $TERM.
ColorDepth DetectColorDepth(bool is_tty, const char* no_color, const char* colorterm,
                            const char* term);

// --no-color: turns colour off for the rest of the process.
void DisableColor();
// The depth of a file descriptor (1 stdout, 2 stderr) for this process: off after DisableColor.
ColorDepth DepthFor(int fd);

// The SGR sequence that starts drawing in `role` at `depth` ("" at kNone); "\033[0m" ends it.
std::string RoleEscape(ColorDepth depth, ColorRole role);
// `text` wrapped in the escape sequences of `role` at `depth` (unchanged at kNone).
std::string Paint(ColorDepth depth, ColorRole role, std::string_view text);

// A palette bound to one stream.
class Style {
 public:
  explicit Style(ColorDepth depth) : depth_(depth) {}
  static Style ForFd(int fd) { return Style(DepthFor(fd)); }

  bool enabled() const { return depth_ != ColorDepth::kNone; }
  ColorDepth depth() const { return depth_; }
  std::string operator()(ColorRole role, std::string_view text) const {
    return Paint(depth_, role, text);
  }
  std::string accent(std::string_view t) const { return Paint(depth_, ColorRole::kAccent, t); }
  std::string dim(std::string_view t) const { return Paint(depth_, ColorRole::kDim, t); }
  std::string ok(std::string_view t) const { return Paint(depth_, ColorRole::kOk, t); }
  std::string warn(std::string_view t) const { return Paint(depth_, ColorRole::kWarn, t); }
  std::string error(std::string_view t) const { return Paint(depth_, ColorRole::kError, t); }
  std::string header(std::string_view t) const { return Paint(depth_, ColorRole::kHeader, t); }

 private:
  ColorDepth depth_;
};

}  // namespace tarn::render
