// The parts of an HTTP request head that tarn checks itself, apart from the socket: the target
// (path and query, percent-decoded strictly) and the framing headers (Content-Length,
// Transfer-Encoding), checked more strictly than the HTTP parser does so that a proxy in front
// of the server and the server can never disagree on where a request ends. Pure functions;
// fuzz/http_request_fuzz.cc feeds them what Boost.Beast's parser yields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tarn/status.h"

namespace tarn::server::internal {

// The request path and query of an origin-form target ("/v1/x?a=b&c").
struct RequestTarget {
  // As sent (escapes kept): routes match on it segment by segment, so an escaped '/' ("%2F")
  // stays inside its segment instead of making a new one.
  std::string raw_path;
  // Percent-decoded: it may hold any byte ("%00"), which the routes' identifier checks refuse.
  std::string path;
  // In order; names and values decoded ('+' is a space). A name without '=' has value "".
  std::vector<std::pair<std::string, std::string>> query;

  // The value of the first query parameter called `name`; nullopt when there is none.
  std::optional<std::string> QueryValue(std::string_view name) const;
};

// Splits and decodes `target`. kInvalidArgument with code=uri_too_long (414) when the path is
// longer than `max_path_bytes` before decoding; code=malformed_request (400) for a target that
// does not start with '/', a bad %XX escape, or a space or control byte in the raw target.
Result<RequestTarget> ParseTarget(std::string_view target, size_t max_path_bytes);

// The name=value pairs of application/x-www-form-urlencoded text (a query, a form body), in
// order: '&' separates, '+' is a space, %XX escapes; a name without '=' has value "".
// kInvalidArgument code=malformed_request ("bad percent escape in the <what>") on a bad escape.
Result<std::vector<std::pair<std::string, std::string>>> ParseUrlEncoded(std::string_view text,
                                                                         std::string_view what);

// How a request's body is delimited.
struct Framing {
  std::optional<int64_t> content_length;  // nullopt: no Content-Length header
  bool chunked = false;                   // Transfer-Encoding: chunked
  bool has_body() const { return chunked || (content_length && *content_length > 0); }
};

// Checks the values of every Content-Length and every Transfer-Encoding header line of a
// request (as many as it sent, in order). kInvalidArgument code=malformed_request (400) for:
// more than one Content-Length line (even with equal values), a value that is not 1 to 18
// decimal digits, any Transfer-Encoding but exactly one "chunked" (case-insensitive), and
// Content-Length together with Transfer-Encoding.
Result<Framing> CheckFraming(const std::vector<std::string_view>& content_lengths,
                             const std::vector<std::string_view>& transfer_encodings);

// One byte range of an object: `length` bytes from `offset`.
struct ByteRange {
  uint64_t offset = 0;
  uint64_t length = 0;
};

// The single byte range a Range header asks of an object of `size` bytes (RFC 9110 14.1.2):
// "bytes=a-b", "bytes=a-" or "bytes=-n" (the last n bytes), an end past the object clipped to
// it. nullopt means the whole object: no header, another unit, several ranges or a malformed
// value (a server may ignore any of these). kInvalidArgument code=range_not_satisfiable (416)
// when the range starts at or past the end (or asks for the last 0 bytes).
Result<std::optional<ByteRange>> ParseRange(std::string_view header, uint64_t size);

}  // namespace tarn::server::internal
