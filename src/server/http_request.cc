#include "server/http_request.h"

#include <algorithm>

#include "common/hex.h"
#include "server/error_codes.h"

namespace tarn::server::internal {

namespace {

Status Malformed(std::string message) {
  return Status::Of(codes::kMalformedRequest, std::move(message));
}

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> ParseUrlEncoded(std::string_view text,
                                                                         std::string_view what) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t amp = text.find('&', pos);
    if (amp == std::string_view::npos) amp = text.size();
    std::string_view pair = text.substr(pos, amp - pos);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      auto key = PercentDecode(pair.substr(0, eq), /*plus_is_space=*/true);
      auto value = eq == std::string_view::npos
                       ? std::optional<std::string>("")
                       : PercentDecode(pair.substr(eq + 1), /*plus_is_space=*/true);
      if (!key || !value) return Malformed("bad percent escape in the " + std::string(what));
      out.emplace_back(std::move(*key), std::move(*value));
    }
    pos = amp + 1;
  }
  return out;
}

std::optional<std::string> RequestTarget::QueryValue(std::string_view name) const {
  for (const auto& [k, v] : query) {
    if (k == name) return v;
  }
  return std::nullopt;
}

Result<RequestTarget> ParseTarget(std::string_view target, size_t max_path_bytes) {
  if (target.empty() || target.front() != '/') {
    return Malformed("the request target must be a path starting with '/'");
  }
  for (char c : target) {
    if (IsControl(static_cast<unsigned char>(c)) || c == ' ') {
      return Malformed("the request target holds a control character");
    }
  }
  size_t q = target.find('?');
  std::string_view raw_path = target.substr(0, q);
  if (raw_path.size() > max_path_bytes) {
    return Status::Of(codes::kUriTooLong, "the request path is too long");
  }
  RequestTarget out;
  out.raw_path = std::string(raw_path);
  auto path = PercentDecode(raw_path);
  if (!path) return Malformed("bad percent escape in the path");
  out.path = std::move(*path);
  if (q == std::string_view::npos) return out;
  TARN_ASSIGN_OR_RETURN(out.query, ParseUrlEncoded(target.substr(q + 1), "query"));
  return out;
}

Result<Framing> CheckFraming(const std::vector<std::string_view>& content_lengths,
                             const std::vector<std::string_view>& transfer_encodings) {
  Framing out;
  if (content_lengths.size() > 1) {
    return Malformed("the request has more than one Content-Length header");
  }
  if (!content_lengths.empty() && !transfer_encodings.empty()) {
    return Malformed("the request has both Content-Length and Transfer-Encoding");
  }
  if (!content_lengths.empty()) {
    std::string_view v = Trim(content_lengths[0]);
    if (v.empty() || v.size() > 18 || v.find_first_not_of("0123456789") != std::string_view::npos) {
      return Malformed("Content-Length must be a non-negative decimal number");
    }
    int64_t n = 0;
    for (char c : v) n = n * 10 + (c - '0');
    out.content_length = n;
  }
  if (!transfer_encodings.empty()) {
    if (transfer_encodings.size() > 1 || Lower(Trim(transfer_encodings[0])) != "chunked") {
      return Malformed("the only Transfer-Encoding accepted is a single 'chunked'");
    }
    out.chunked = true;
  }
  return out;
}

namespace {

// 1 to 19 decimal digits (no sign, no space) as a number; nullopt otherwise.
std::optional<uint64_t> RangeNumber(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

}  // namespace

Result<std::optional<ByteRange>> ParseRange(std::string_view header, uint64_t size) {
  const std::optional<ByteRange> whole;
  std::string_view v = Trim(header);
  constexpr std::string_view kUnit = "bytes=";
  if (v.size() < kUnit.size() || Lower(v.substr(0, kUnit.size())) != kUnit) return whole;
  v = Trim(v.substr(kUnit.size()));
  if (v.find(',') != std::string_view::npos) return whole;  // several ranges
  const size_t dash = v.find('-');
  if (dash == std::string_view::npos) return whole;
  const std::string_view first = Trim(v.substr(0, dash)), last = Trim(v.substr(dash + 1));
  auto unsatisfiable = [&] {
    return Status::Of(codes::kRangeNotSatisfiable,
                      "the range " + std::string(header.substr(0, 64)) +
                          " is outside the object of " + std::to_string(size) + " bytes")
        .WithField("size", std::to_string(size));
  };
  if (first.empty()) {  // the last n bytes
    auto n = RangeNumber(last);
    if (!n) return whole;
    if (*n == 0 || size == 0) return unsatisfiable();
    const uint64_t length = std::min(*n, size);
    return std::optional<ByteRange>(ByteRange{size - length, length});
  }
  auto from = RangeNumber(first);
  if (!from) return whole;
  uint64_t to = UINT64_MAX;
  if (!last.empty()) {
    auto n = RangeNumber(last);
    if (!n || *n < *from) return whole;
    to = *n;
  }
  if (*from >= size) return unsatisfiable();
  to = std::min(to, size - 1);
  return std::optional<ByteRange>(ByteRange{*from, to - *from + 1});
}

}  // namespace tarn::server::internal
