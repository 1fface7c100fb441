// AWS Signature Version 4 (internal to the S3 client; public for its unit tests).
// Written from AWS's documentation "Create a signed AWS API request" and S3's
// "Authenticating Requests (AWS Signature Version 4)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/digest.h"
#include "common/hex.h"

namespace tarn::s3 {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct SigV4Request {
  std::string_view method;
  // The request path exactly as sent (already URI-encoded), e.g. "/bucket/a%20b".
  std::string_view encoded_path;
  // Query parameters, not yet encoded ("" values allowed); order does not matter.
  std::vector<std::pair<std::string, std::string>> query;
  // Every header to sign (host and x-amz-date included), as sent; names in any case.
  HeaderList headers;
  // Hex SHA-256 of the body, or "UNSIGNED-PAYLOAD".
  std::string_view payload_hash;
};

struct SigV4Key {
  std::string_view access_key_id;
  std::string_view secret_access_key;
  std::string_view region;
  std::string_view service;  // "s3"
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;x-amz-date"
  std::string signature;       // lower-case hex
  std::string authorization;   // the Authorization header value
};

// Signs a request at `amz_date` ("YYYYMMDDTHHMMSSZ", the x-amz-date value).
SigV4Signature SignV4(const SigV4Request& request, const SigV4Key& key, std::string_view amz_date);

// RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - . _ ~ becomes %XX
// (upper-case hex); '/' is kept when !encode_slash.
std::string UriEncode(std::string_view s, bool encode_slash);
// The canonical query string: pairs encoded, sorted by name then value, joined with '&'.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);

using tarn::HexEncode;  // common/hex.h
// Lower-case hex SHA-256.
std::string Sha256Hex(const void* data, size_t n);
inline std::string Sha256Hex(std::string_view s) { return Sha256Hex(s.data(), s.size()); }
using tarn::HmacSha256;  // common/digest.h: raw (32 bytes)
// The derived signing key kSigning = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region),
// service), "aws4_request"), raw.
std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service);
// Base64 of the MD5 of data (the Content-MD5 header).
std::string Md5Base64(std::string_view data);
// "YYYYMMDDTHHMMSSZ" for a Unix time.
std::string AmzDate(int64_t unix_seconds);

constexpr std::string_view kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

}  // namespace tarn::s3
