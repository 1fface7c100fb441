// UTF-8 encoding shared by the parsers that decode escapes (JSON \u, XML &#...;).
#pragma once

#include <cstdint>
#include <string>

namespace tarn {

// Appends the UTF-8 encoding of code point `cp` (at most 0x10FFFF; callers check) to `out`.
void AppendUtf8(uint32_t cp, std::string* out);

}  // namespace tarn
