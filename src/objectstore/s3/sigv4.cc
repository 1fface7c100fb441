#include "objectstore/s3/sigv4.h"

#include <algorithm>
#include <ctime>

#include "common/base64.h"

namespace tarn::s3 {

namespace {

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Trims the value and collapses runs of spaces into one (SigV4 canonical header values).
std::string CanonicalHeaderValue(std::string_view v) {
  size_t b = 0, e = v.size();
  while (b < e && (v[b] == ' ' || v[b] == '\t')) ++b;
  while (e > b && (v[e - 1] == ' ' || v[e - 1] == '\t')) --e;
  std::string out;
  out.reserve(e - b);
  bool space = false;
  for (size_t i = b; i < e; ++i) {
    char c = v[i];
    if (c == ' ' || c == '\t') {
      if (!space) out.push_back(' ');
      space = true;
    } else {
      out.push_back(c);
      space = false;
    }
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view s, bool encode_slash) {
  std::string out;
  out.reserve(s.size() + s.size() / 2);
  AppendPercentEncoded(s, &out, encode_slash ? "-._~" : "-._~/");
  return out;
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [k, v] : query) encoded.emplace_back(UriEncode(k, true), UriEncode(v, true));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [k, v] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += k;
    out.push_back('=');
    out += v;
  }
  return out;
}

std::string Sha256Hex(const void* data, size_t n) {
  return HexEncode(Sha256(std::string_view(static_cast<const char*>(data), n)));
}

std::string SigningKey(std::string_view secret, std::string_view date, std::string_view region,
                       std::string_view service) {
  std::string k = HmacSha256("AWS4" + std::string(secret), date);
  k = HmacSha256(k, region);
  k = HmacSha256(k, service);
  return HmacSha256(k, "aws4_request");
}

std::string Md5Base64(std::string_view data) { return Base64Encode(Md5(data)); }

std::string AmzDate(int64_t unix_seconds) {
  time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

SigV4Signature SignV4(const SigV4Request& request, const SigV4Key& key, std::string_view amz_date) {
  SigV4Signature sig;
  // Canonical headers: lower-case names, sorted; repeated names joined with ','.
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(request.headers.size());
  for (const auto& [name, value] : request.headers) {
    headers.emplace_back(ToLower(name), CanonicalHeaderValue(value));
  }
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.pop_back();  // the '\n'
      canonical_headers += ',' + headers[i].second + '\n';
      continue;
    }
    if (!sig.signed_headers.empty()) sig.signed_headers.push_back(';');
    sig.signed_headers += headers[i].first;
    canonical_headers += headers[i].first + ':' + headers[i].second + '\n';
  }

  std::string path(request.encoded_path.empty() ? std::string_view("/") : request.encoded_path);
  sig.canonical_request = std::string(request.method) + '\n' + path + '\n' +
                          CanonicalQuery(request.query) + '\n' + canonical_headers + '\n' +
                          sig.signed_headers + '\n' + std::string(request.payload_hash);

  std::string_view date = amz_date.substr(0, 8);
  std::string scope = std::string(date) + '/' + std::string(key.region) + '/' +
                      std::string(key.service) + "/aws4_request";
  sig.string_to_sign = "AWS4-HMAC-SHA256\n" + std::string(amz_date) + '\n' + scope + '\n' +
                       Sha256Hex(sig.canonical_request);
  std::string mac = HmacSha256(SigningKey(key.secret_access_key, date, key.region, key.service),
                               sig.string_to_sign);
  sig.signature = HexEncode(reinterpret_cast<const uint8_t*>(mac.data()), mac.size());
  sig.authorization = "AWS4-HMAC-SHA256 Credential=" + std::string(key.access_key_id) + '/' +
                      scope + ", SignedHeaders=" + sig.signed_headers +
                      ", Signature=" + sig.signature;
  return sig;
}

}  // namespace tarn::s3
