#include "server/errors.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tarn::server::internal {

namespace {

constexpr char kInternalMessage[] =
    "internal error; the server log has the details under this request's id";

bool EndsToken(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\'' || c == '"' || c == '`' ||
         c == ')' || c == ']' || c == '}' || c == ',' || c == ';' || c == '<' || c == '>';
}

// Whether a path may start at text[i] (the '/' of an absolute path, or the 'f' of file://).
bool StartsToken(std::string_view text, size_t i) {
  if (i == 0) return true;
  char c = text[i - 1];
  return c == ' ' || c == '\t' || c == '\n' || c == '\'' || c == '"' || c == '`' || c == '(' ||
         c == '[' || c == '=' || c == ',' || c == ':';
}

void AddLocal(std::vector<std::pair<std::string, std::string>>* out, std::string path,
              const std::string& placeholder) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty() || path == "/") return;
  out->emplace_back("file://" + path, placeholder);
  out->emplace_back(path, placeholder);
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  if (!ec && canonical.string() != path && canonical.string() != "/") {
    out->emplace_back("file://" + canonical.string(), placeholder);
    out->emplace_back(canonical.string(), placeholder);
  }
}

bool IsLocalPath(std::string_view s) { return !s.empty() && s[0] == '/'; }

// The password of a postgresql:// URI (userinfo or a password= parameter), or "".
std::string PostgresPassword(std::string_view uri) {
  size_t scheme = uri.find("://");
  if (scheme != std::string_view::npos) {
    std::string_view rest = uri.substr(scheme + 3);
    size_t at = rest.find('@');
    size_t slash = rest.find('/');
    if (at != std::string_view::npos && (slash == std::string_view::npos || at < slash)) {
      std::string_view userinfo = rest.substr(0, at);
      size_t colon = userinfo.find(':');
      if (colon != std::string_view::npos && colon + 1 < userinfo.size()) {
        return std::string(userinfo.substr(colon + 1));
      }
    }
  }
  size_t p = uri.find("password=");
  if (p != std::string_view::npos) {
    std::string_view v = uri.substr(p + 9);
    size_t end = v.find_first_of("& ");
    return std::string(v.substr(0, end));
  }
  return "";
}

bool HasLayerPrefix(std::string_view message, std::string_view prefix) {
  if (message.starts_with(prefix)) return true;
  std::string needle = ": " + std::string(prefix);
  return message.find(needle) != std::string_view::npos;
}

}  // namespace

RedactionContext RedactionContext::For(std::string_view warehouse_uri,
                                       std::string_view metastore_uri,
                                       std::string_view catalog_dir) {
  RedactionContext ctx;
  auto& r = ctx.replacements;
  if (!warehouse_uri.empty()) {
    std::string w(warehouse_uri);
    if (w.starts_with("file://")) {
      AddLocal(&r, w.substr(7), "<warehouse>");
    } else if (IsLocalPath(w)) {
      AddLocal(&r, w, "<warehouse>");
    } else {
      while (w.size() > 1 && w.back() == '/') w.pop_back();
      r.emplace_back(w, "<warehouse>");
    }
  }
  if (!metastore_uri.empty()) {
    std::string m(metastore_uri);
    if (m.starts_with("postgresql://") || m.starts_with("postgres://")) {
      r.emplace_back(m, "<metastore>");
      std::string pw = PostgresPassword(m);
      if (pw.size() >= 3) r.emplace_back(pw, "<redacted>");
    } else if (IsLocalPath(m)) {
      AddLocal(&r, m, "<metastore>");
    } else {
      r.emplace_back(m, "<metastore>");
    }
  }
  if (!catalog_dir.empty()) AddLocal(&r, std::string(catalog_dir), "<catalog>");
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ctx.root_entries.push_back(it->path().filename().string());
  }
  return ctx;
}

