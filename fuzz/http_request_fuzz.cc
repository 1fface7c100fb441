// The request heads tarn serve reads: arbitrary bytes, fed in arbitrary pieces to Boost.Beast's
// request parser with the server's limits, then tarn's own checks of what it yields
// (src/server/http_request.h: the target, the framing and a Range header). Checks that nothing
// crashes, that a head tarn accepts has exactly one way to end its body (the parser and tarn agree
// on it), and that a decoded target is consistent with its raw form.
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/hex.h"
#include "server/http_request.h"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  size_t piece = 1 + data[0] % 64;  // the first byte sets how the rest arrives
  std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  http::request_parser<http::empty_body> parser;
  parser.header_limit(8192);
  parser.body_limit(boost::none);
  parser.eager(false);
  boost::beast::error_code ec;
  size_t at = 0;
  std::string pending;
  while (at < bytes.size() && !parser.is_header_done()) {
    pending.append(bytes.substr(at, piece));
    at += std::min(piece, bytes.size() - at);
    size_t used = parser.put(boost::asio::buffer(pending.data(), pending.size()), ec);
    if (ec == http::error::need_more) {
      ec = {};
      pending.erase(0, used);
      continue;
    }
    if (ec) return 0;  // refused by the parser: the server answers 400/431 and closes
    pending.erase(0, used);
  }
  if (!parser.is_header_done()) return 0;

  const auto& req = parser.get();
  std::vector<std::string_view> lengths, encodings;
  for (const auto& f : req) {
    if (f.name() == http::field::content_length) {
      lengths.emplace_back(f.value().data(), f.value().size());
    } else if (f.name() == http::field::transfer_encoding) {
      encodings.emplace_back(f.value().data(), f.value().size());
    }
  }
  auto framing = tarn::server::internal::CheckFraming(lengths, encodings);
  if (framing.ok()) {
    // Where tarn accepts the framing, the parser must read the body the same way.
    if (framing->chunked != parser.chunked()) std::abort();
    auto parser_length = parser.content_length();
    if (framing->content_length.has_value() != parser_length.has_value()) std::abort();
    if (parser_length && static_cast<uint64_t>(*framing->content_length) != *parser_length) {
      std::abort();
    }
  }

  std::string_view target(req.target().data(), req.target().size());
  auto parsed = tarn::server::internal::ParseTarget(target, 2048);
  if (parsed.ok()) {
    if (parsed->path.empty() || parsed->path[0] != '/') std::abort();
    if (parsed->raw_path.size() > 2048) std::abort();
    auto decoded = tarn::PercentDecode(parsed->raw_path, false);
    if (!decoded || *decoded != parsed->path) std::abort();
    for (char c : parsed->raw_path) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == ' ') std::abort();
    }
  }

  // A Range header (the Iceberg facade's file route), against a few object sizes: a range
  // taken lies inside the object.
  if (auto range = req.find(http::field::range); range != req.end()) {
    std::string_view value(range->value().data(), range->value().size());
    for (uint64_t object_size : {uint64_t{0}, uint64_t{1}, uint64_t{100}, uint64_t{1} << 40}) {
      auto r = tarn::server::internal::ParseRange(value, object_size);
      if (r.ok() && *r) {
        if ((*r)->length == 0 || (*r)->offset >= object_size ||
            (*r)->length > object_size - (*r)->offset) {
          std::abort();
        }
      }
    }
  }

  // The rest as the body, as a worker would read it.
  if (framing.ok() && framing->has_body()) {
    http::request_parser<http::buffer_body> body(std::move(parser));
    char out[512];
    pending.append(bytes.substr(at));
    while (!body.is_done() && !pending.empty()) {
      body.get().body().data = out;
      body.get().body().size = sizeof(out);
      size_t used = body.put(boost::asio::buffer(pending.data(), pending.size()), ec);
      if (ec == http::error::need_buffer) ec = {};
      if (ec) break;
      pending.erase(0, used);
      if (used == 0 && body.get().body().size == sizeof(out)) break;
    }
  }
  return 0;
}