namespace {

std::string Redact(std::string_view text, const RedactionContext& ctx, bool unknown_paths) {
  std::vector<const std::pair<std::string, std::string>*> order;
  for (const auto& rep : ctx.replacements) {
    if (!rep.first.empty()) order.push_back(&rep);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto* a, const auto* b) { return a->first.size() > b->first.size(); });
  std::string s(text);
  for (const auto* rep : order) {
    std::string out;
    size_t pos = 0;
    while (true) {
      size_t hit = s.find(rep->first, pos);
      if (hit == std::string::npos) break;
      out.append(s, pos, hit - pos);
      out += rep->second;
      pos = hit + rep->first.size();
    }
    out.append(s, pos, std::string::npos);
    s = std::move(out);
  }
  if (!unknown_paths || ctx.root_entries.empty()) return s;
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    size_t path_at = std::string::npos;  // where the path itself starts (its first '/')
    if (StartsToken(s, i)) {
      if (s[i] == '/') {
        path_at = i;
      } else if (s.compare(i, 8, "file:///") == 0) {
        path_at = i + 7;
      }
    }
    if (path_at == std::string::npos) {
      out += s[i++];
      continue;
    }
    size_t end = path_at;
    while (end < s.size() && !EndsToken(s[end])) ++end;
    size_t stop = end;  // trailing ':' and '.' end the sentence, not the path
    while (stop > path_at + 1 && (s[stop - 1] == ':' || s[stop - 1] == '.')) --stop;
    size_t first_end = s.find('/', path_at + 1);
    if (first_end == std::string::npos || first_end > stop) first_end = stop;
    std::string first = s.substr(path_at + 1, first_end - path_at - 1);
    bool known = !first.empty() && std::find(ctx.root_entries.begin(), ctx.root_entries.end(),
                                             first) != ctx.root_entries.end();
    if (known) {
      out += "<path>";
      i = stop;
    } else {
      out.append(s, i, end - i);
      i = end;
    }
  }
  return out;
}

}  // namespace

std::string RedactText(std::string_view text, const RedactionContext& ctx) {
  return Redact(text, ctx, /*unknown_paths=*/true);
}

bool IsRawMetastoreError(const Status& st) {
  if (st.ok()) return false;
  for (const auto& [k, v] : st.fields()) {
    if (k == "metastore_retry") return true;
  }
  const std::string& m = st.message();
  return HasLayerPrefix(m, "sqlite: ") || HasLayerPrefix(m, "postgres: ") ||
         HasLayerPrefix(m, "metastore: ") || m.find("SQLSTATE") != std::string::npos;
}

Status PublicError(const Status& st, const RedactionContext& ctx) {
  if (st.ok()) return st;
  auto internal = [] { return Status::Of(codes::kInternal, kInternalMessage); };
  if (st.kind() == ErrorKind::kInternal) return internal();
  if (IsRawMetastoreError(st)) {
    const char* message = nullptr;
    switch (st.kind()) {
      case ErrorKind::kUnavailable:
        message = "the catalog database is busy or unreachable; retry";
        break;
      case ErrorKind::kAlreadyExists:
        message = "the catalog database refused the change: an entry with the same key exists";
        break;
      case ErrorKind::kFailedPrecondition:
        message = "the catalog database refused the change: it conflicts with another entry";
        break;
      case ErrorKind::kInvalidArgument:
        message = "the catalog database refused a value of the request";
        break;
      case ErrorKind::kConflict:
        message = "the change conflicted with a concurrent one; retry";
        break;
      default:
        return internal();
    }
    return Status(st.kind(), message).WithField("code", std::string(ErrorKindName(st.kind())));
  }
  Status out(st.kind(), RedactText(st.message(), ctx));
  for (const auto& [k, v] : st.fields()) {
    if (k == "metastore_retry") continue;
    // "field" is a JSON pointer into the request ("/data/0"), never a server path.
    out = std::move(out).WithField(k, Redact(v, ctx, /*unknown_paths=*/k != "field"));
  }
  return out;
}

}  // namespace tarn::server::internal
